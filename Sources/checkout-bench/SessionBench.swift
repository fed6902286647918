import CheckoutKit
import Foundation

/// Sessions: time to ready with 50 registered methods, memory per idle ready session.
enum SessionBench {
    struct BenchHandler: PaymentMethodHandler {
        let type: PaymentMethodType
        var display: PaymentMethodDisplay { PaymentMethodDisplay(name: type.rawValue) }
        func makeFlow(context: PaymentFlowContext) -> any PaymentFlow { BenchFlow(type: type) }
    }

    final class BenchFlow: PaymentFlow {
        let paymentMethodType: PaymentMethodType
        init(type: PaymentMethodType) { paymentMethodType = type }
        var state: PaymentFlowState { .idle }
        func states() -> AsyncStream<PaymentFlowState> { AsyncStream { $0.yield(.idle); $0.finish() } }
        func submit() async -> PaymentFlowState { .failed(CheckoutError(.invalidState, "benchmark flow")) }
        func cancel() async {}
        func resume(with input: PaymentResumeInput) async throws -> PaymentFlowState { .idle }
    }

    static func run(_ options: BenchOptions) async throws -> [Figure] {
        let types = (0..<50).map { PaymentMethodType("METHOD_\($0)") }
        let registry = PaymentMethodRegistry()
        for type in types { try registry.register(BenchHandler(type: type)) }
        let configuration = CheckoutConfiguration(paymentMethods: types.reversed().map { .init(type: $0) })
        let token = ClientToken(
            merchantId: "merchant_a", customerId: "customer_1", amount: 1000, currency: "EUR", country: "NL",
            allowedCardNetworks: [.visa], expiresAt: Date().addingTimeInterval(3600),
            paymentMethods: types.map { AdvertisedPaymentMethod(id: "pm_\($0.rawValue)", type: $0) }).encoded()
        let processor = SandboxProcessor()

        let count = options.scale(20_000, quick: 2_000)
        let (seconds, spread) = try await Measure.repeated(options.repeats) {
            try await Measure.seconds {
                for _ in 0..<count {
                    let session = CheckoutSession(clientToken: token, configuration: configuration, registry: registry,
                                                  processor: processor)
                    await session.start()
                    guard session.phase == .ready, session.paymentMethods.count == 50 else {
                        throw CheckoutError(.invalidState, "benchmark session did not become ready")
                    }
                }
            }
        }
        let perSecond = Double(count) / seconds
        var figures = [Figure(name: "session.start_to_ready_50_methods", value: perSecond, unit: "sessions/s",
                              spread: spread),
                       Figure(name: "session.start_to_ready_latency", value: seconds / Double(count) * 1e6, unit: "µs")]

        // Memory per idle ready session: start N, keep them alive, divide the RSS growth.
        let idle = options.scale(10_000, quick: 2_000)
        let before = Measure.rssBytes
        var sessions: [CheckoutSession] = []
        sessions.reserveCapacity(idle)
        for _ in 0..<idle {
            let session = CheckoutSession(clientToken: token, configuration: configuration, registry: registry,
                                          processor: processor)
            await session.start()
            sessions.append(session)
        }
        let after = Measure.rssBytes
        let perSession = Double(after - before) / Double(idle) / 1024
        figures.append(Figure(name: "session.idle_ready_memory", value: perSession, unit: "KB/session",
                              target: "< 16 KB"))
        withExtendedLifetime(sessions) {}
        return figures
    }
}
