import CheckoutCore

/// One payment with a wallet (Apple Pay or Google Pay).
///
/// States: `idle -> processing -> succeeded | failed`; `processing -> cancelled` when the
/// shopper closes the wallet sheet (the authorizer throws `.cancelled`; no outcome is delivered);
/// `processing -> awaitingChallenge(id)` when the issuer asks for 3-D Secure. `submit()` after
/// `failed` or `cancelled` starts a new attempt with a freshly built request.
public final class WalletPaymentFlow: PaymentFlow {
    typealias RequestBuilder = @Sendable (PaymentFlowContext) throws -> WalletPaymentRequest

    /// `APPLE_PAY` or `GOOGLE_PAY`.
    public let paymentMethodType: PaymentMethodType
    private let context: PaymentFlowContext
    private let authorizer: any WalletAuthorizer
    private let buildRequest: RequestBuilder
    /// Its extra data is the request of the current or last attempt.
    private let machine = PaymentFlowMachine<WalletPaymentRequest?>(extra: nil)

    init(context: PaymentFlowContext, authorizer: any WalletAuthorizer, buildRequest: @escaping RequestBuilder) {
        self.context = context
        paymentMethodType = context.method.type
        self.authorizer = authorizer
        self.buildRequest = buildRequest
    }

    /// The request handed to the wallet in the current or last attempt.
    public var paymentRequest: WalletPaymentRequest? { machine.withCurrent { $0.extra } }

    // MARK: PaymentFlow

    /// The current state.
    public var flowState: PaymentFlowState { machine.state }

    /// The current state, then every change.
    public func flowStates() -> AsyncStream<PaymentFlowState> { machine.states() }

    /// Builds the request, has the wallet authorise it and pays with the wallet token. Ignored,
    /// returning the current state, while an attempt is in progress or after success.
    @discardableResult
    public func submit() async -> PaymentFlowState {
        guard let attempt = machine.beginAttempt(resetting: { $0 = nil }) else { return flowState }
        let request: WalletPaymentRequest
        do {
            request = try buildRequest(context)
        } catch {
            let failure = error as? CheckoutError
                ?? CheckoutError(.invalidConfiguration, "the wallet request could not be built", underlying: error)
            return machine.apply(context.pipeline.fail(failure), attempt: attempt, token: nil)
        }
        machine.withCurrent { current in if current.attempt == attempt { current.extra = request } }
        let authorization: WalletAuthorization
        do {
            authorization = try await authorizer.authorize(request)
        } catch {
            if error is CancellationError || (error as? CheckoutError)?.code == .cancelled {
                return machine.cancel(attempt)
            }
            let failure = error as? CheckoutError
                ?? CheckoutError(.paymentFailed, "the wallet did not authorise the payment", underlying: error)
            return machine.fail(failure, attempt: attempt, through: context.pipeline)
        }
        guard machine.isCurrent(attempt) else { return flowState }
        return await machine.pay(attempt, surcharge: context.advertised.options.surcharge ?? 0, through: context.pipeline,
                                 tokenizeFailure: "the wallet token could not be tokenized",
                                 unsupported: { action in
                                     guard case .redirect = action else { return nil }
                                     return "a wallet payment cannot follow a redirect"
                                 }) {
            try await context.processor.tokenize(.wallet(paymentMethodType, walletToken: authorization.token),
                                                 session: context.session)
        }
    }

    /// Finishes a 3-D Secure challenge with its result.
    /// - Throws: `CheckoutError` `.invalidReturn` when no challenge is pending or the input is a
    ///   return URL; nothing changes then.
    @discardableResult
    public func resume(with input: PaymentResumeInput) async throws -> PaymentFlowState {
        try await machine.resumeChallenge(with: input, through: context.pipeline,
                                          wrongInput: "a wallet payment resumes with a challenge result")
    }

    /// Cancels the flow (no outcome is delivered). No-op after success.
    public func cancel() async {
        machine.cancel()
    }
}
