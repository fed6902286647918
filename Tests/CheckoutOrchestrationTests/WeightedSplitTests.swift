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

    @Test("10,000 routed payments follow the weights within 2 points, and the same seed routes them the same way")
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
        for (share, expected) in zip(charges.map { Double($0) / Double(count) }, [0.6, 0.3, 0.1]) {
            #expect(abs(share - expected) < 0.02, "share \(share), expected \(expected) (seed \(seed))")
        }
        // Deterministic: the picker alone gives the same first processor for every key, twice.
        let route = harness.router.file.routes[0]
        let picker = WeightedPicker(seed: seed)
        let digests = keys.map(LedgerText.stableKeyDigest)
        let firsts = digests.map { picker.order(route, paymentKey: $0)[0] }
        #expect(firsts == digests.map { WeightedPicker(seed: seed).order(route, paymentKey: $0)[0] })
        #expect(["psp-a", "psp-b", "psp-c"].map { name in firsts.filter { $0 == name }.count } == charges)
        // The rest follow in list order as fallbacks.
        #expect(picker.order(route, paymentKey: digests[0]).count == 3)
    }
}
