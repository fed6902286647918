import CheckoutCore
import CheckoutLocking
import Foundation

/// A minimal handler defined only in the tests: tokenizes a card number the test chooses (the
/// sandbox's magic numbers decide the outcome) and pays through the core pipeline.
struct TestHandler: PaymentMethodHandler {
    let type: PaymentMethodType
    let cardNumber: @Sendable () -> String
    var availabilityResult: PaymentMethodAvailability = .available

    var display: PaymentMethodDisplay {
        PaymentMethodDisplay(name: Self.names[type] ?? type.rawValue, buttonText: "Pay with \(type.rawValue)")
    }

    static let names: [PaymentMethodType: String] = [
        .paymentCard: "Card", .payPal: "PayPal", .adyenIdeal: "iDEAL", .klarna: "Klarna", .vaulted: "Saved card",
    ]

    func availability(in context: PaymentMethodContext) -> PaymentMethodAvailability { availabilityResult }

    func makeFlow(context: PaymentFlowContext) -> any PaymentFlow {
        TestFlow(context: context, cardNumber: cardNumber)
    }
}

/// The flow of `TestHandler`. `reportTwice` makes it push the same success through the pipeline
/// twice, the way a misbehaving processor integration might.
final class TestFlow: PaymentFlow {
    let context: PaymentFlowContext
    let cardNumber: @Sendable () -> String
    private let broadcaster = StateBroadcaster(PaymentFlowState.idle)
    let reportTwice = Locked(false)
    /// The last payment token this flow paid with (for tests that continue a payment by hand).
    let lastToken = Locked<PaymentMethodToken?>(nil)

    init(context: PaymentFlowContext, cardNumber: @escaping @Sendable () -> String) {
        self.context = context
        self.cardNumber = cardNumber
    }

    var paymentMethodType: PaymentMethodType { context.method.type }
    var flowState: PaymentFlowState { broadcaster.value }
    func flowStates() -> AsyncStream<PaymentFlowState> { broadcaster.stream() }

    func submit() async -> PaymentFlowState {
        broadcaster.send(.processing)
        let request: TokenizationRequest
        if case .vaulted(let method, let cvv) = context.input {
            do {
                let token = try await context.processor.exchangeVaulted(
                    VaultedExchangeRequest(vaultedToken: method.id, cvv: cvv), session: context.session)
                return await pay(token)
            } catch {
                return finish(context.pipeline.fail(error as? CheckoutError ?? CheckoutError(.paymentFailed, "x")))
            }
        }
        request = .card(CardDetails(number: cardNumber(), cvv: "123", expiryMonth: 12, expiryYear: 2030, network: .visa))
        do {
            let token = try await context.processor.tokenize(request, session: context.session)
            return await pay(token)
        } catch {
            return finish(context.pipeline.fail(error as? CheckoutError ?? CheckoutError(.paymentFailed, "x")))
        }
    }

    private func pay(_ token: PaymentMethodToken) async -> PaymentFlowState {
        lastToken.withLock { $0 = token }
        let step = await context.pipeline.createPayment(token: token, vaultOnSuccess: true)
        if reportTwice.withLock({ $0 }), case .succeeded = step {
            // Same payment again: the sandbox answers from its idempotency record or fails; either
            // way the session must not deliver a second success.
            _ = await context.pipeline.createPayment(token: token)
        }
        return finish(step)
    }

    private func finish(_ step: PaymentPipeline.Step) -> PaymentFlowState {
        let state: PaymentFlowState = switch step {
        case .succeeded(let result): .succeeded(result)
        case .failed(let error): .failed(error)
        case .actionRequired(_, .challenge(let id)): .awaitingChallenge(challengeId: id)
        case .actionRequired(_, .redirect(let url, _)): .awaitingRedirect(url)
        }
        broadcaster.send(state)
        return state
    }

    func cancel() async { broadcaster.send(.cancelled) }

    func resume(with input: PaymentResumeInput) async throws -> PaymentFlowState {
        throw CheckoutError(.invalidState, "nothing to resume")
    }
}

/// A processor that delegates to the real `SandboxProcessor` but counts and can hold or fail
/// client-session fetches, for lifecycle tests.
final class ControlledProcessor: PaymentProcessor {
    let sandbox = SandboxProcessor()
    let clientSessionCalls = Counter()
    private let gate = Locked<[CheckedContinuation<Void, Never>]>([])
    private let holding = Locked(false)
    private let failing = Locked<CheckoutError?>(nil)
    private let methodsOverride = Locked<[AdvertisedPaymentMethod]?>(nil)

    func hold() { holding.withLock { $0 = true } }
    func release() {
        // The flag changes under the gate's lock, so a call that saw it set is always parked by then.
        let waiting = gate.withLock { gate in
            holding.withLock { $0 = false }
            defer { gate.removeAll() }
            return gate
        }
        for continuation in waiting { continuation.resume() }
    }
    var waitingCount: Int { gate.withLock { $0.count } }
    func failClientSession(with error: CheckoutError?) { failing.withLock { $0 = error } }
    func advertise(_ methods: [AdvertisedPaymentMethod]?) { methodsOverride.withLock { $0 = methods } }

    func clientSession(for token: ClientToken) async throws -> ClientSession {
        _ = clientSessionCalls.increment()
        if holding.withLock({ $0 }) {
            await withCheckedContinuation { continuation in
                // Checked again under the gate's lock: a release in between must not be missed.
                let parked = gate.withLock { gate -> Bool in
                    guard holding.withLock({ $0 }) else { return false }
                    gate.append(continuation)
                    return true
                }
                if !parked { continuation.resume() }
            }
        }
        if let error = failing.withLock({ $0 }) { throw error }
        var session = try await sandbox.clientSession(for: token)
        if let methods = methodsOverride.withLock({ $0 }) { session.paymentMethods = methods }
        return session
    }

    func tokenize(_ request: TokenizationRequest, session: ClientSession) async throws -> PaymentMethodToken {
        try await sandbox.tokenize(request, session: session)
    }
    /// The idempotency key of every create-payment call, in order.
    var createKeys: [String?] { keys.withLock { $0 } }
    private let keys = Locked<[String?]>([])

    func createPayment(_ request: CreatePaymentRequest) async throws -> PaymentResponse {
        keys.withLock { $0.append(request.idempotencyKey) }
        return try await sandbox.createPayment(request)
    }
    func resumePayment(paymentId: String, resumeToken: String) async throws -> PaymentResponse {
        try await sandbox.resumePayment(paymentId: paymentId, resumeToken: resumeToken)
    }
    func paymentStatus(paymentId: String) async throws -> PaymentResponse {
        try await sandbox.paymentStatus(paymentId: paymentId)
    }
    func exchangeVaulted(_ request: VaultedExchangeRequest, session: ClientSession) async throws -> PaymentMethodToken {
        try await sandbox.exchangeVaulted(request, session: session)
    }
}
