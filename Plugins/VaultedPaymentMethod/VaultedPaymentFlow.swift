import CheckoutCore
import Synchronization

/// One payment with a saved instrument.
///
/// States: `idle -> processing -> succeeded | failed`, or `processing -> awaitingChallenge(id)`
/// when the issuer wants 3-D Secure (`resume(with: .challengeResult(...))` then finishes it),
/// and `cancelled` from anywhere but `succeeded`. A CVV that is required but missing or of the
/// wrong length fails the attempt before the processor is called (no outcome is reported for
/// such an input error). `submit()` after `failed` or `cancelled` starts a new attempt.
public final class VaultedPaymentFlow: PaymentFlow {
    private struct Challenge: Sendable {
        var paymentId: String
        var token: PaymentMethodToken
        var resuming = false
    }

    private struct Internal: Sendable {
        var state = PaymentFlowState.idle
        var attempt = 0
        var challenge: Challenge?
    }

    /// Always `VAULTED`.
    public let paymentMethodType: PaymentMethodType
    private let context: PaymentFlowContext
    private let storage = Mutex(Internal())
    private let broadcaster = StateBroadcaster(PaymentFlowState.idle)

    init(context: PaymentFlowContext) {
        self.context = context
        paymentMethodType = context.method.type
    }

    /// The saved instrument this flow pays with; nil when the flow was made without one.
    public var vaultedPaymentMethod: VaultedPaymentMethod? {
        if case .vaulted(let method, _) = context.input { return method }
        return nil
    }

    /// Whether this payment sends a recaptured CVV.
    public var requiresCvv: Bool {
        vaultedPaymentMethod.map { VaultedPaymentHandler.requiresCvv(for: $0, in: context.session) } ?? false
    }

    // MARK: PaymentFlow

    /// The current state.
    public var state: PaymentFlowState { storage.withLock { $0.state } }

    /// The current state, then every change.
    public func states() -> AsyncStream<PaymentFlowState> { broadcaster.stream() }

    /// Pays with the saved instrument. Ignored, returning the current state, while an attempt is
    /// in progress or after success.
    @discardableResult
    public func submit() async -> PaymentFlowState {
        let attempt: Int? = storage.withLock { current in
            switch current.state {
            case .processing, .awaitingRedirect, .awaitingChallenge, .succeeded:
                return nil
            case .idle, .failed, .cancelled:
                current.attempt += 1
                current.challenge = nil
                transition(&current, to: .processing)
                return current.attempt
            }
        }
        guard let attempt else { return state }
        guard case .vaulted(let method, let cvv) = context.input else {
            return apply(.failed(CheckoutError(.invalidState, "a vaulted payment needs a saved payment method")),
                         attempt: attempt, token: nil)
        }
        let requiresCvv = VaultedPaymentHandler.requiresCvv(for: method, in: context.session)
        if requiresCvv {
            do {
                try VaultedPaymentHandler.validate(cvv: cvv, for: method)
            } catch {
                let failure = error as? CheckoutError ?? CheckoutError(.invalidPaymentData, "invalid security code")
                return apply(.failed(failure), attempt: attempt, token: nil)
            }
        }
        let token: PaymentMethodToken
        do {
            let request = VaultedExchangeRequest(vaultedToken: method.id, cvv: requiresCvv ? cvv : nil)
            token = try await context.processor.exchangeVaulted(request, session: context.session)
        } catch {
            guard isCurrent(attempt) else { return state }
            let failure = error as? CheckoutError
                ?? CheckoutError(.paymentFailed, "the saved payment method could not be used", underlying: error)
            return apply(context.pipeline.fail(failure), attempt: attempt, token: nil)
        }
        guard isCurrent(attempt) else { return state }
        let surcharge = context.advertised.options.surcharge(for: method.paymentInstrumentData.network) ?? 0
        var step = await context.pipeline.createPayment(token: token, surcharge: surcharge)
        if case .actionRequired(_, .redirect) = step {
            step = context.pipeline.fail(CheckoutError(.paymentFailed, "a saved payment method cannot follow a redirect"))
        }
        return apply(step, attempt: attempt, token: token)
    }

    /// Finishes a 3-D Secure challenge with its result.
    /// - Throws: `CheckoutError` `.invalidReturn` when no challenge is pending or the input is a
    ///   return URL; nothing changes then.
    @discardableResult
    public func resume(with input: PaymentResumeInput) async throws -> PaymentFlowState {
        guard case .challengeResult(let result) = input else {
            throw CheckoutError(.invalidReturn, "a saved payment method resumes with a challenge result")
        }
        let claimed: (Int, Challenge) = try storage.withLock { current in
            guard case .awaitingChallenge = current.state, var challenge = current.challenge, !challenge.resuming else {
                throw CheckoutError(.invalidReturn, "no challenge is waiting for a result")
            }
            challenge.resuming = true
            current.challenge = challenge
            return (current.attempt, challenge)
        }
        let step = await context.pipeline.resume(paymentId: claimed.1.paymentId, resumeToken: result,
                                                 token: claimed.1.token)
        return apply(step, attempt: claimed.0, token: claimed.1.token)
    }

    /// Cancels the flow (no outcome is delivered). No-op after success.
    public func cancel() async {
        storage.withLock { current in
            switch current.state {
            case .succeeded, .cancelled:
                return
            default:
                current.attempt += 1
                current.challenge = nil
                transition(&current, to: .cancelled)
            }
        }
    }

    // MARK: State

    private func isCurrent(_ attempt: Int) -> Bool { storage.withLock { $0.attempt == attempt } }

    private func apply(_ step: PaymentPipeline.Step, attempt: Int, token: PaymentMethodToken?) -> PaymentFlowState {
        storage.withLock { current in
            guard current.attempt == attempt, current.state != .cancelled else { return current.state }
            switch step {
            case .succeeded(let result):
                current.challenge = nil
                transition(&current, to: .succeeded(result))
            case .failed(let error):
                current.challenge = nil
                transition(&current, to: .failed(error))
            case .actionRequired(let paymentId, .challenge(let challengeId)):
                if let token {
                    current.challenge = Challenge(paymentId: paymentId, token: token)
                    transition(&current, to: .awaitingChallenge(challengeId: challengeId))
                }
            case .actionRequired:
                break
            }
            return current.state
        }
    }

    private func transition(_ current: inout Internal, to state: PaymentFlowState) {
        guard current.state != state else { return }
        current.state = state
        broadcaster.send(state)
    }
}
