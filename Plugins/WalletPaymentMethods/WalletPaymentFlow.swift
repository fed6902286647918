import CheckoutCore
import Synchronization

/// One payment with a wallet (Apple Pay or Google Pay).
///
/// States: `idle -> processing -> succeeded | failed`; `processing -> cancelled` when the
/// shopper closes the wallet sheet (the authorizer throws `.cancelled`; no outcome is delivered);
/// `processing -> awaitingChallenge(id)` when the issuer asks for 3-D Secure. `submit()` after
/// `failed` or `cancelled` starts a new attempt with a freshly built request.
public final class WalletPaymentFlow: PaymentFlow {
    typealias RequestBuilder = @Sendable (PaymentFlowContext) throws -> WalletPaymentRequest

    private struct Challenge: Sendable {
        var paymentId: String
        var token: PaymentMethodToken
        var resuming = false
    }

    private struct Internal: Sendable {
        var state = PaymentFlowState.idle
        var attempt = 0
        var request: WalletPaymentRequest?
        var challenge: Challenge?
    }

    /// `APPLE_PAY` or `GOOGLE_PAY`.
    public let paymentMethodType: PaymentMethodType
    private let context: PaymentFlowContext
    private let authorizer: any WalletAuthorizer
    private let buildRequest: RequestBuilder
    private let storage = Mutex(Internal())
    private let broadcaster = StateBroadcaster(PaymentFlowState.idle)

    init(context: PaymentFlowContext, authorizer: any WalletAuthorizer, buildRequest: @escaping RequestBuilder) {
        self.context = context
        paymentMethodType = context.method.type
        self.authorizer = authorizer
        self.buildRequest = buildRequest
    }

    /// The request handed to the wallet in the current or last attempt.
    public var paymentRequest: WalletPaymentRequest? { storage.withLock { $0.request } }

    // MARK: PaymentFlow

    /// The current state.
    public var state: PaymentFlowState { storage.withLock { $0.state } }

    /// The current state, then every change.
    public func states() -> AsyncStream<PaymentFlowState> { broadcaster.stream() }

    /// Builds the request, has the wallet authorise it and pays with the wallet token. Ignored,
    /// returning the current state, while an attempt is in progress or after success.
    @discardableResult
    public func submit() async -> PaymentFlowState {
        let attempt: Int? = storage.withLock { current in
            switch current.state {
            case .processing, .awaitingRedirect, .awaitingChallenge, .succeeded:
                return nil
            case .idle, .failed, .cancelled:
                current.attempt += 1
                current.challenge = nil
                current.request = nil
                transition(&current, to: .processing)
                return current.attempt
            }
        }
        guard let attempt else { return state }
        let request: WalletPaymentRequest
        do {
            request = try buildRequest(context)
        } catch {
            let failure = error as? CheckoutError
                ?? CheckoutError(.invalidConfiguration, "the wallet request could not be built", underlying: error)
            return apply(context.pipeline.fail(failure), attempt: attempt, token: nil)
        }
        storage.withLock { current in if current.attempt == attempt { current.request = request } }
        let authorization: WalletAuthorization
        do {
            authorization = try await authorizer.authorize(request)
        } catch {
            guard isCurrent(attempt) else { return state }
            if error is CancellationError || (error as? CheckoutError)?.code == .cancelled {
                return cancelAttempt(attempt)
            }
            let failure = error as? CheckoutError
                ?? CheckoutError(.paymentFailed, "the wallet did not authorise the payment", underlying: error)
            return apply(context.pipeline.fail(failure), attempt: attempt, token: nil)
        }
        guard isCurrent(attempt) else { return state }
        let token: PaymentMethodToken
        do {
            token = try await context.processor.tokenize(
                .wallet(paymentMethodType, walletToken: authorization.token), session: context.session)
        } catch {
            guard isCurrent(attempt) else { return state }
            let failure = error as? CheckoutError
                ?? CheckoutError(.paymentFailed, "the wallet token could not be tokenized", underlying: error)
            return apply(context.pipeline.fail(failure), attempt: attempt, token: nil)
        }
        guard isCurrent(attempt) else { return state }
        var step = await context.pipeline.createPayment(token: token, surcharge: context.advertised.options.surcharge ?? 0)
        if case .actionRequired(_, .redirect) = step {
            step = context.pipeline.fail(CheckoutError(.paymentFailed, "a wallet payment cannot follow a redirect"))
        }
        return apply(step, attempt: attempt, token: token)
    }

    /// Finishes a 3-D Secure challenge with its result.
    /// - Throws: `CheckoutError` `.invalidReturn` when no challenge is pending or the input is a
    ///   return URL; nothing changes then.
    @discardableResult
    public func resume(with input: PaymentResumeInput) async throws -> PaymentFlowState {
        guard case .challengeResult(let result) = input else {
            throw CheckoutError(.invalidReturn, "a wallet payment resumes with a challenge result")
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

    private func cancelAttempt(_ attempt: Int) -> PaymentFlowState {
        storage.withLock { current in
            guard current.attempt == attempt else { return current.state }
            current.attempt += 1
            transition(&current, to: .cancelled)
            return current.state
        }
    }

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
