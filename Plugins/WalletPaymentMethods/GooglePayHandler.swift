import CheckoutCore

/// Pays with Google Pay (`GOOGLE_PAY`): builds the `PaymentDataRequest` from the session and
/// `Config/checkout.json`, asks the host's `WalletAuthorizer` to authorise it, and pays with the
/// wallet token through the pipeline.
///
/// Unavailable when the configuration has no `GOOGLE_PAY` entry or lacks `merchantId`,
/// `merchantName`, `gateway` or `gatewayMerchantId`, or when Google Pay supports none of the
/// merchant's allowed card networks.
public struct GooglePayHandler: PaymentMethodHandler {
    /// Always `GOOGLE_PAY`.
    public let type: PaymentMethodType = .googlePay
    /// Default display metadata.
    public let display: PaymentMethodDisplay
    /// The host's bridge to the Google Pay sheet.
    public let authorizer: any WalletAuthorizer

    /// Creates the handler with the host's authorizer (`SandboxWalletAuthorizer` in development).
    public init(authorizer: any WalletAuthorizer,
                display: PaymentMethodDisplay = PaymentMethodDisplay(name: "Google Pay", buttonText: "Pay with Google Pay",
                                                                     backgroundColor: "#000000", textColor: "#ffffff")) {
        self.authorizer = authorizer
        self.display = display
    }

    /// Available when configured and at least one allowed network is supported; else says why.
    public func availability(in context: PaymentMethodContext) -> PaymentMethodAvailability {
        guard let entry = context.configuration else {
            return .unavailable(reason: "Google Pay is not configured (no GOOGLE_PAY entry in the checkout configuration)")
        }
        do {
            _ = try GooglePayConfiguration(options: entry.options)
                .paymentRequest(for: context.session, surcharge: context.advertised.options.surcharge ?? 0)
            return .available
        } catch {
            return .unavailable(reason: (error as? CheckoutError)?.message ?? "Google Pay cannot be offered")
        }
    }

    /// The steps of a wallet payment that builds the Google Pay request when submitted.
    public func makeSteps(context: PaymentFlowContext) -> WalletPaymentSteps {
        WalletPaymentSteps(context: context, authorizer: authorizer) { context in
            guard let entry = context.configuration else {
                throw CheckoutError(.invalidConfiguration, "Google Pay is not configured")
            }
            return .googlePay(try GooglePayConfiguration(options: entry.options)
                .paymentRequest(for: context.session, surcharge: context.advertised.options.surcharge ?? 0))
        }
    }
}
