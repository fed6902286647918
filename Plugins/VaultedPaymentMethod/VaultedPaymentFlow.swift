import CheckoutCore

/// One payment with a saved instrument: the core's `CorePaymentFlow` running `VaultedPaymentSteps`.
///
/// States: `idle -> processing -> succeeded | failed`, or `processing -> awaitingChallenge(id)`
/// when the issuer wants 3-D Secure (`resume(with: .challengeResult(...))` then finishes it),
/// and `cancelled` from anywhere but `succeeded`. A CVV that is required but missing or of the
/// wrong length fails the attempt before the processor is called (no outcome is reported for
/// such an input error). `submit()` after `failed` or `cancelled` starts a new attempt.
public typealias VaultedPaymentFlow = CorePaymentFlow<VaultedPaymentSteps>

extension CorePaymentFlow where Steps == VaultedPaymentSteps {
    /// The saved instrument this flow pays with; nil when the flow was made without one.
    public var vaultedPaymentMethod: VaultedPaymentMethod? { steps.vaultedPaymentMethod }

    /// Whether this payment sends a recaptured CVV.
    public var requiresCvv: Bool {
        vaultedPaymentMethod.map { VaultedPaymentHandler.requiresCvv(for: $0, in: steps.context.session) } ?? false
    }
}

/// The steps of a payment with a saved instrument: check the recaptured CVV when one is required,
/// exchange the vault token for a payment token, pay with the network's surcharge; a challenge is
/// resumed with its result, a redirect is refused.
public struct VaultedPaymentSteps: PaymentSteps {
    let context: PaymentFlowContext

    init(context: PaymentFlowContext) { self.context = context }

    var vaultedPaymentMethod: VaultedPaymentMethod? {
        if case .vaulted(let method, _) = context.input { return method }
        return nil
    }

    /// Checks the CVV, then exchanges the vault token.
    public func tokenize(_ attempt: PaymentStepAttempt) async throws -> PaymentTokenization {
        guard case .vaulted(let method, let cvv) = context.input else {
            return .invalidInput(CheckoutError(.invalidState, "a vaulted payment needs a saved payment method"))
        }
        let requiresCvv = VaultedPaymentHandler.requiresCvv(for: method, in: context.session)
        if requiresCvv {
            do {
                try VaultedPaymentHandler.validate(cvv: cvv, for: method)
            } catch {
                return .invalidInput(error as? CheckoutError ?? CheckoutError(.invalidPaymentData, "invalid security code"))
            }
        }
        let surcharge = context.advertised.options.surcharge(for: method.paymentInstrumentData.network) ?? 0
        let request = VaultedExchangeRequest(vaultedToken: method.id, cvv: requiresCvv ? cvv : nil)
        do {
            return .token(try await context.services.exchangeVaulted(request), surcharge: surcharge)
        } catch {
            throw error as? CheckoutError ?? CheckoutError(.paymentFailed, "the saved payment method could not be used", underlying: error)
        }
    }

    /// Names the payment in the default messages (a redirect is refused, a challenge resumed
    /// with its result).
    public var paymentName: String { "a saved payment method" }
}
