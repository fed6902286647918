import CheckoutCore
import CheckoutOrchestration
import CheckoutVault
import Foundation

/// Routing that learns: three processors with hidden authorization rates (0.92 / 0.85 / 0.70) that
/// swap halfway (the best becomes the worst), 20,000 payments through the real router and its
/// SQLite ledger, an `"auth-rate"` route against a fixed-weight one (60 / 30 / 10) on the same
/// payments. Each payment carries one uniform draw `u`, and a processor with rate `r` authorizes it
/// iff `u < r` (common random numbers), so the oracle (always the best processor) and both routes
/// are judged on exactly the same luck.
extension OrchestrationBench {
    /// A processor whose authorization rate the router cannot see: it authorizes payment `i` iff
    /// `draws[i] < rate(i)`, and declines with the sandbox's hard-decline code otherwise.
    final class HiddenRateProcessor: ForwardingProcessor, Sendable {
        let base: ScriptedSandboxProcessor
        private let draws: [Double]
        private let rate: @Sendable (Int) -> Double

        init(name: String, draws: [Double], rate: @escaping @Sendable (Int) -> Double) {
            self.draws = draws
            self.rate = rate
            base = ScriptedSandboxProcessor(name: name)
        }

        func createAttempt(_ request: AttemptRequest) async throws -> PaymentResponse {
            let index = Int(request.payment.session.token.customerId.dropFirst(4)) ?? 0
            guard draws[index] < rate(index) else {
                return PaymentResponse(paymentId: "\(name)_declined_\(index)", status: .declined, reason: "05")
            }
            return try await base.createAttempt(request)
        }
    }

    static func authRate(_ options: BenchOptions) async throws -> [Figure] {
        let payments = options.scale(20_000, quick: 2_000)
        let swap = payments / 2
        var generator = RetryPolicy.Generator(seed: 20_261_206)
        let draws = (0..<payments).map { _ in Double.random(in: 0..<1, using: &generator) }
        let before = ["psp-a": 0.92, "psp-b": 0.85, "psp-c": 0.70]
        let after = ["psp-a": 0.70, "psp-b": 0.85, "psp-c": 0.92]
        let best = 0.92
        let scratch = try ScratchDirectory("orchestration-auth-rate")
        defer { scratch.remove() }
        let card = CardDetails(number: "4242424242424242", cvv: "123", expiryMonth: 12, expiryYear: 2030, network: .visa)

        /// Runs every payment through a route; returns which were authorized.
        func run(_ label: String, route: String) async throws -> [Bool] {
            let file = try RoutingFileLoader.load(Array("""
                { "processors": [ { "name": "psp-a", "kind": "sandbox" }, { "name": "psp-b", "kind": "sandbox" },
                                  { "name": "psp-c", "kind": "sandbox" } ],
                  "routes": [ \(route) ] }
                """.utf8))
            var processors: [String: any RoutableProcessor] = [:]
            for name in ["psp-a", "psp-b", "psp-c"] {
                processors[name] = HiddenRateProcessor(name: name, draws: draws) { index in (index < swap ? before : after)[name] ?? 0 }
            }
            let ledger = PaymentLedger(storage: try SQLiteLedgerStorage(path: scratch.url.appendingPathComponent("\(label).sqlite").path,
                                                                        durability: .processCrash))
            let router = try PaymentRouter(file: file, processors: processors, ledger: ledger, picker: WeightedPicker(seed: 7))
            var authorized: [Bool] = []
            authorized.reserveCapacity(payments)
            for index in 0..<payments {
                let token = ClientToken(merchantId: "m", customerId: "sim-\(index)", amount: 1000, currency: "EUR", country: "NL",
                                        allowedCardNetworks: [], expiresAt: WallClock.system.now.addingTimeInterval(3600),
                                        paymentMethods: [AdvertisedPaymentMethod(id: "pm", type: .paymentCard)])
                let session = ClientSession(token: token, paymentMethods: token.paymentMethods)
                let routed = try await router.tokenize(.card(card), session: session)
                let response = try await router.createPayment(CreatePaymentRequest(token: routed, session: session,
                                                                                   idempotencyKey: "\(label)-\(index)"))
                authorized.append(response.status == .succeeded)
            }
            return authorized
        }

        let learned = try await run("learned", route: #"{ "name": "all", "processors": ["psp-a", "psp-b", "psp-c"], "strategy": "auth-rate" }"#)
        let fixed = try await run("fixed", route: """
            { "name": "all", "processors": ["psp-a", "psp-b", "psp-c"], "weights": { "psp-a": 60, "psp-b": 30, "psp-c": 10 } }
            """)
        let oracle = draws.map { $0 < best }
        func rate(_ outcomes: [Bool], _ range: Range<Int>) -> Double {
            Double(outcomes[range].filter { $0 }.count) / Double(range.count)
        }
        let all = 0..<payments
        let oracleRate = rate(oracle, all)
        let learnedRate = rate(learned, all)
        let fixedRate = rate(fixed, all)
        // After the swap: the 1,000 payments that follow the first 1,000 (in quick mode, the last quarter).
        let recovery = options.quick ? (payments * 3 / 4)..<payments : (swap + 1000)..<min(payments, swap + 2000)
        let gap = (rate(oracle, recovery) - rate(learned, recovery)) * 100
        let judged = !options.quick
        return [
            Figure(name: "orchestration.authRate.learned", value: learnedRate * 100, unit: "% authorized", baseline: oracleRate * 100,
                   baselineName: "oracle (always the best processor)", ratio: learnedRate / oracleRate,
                   target: ">= 97% of the oracle", targetMet: judged ? learnedRate / oracleRate >= 0.97 : nil,
                   note: "\(payments) payments, rates 0.92/0.85/0.70 swapping at \(swap); strategy auth-rate (discounted Thompson sampling)"),
            Figure(name: "orchestration.authRate.recovery", value: gap, unit: "points below the oracle",
                   target: "<= 1 point, from 1,000 payments after the swap", targetMet: judged ? gap <= 1 : nil,
                   note: "over payments \(recovery.lowerBound)..<\(recovery.upperBound)"),
            Figure(name: "orchestration.authRate.fixedWeights", value: fixedRate * 100, unit: "% authorized", baseline: oracleRate * 100,
                   baselineName: "oracle (always the best processor)", ratio: fixedRate / oracleRate,
                   note: "the same payments on a fixed 60/30/10 split; after the swap: "
                       + String(format: "%.2f%%", rate(fixed, recovery) * 100)),
        ]
    }
}
