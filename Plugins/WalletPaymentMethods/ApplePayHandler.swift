import CheckoutCore

/// Pays with Apple Pay (`APPLE_PAY`): builds the PKPaymentRequest-shaped request from the
/// session and `Config/checkout.json`, asks the host's `WalletAuthorizer` to authorise it, and
/// pays with the wallet token through the pipeline.
///
/// Unavailable when the configuration has no `APPLE_PAY` entry or lacks `merchantIdentifier` /
/// `merchantName`, or when Apple Pay supports none of the merchant's allowed card networks.
public struct ApplePayHandler: PaymentMethodHandler {
    /// Always `APPLE_PAY`.
    public let type: PaymentMethodType = .applePay
    /// Default display metadata.
    public let display: PaymentMethodDisplay
    /// The host's bridge to the Apple Pay sheet.
    public let authorizer: any WalletAuthorizer

    /// Creates the handler with the host's authorizer (`SandboxWalletAuthorizer` in development).
    public init(authorizer: any WalletAuthorizer,
                display: PaymentMethodDisplay = PaymentMethodDisplay(name: "Apple Pay", buttonText: "Pay with Apple Pay",
                                                                     backgroundColor: "#000000", textColor: "#ffffff")) {
        self.authorizer = authorizer
        self.display = display
    }

    /// Available when configured and at least one allowed network is supported; else says why.
    public func availability(in context: PaymentMethodContext) -> PaymentMethodAvailability {
        guard let entry = context.configuration else {
            return .unavailable(reason: "Apple Pay is not configured (no APPLE_PAY entry in the checkout configuration)")
        }
        do {
            _ = try ApplePayConfiguration(options: entry.options)
                .paymentRequest(for: context.session, surcharge: context.advertised.options.surcharge ?? 0)
            return .available
        } catch {
            return .unavailable(reason: (error as? CheckoutError)?.message ?? "Apple Pay cannot be offered")
        }
    }

    /// The steps of a wallet payment that builds the Apple Pay request when submitted.
    public func makeSteps(context: PaymentFlowContext) -> WalletPaymentSteps {
        WalletPaymentSteps(context: context, authorizer: authorizer) { context in
            guard let entry = context.configuration else {
                throw CheckoutError(.invalidConfiguration, "Apple Pay is not configured")
            }
            return .applePay(try ApplePayConfiguration(options: entry.options)
                .paymentRequest(for: context.session, surcharge: context.advertised.options.surcharge ?? 0))
        }
    }
}
