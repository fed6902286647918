import CheckoutCore

/// One payment with a saved instrument.
///
/// States: `idle -> processing -> succeeded | failed`, or `processing -> awaitingChallenge(id)`
/// when the issuer wants 3-D Secure (`resume(with: .challengeResult(...))` then finishes it),
/// and `cancelled` from anywhere but `succeeded`. A CVV that is required but missing or of the
/// wrong length fails the attempt before the processor is called (no outcome is reported for
/// such an input error). `submit()` after `failed` or `cancelled` starts a new attempt.
public final class VaultedPaymentFlow: PaymentFlow {
    /// Always `VAULTED`.
    public let paymentMethodType: PaymentMethodType
    private let context: PaymentFlowContext
    private let machine = PaymentFlowMachine()

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
    public var flowState: PaymentFlowState { machine.state }

    /// The current state, then every change.
    public func flowStates() -> AsyncStream<PaymentFlowState> { machine.states() }

    /// Pays with the saved instrument. Ignored, returning the current state, while an attempt is
    /// in progress or after success.
    @discardableResult
    public func submit() async -> PaymentFlowState {
        guard let attempt = machine.beginAttempt() else { return flowState }
        guard case .vaulted(let method, let cvv) = context.input else {
            return machine.apply(.failed(CheckoutError(.invalidState, "a vaulted payment needs a saved payment method")),
                                 attempt: attempt, token: nil)
        }
        let requiresCvv = VaultedPaymentHandler.requiresCvv(for: method, in: context.session)
        if requiresCvv {
            do {
                try VaultedPaymentHandler.validate(cvv: cvv, for: method)
            } catch {
                let failure = error as? CheckoutError ?? CheckoutError(.invalidPaymentData, "invalid security code")
                return machine.apply(.failed(failure), attempt: attempt, token: nil)
            }
        }
        let surcharge = context.advertised.options.surcharge(for: method.paymentInstrumentData.network) ?? 0
        let request = VaultedExchangeRequest(vaultedToken: method.id, cvv: requiresCvv ? cvv : nil)
        return await machine.pay(attempt, surcharge: surcharge, through: context.pipeline,
                                 tokenizeFailure: "the saved payment method could not be used",
                                 unsupported: { action in
                                     guard case .redirect = action else { return nil }
                                     return "a saved payment method cannot follow a redirect"
                                 }) {
            try await context.processor.exchangeVaulted(request, session: context.session)
        }
    }

    /// Finishes a 3-D Secure challenge with its result.
    /// - Throws: `CheckoutError` `.invalidReturn` when no challenge is pending or the input is a
    ///   return URL; nothing changes then.
    @discardableResult
    public func resume(with input: PaymentResumeInput) async throws -> PaymentFlowState {
        try await machine.resumeChallenge(with: input, through: context.pipeline,
                                          wrongInput: "a saved payment method resumes with a challenge result")
    }

    /// Cancels the flow (no outcome is delivered). No-op after success.
    public func cancel() async {
        machine.cancel()
    }
}
