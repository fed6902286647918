import CheckoutCore
import CheckoutCoreTesting
import CheckoutLocking
@testable import CheckoutOrchestration
import CheckoutVault
import Foundation
import Testing

/// `"strategy": "auth-rate"`: routes that learn each processor's authorization rate.
@Suite struct AuthRateRoutingTests {
    /// A processor that authorizes with a rate the test sets and the router cannot see (hard decline otherwise).
    final class RateProcessor: ForwardingProcessor, Sendable {
        let base: ScriptedSandboxProcessor
        let rate: Locked<Double>
        let attempts = Locked(0)
        private let random: Locked<RetryPolicy.Generator>

        init(name: String, rate: Double, seed: UInt64) {
            base = ScriptedSandboxProcessor(name: name)
            self.rate = Locked(rate)
            random = Locked(RetryPolicy.Generator(seed: seed))
        }

        func createAttempt(_ request: AttemptRequest) async throws -> PaymentResponse {
            attempts.withLock { $0 += 1 }
            let draw = random.withLock { Double.random(in: 0..<1, using: &$0) }
            guard draw < rate.withLock({ $0 }) else { return PaymentResponse(paymentId: "\(name)_d", status: .declined, reason: "05") }
            return try await base.createAttempt(request)
        }
    }

    static let routing = """
        { "processors": [ { "name": "a", "kind": "sandbox" }, { "name": "b", "kind": "sandbox" }, { "name": "c", "kind": "sandbox" } ],
          "routes": [ { "name": "all", "processors": ["a", "b", "c"], "strategy": "auth-rate", "fallbackOn": ["processor-error"] } ],
          "breaker": { "consecutiveFailures": 3, "failureRate": 0, "window": 10, "coolDownSeconds": 30 } }
        """

    /// `count` payments; returns how many first attempts each processor got.
    static func pay(_ router: PaymentRouter, _ processors: [String: RateProcessor], count: Int, from start: Int) async throws
        -> [String: Int] {
        let before = processors.mapValues { $0.attempts.withLock { $0 } }
        for index in start..<(start + count) {
            let session = Harness.session()
            let token = try await router.tokenize(.card(CardDetails(number: Harness.visa, cvv: "123", expiryMonth: 1, expiryYear: 2031,
                                                                    network: .visa)), session: session)
            _ = try await router.createPayment(CreatePaymentRequest(token: token, session: session, idempotencyKey: "p\(index)"))
        }
        return processors.mapValues { $0.attempts.withLock { $0 } }.merging(before) { $0 - $1 }
    }

    @Test("an auth-rate route sends most payments to the best processor, and follows when the best becomes the worst")
    func learnsAndFollows() async throws {
        let file = try RoutingFileLoader.load(Array(Self.routing.utf8))
        let processors = ["a": RateProcessor(name: "a", rate: 0.3, seed: 1), "b": RateProcessor(name: "b", rate: 0.6, seed: 2),
                          "c": RateProcessor(name: "c", rate: 0.95, seed: 3)]
        let directory = try OrchestrationTemp.directory("auth-rate")
        let ledger = PaymentLedger(storage: try SQLiteLedgerStorage(path: directory.appendingPathComponent("l.sqlite").path,
                                                                    durability: .processCrash))
        let router = try PaymentRouter(file: file, processors: processors, ledger: ledger, picker: WeightedPicker(seed: 11))
        _ = try await Self.pay(router, processors, count: 400, from: 0)
        let settled = try await Self.pay(router, processors, count: 200, from: 400)
        #expect(settled["c", default: 0] >= 170, "\(settled)")
        let explained = router.explain(RoutingFacts(methodType: "PAYMENT_CARD", currency: "EUR", amount: 1000))
        #expect(explained.steps.first?.processor == "c")
        #expect(explained.steps.allSatisfy { $0.authRate != nil })
        // The best becomes the worst and the worst the best.
        processors["c"]?.rate.withLock { $0 = 0.3 }
        processors["a"]?.rate.withLock { $0 = 0.95 }
        _ = try await Self.pay(router, processors, count: 800, from: 600)
        let moved = try await Self.pay(router, processors, count: 200, from: 1400)
        #expect(moved["a", default: 0] >= 150, "\(moved)")
        // A new router on the same ledger starts from what the ledger shows.
        let restarted = try PaymentRouter(file: file, processors: processors, ledger: ledger, picker: WeightedPicker(seed: 12))
        try await restarted.restoreCircuits()
        #expect(restarted.explain(RoutingFacts(methodType: "PAYMENT_CARD", currency: "EUR", amount: 1000)).steps.first?.processor == "a")
    }

    @Test("an auth-rate route never picks a processor whose circuit is open, however good its rate")
    func neverAnOpenCircuit() async throws {
        let file = try RoutingFileLoader.load(Array(Self.routing.utf8))
        let processors = ["a": RateProcessor(name: "a", rate: 0.99, seed: 1), "b": RateProcessor(name: "b", rate: 0.5, seed: 2),
                          "c": RateProcessor(name: "c", rate: 0.5, seed: 3)]
        let directory = try OrchestrationTemp.directory("auth-rate-open")
        let ledger = PaymentLedger(storage: try SQLiteLedgerStorage(path: directory.appendingPathComponent("l.sqlite").path,
                                                                    durability: .processCrash))
        let clock = TestClock()
        let router = try PaymentRouter(file: file, processors: processors, ledger: ledger, picker: WeightedPicker(seed: 5),
                                       clock: clock.wallClock)
        _ = try await Self.pay(router, processors, count: 100, from: 0)
        for _ in 0..<3 { router.breakers.record("a", failure: true, now: clock.wallClock.now) }
        #expect(router.breakers.wouldSkip("a", now: clock.wallClock.now) != nil)
        let during = try await Self.pay(router, processors, count: 50, from: 100)
        #expect(during["a", default: 0] == 0, "\(during)")
    }

    @Test("strategy is ordered or auth-rate, and auth-rate takes no weights: each refusal at its JSON path")
    func loader() {
        let weighted = Self.routing.replacingOccurrences(of: #""strategy": "auth-rate""#,
                                                         with: #""strategy": "auth-rate", "weights": { "a": 1, "b": 1, "c": 1 }"#)
        let both = #expect(throws: RoutingFileError.self) { _ = try RoutingFileLoader.load(Array(weighted.utf8)) }
        #expect(both?.description.contains("$.routes[0].strategy: auth-rate learns the split itself") == true, "\(String(describing: both))")
        let unknown = Self.routing.replacingOccurrences(of: "auth-rate", with: "fastest")
        let bad = #expect(throws: RoutingFileError.self) { _ = try RoutingFileLoader.load(Array(unknown.utf8)) }
        #expect(bad?.description.contains("$.routes[0].strategy: must be one of ordered, auth-rate") == true)
    }

    @Test("the model: a processor's faded counts, the posterior mean, and a sampled order that favours the higher rate")
    func model() {
        var model = AuthRateModel(discount: 0.5, evidenceWeight: 1)
        model.record("a", authorized: true)
        model.record("a", authorized: false)
        // The first outcome faded by half when the second was recorded: 0.5 authorized, 1 refused.
        #expect(model.estimates["a"] == AuthRateModel.Estimate(authorized: 0.5, refused: 1))
        #expect(abs((model.estimates["a"]?.rate ?? 0) - 1.5 / 3.5) < 1e-12)
        var strong = AuthRateModel()
        for _ in 0..<300 { strong.record("good", authorized: true); strong.record("poor", authorized: false) }
        var generator = RetryPolicy.Generator(seed: 3)
        let firsts = (0..<1000).map { _ in strong.order(["poor", "good"], using: &generator)[0] }
        #expect(firsts.filter { $0 == "good" }.count >= 990)
        #expect(strong.order(["poor", "good"], skipped: ["good"], using: &generator) == ["poor", "good"])
    }
}
