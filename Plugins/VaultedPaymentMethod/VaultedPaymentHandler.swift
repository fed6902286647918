import CheckoutCore

/// Pays with a customer's saved instrument (`VAULTED`): exchanges the vault token (and the
/// recaptured CVV, when the session asks for one) for a payment token, then runs the pipeline.
///
/// Flows are created with `PaymentFlowInput.vaulted(method, cvv:)`; `SelectionSession.submitVaulted()`
/// and `CheckoutSession.vaultedFlow(for:cvv:)` do that. CVV recapture applies only when the
/// client session advertises `captureVaultedCardCvv` and only to card instruments; the code's
/// length comes from the card network (4 for AMEX, 3 otherwise).
public struct VaultedPaymentHandler: PaymentMethodHandler {
    /// Always `VAULTED`.
    public let type: PaymentMethodType = .vaulted
    /// Default display metadata.
    public let display = PaymentMethodDisplay(name: "Saved payment method", buttonText: "Pay")

    /// Creates the handler.
    public init() {}

    /// The steps of a payment with the saved instrument in `context.input`.
    public func makeSteps(context: PaymentFlowContext) -> VaultedPaymentSteps {
        VaultedPaymentSteps(context: context)
    }

    /// Whether paying with `method` in `session` needs the card's CVV again: the session
    /// advertises `captureVaultedCardCvv` on any method and the instrument is a card.
    public static func requiresCvv(for method: VaultedPaymentMethod, in session: ClientSession) -> Bool {
        method.isCard && session.paymentMethods.contains { $0.options.captureVaultedCardCvv == true }
    }

    /// The security-code length of a saved card: its network's (4 for AMEX, 3 otherwise and when
    /// the network is unknown).
    public static func securityCodeLength(for method: VaultedPaymentMethod) -> Int {
        method.paymentInstrumentData.network?.securityCodeLength ?? 3
    }

    /// Checks a recaptured CVV for `method`: present, digits only, exactly the network's length.
    /// - Throws: `CheckoutError` `.invalidPaymentData`; the message never contains the code.
    public static func validate(cvv: SecurityCode?, for method: VaultedPaymentMethod) throws {
        let expected = securityCodeLength(for: method)
        guard let digits = cvv?.digits, !digits.isEmpty else {
            throw CheckoutError(.invalidPaymentData, "the card's security code is required")
        }
        guard digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
            throw CheckoutError(.invalidPaymentData, "the security code may contain digits only")
        }
        guard digits.utf8.count == expected else {
            throw CheckoutError(.invalidPaymentData, "the security code must be \(expected) digits")
        }
    }
}
