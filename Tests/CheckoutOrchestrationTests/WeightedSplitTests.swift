import CheckoutCore
import CheckoutTestSupport
@testable import CheckoutOrchestration
import Foundation
import Testing

/// A route split by weights, over 10,000 routed payments with a deterministic seed.
@Suite struct WeightedSplitTests {
    static let file = """
        { "processors": [ { "name": "psp-a", "kind": "sandbox" }, { "name": "psp-b", "kind": "sandbox" },
                          { "name": "psp-c", "kind": "sandbox" } ],
          "routes": [ { "name": "split", "processors": ["psp-a", "psp-b", "psp-c"],
                        "weights": { "psp-a": 60, "psp-b": 30, "psp-c": 10 } } ] }
        """

    /// Pearson's chi-square statistic of `observed` counts against `expected` shares.
    static func chiSquare(_ observed: [Int], _ expected: [Double]) -> Double {
        let total = Double(observed.reduce(0, +))
        return zip(observed, expected).reduce(0) { sum, pair in
            let wanted = pair.1 * total
            return sum + (Double(pair.0) - wanted) * (Double(pair.0) - wanted) / wanted
        }
    }

    @Test("10,000 routed payments follow the weights (chi-square, 2 degrees of freedom, p > 0.001), and the same seed routes them the same way")
    func weightedSplit() async throws {
        let seed = TestSeed.seed(18_001, for: "weightedSplit")
        let harness = try Harness(Self.file, seed: seed)
        var random = SeededRandom(seed: seed)
        let count = 10_000
        var keys: [String] = []
        for _ in 0..<count { keys.append("order-\(random.next())") }
        for key in keys { _ = try await harness.pay(key: key).get() }
        let charges = ["psp-a", "psp-b", "psp-c"].map { harness.sandboxes[$0]?.chargeCount ?? 0 }
        #expect(charges.reduce(0, +) == count)
        // 13.82 is the chi-square quantile for p = 0.001 at 2 degrees of freedom: a split this far
        // from 60/30/10 happens once in a thousand seeds by chance.
        let statistic = Self.chiSquare(charges, [0.6, 0.3, 0.1])
        #expect(statistic < 13.82, "charges \(charges), chi-square \(statistic) (seed \(seed))")
        // Deterministic: two routers on the same seed, built from scratch, charge the same
        // processor for each of 1,000 keys; a router on another seed does not.
        let names = ["psp-a", "psp-b", "psp-c"]
        func charged(_ harness: Harness, _ key: String) async throws -> String? {
            let before = names.map { harness.sandboxes[$0]?.chargeCount ?? 0 }
            _ = try await harness.pay(key: key).get()
            let after = names.map { harness.sandboxes[$0]?.chargeCount ?? 0 }
            return zip(names, zip(before, after)).first { $0.1.0 != $0.1.1 }?.0
        }
        let (first, again, other) = (try Harness(Self.file, seed: seed), try Harness(Self.file, seed: seed),
                                     try Harness(Self.file, seed: seed &+ 1))
        var same = 0, differ = 0
        for key in keys.prefix(1_000) {
            let chosen = try await charged(first, key)
            if chosen != nil, try await charged(again, key) == chosen { same += 1 }
            if try await charged(other, key) != chosen { differ += 1 }
        }
        #expect(same == 1_000)
        #expect(differ > 250, "another seed changed only \(differ) of 1,000 choices")
    }
}
