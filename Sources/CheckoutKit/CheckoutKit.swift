@_exported import CardPaymentMethod
@_exported import HTTPTransport
@_exported import CheckoutCore
@_exported import CheckoutTheme
@_exported import CheckoutVault
@_exported import RedirectPaymentMethod
@_exported import VaultedPaymentMethod
@_exported import WalletPaymentMethods
import Foundation

/// The umbrella of CheckoutKit: one import for hosts that want every built-in module, and the
/// wiring of the built-in payment methods into a registry.
public enum CheckoutKit {
    /// A registry with every built-in payment method: card, the shared redirect handler (for the
    /// configuration entries that say `"handler": "redirect"`), Apple Pay, Google Pay and saved
    /// (vaulted) methods. A new instance on every call: registries are never global.
    ///
    /// - Parameters:
    ///   - cardNetworks: the network table (`Config/card-networks.json`).
    ///   - binLookup: the co-badge lookup, usually the processor.
    ///   - walletAuthorizer: presents the wallet sheet; the sandbox one approves deterministically.
    ///   - redirectPolling: how long redirect methods poll for a result when the shopper does not return.
    ///   - now: the clock for card expiry checks.
    public static func standardRegistry(
        cardNetworks: CardNetworkTable, binLookup: (any BinLookup)?,
        walletAuthorizer: any WalletAuthorizer = SandboxWalletAuthorizer(),
        redirectPolling: RedirectPollingPolicy = .standard,
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws -> PaymentMethodRegistry {
        let registry = PaymentMethodRegistry()
        try registry.register(CardPaymentHandler(table: cardNetworks, binLookup: binLookup, now: now))
        try RedirectPaymentHandler.registerFactory(in: registry, polling: redirectPolling)
        try registry.register(ApplePayHandler(authorizer: walletAuthorizer))
        try registry.register(GooglePayHandler(authorizer: walletAuthorizer))
        try registry.register(VaultedPaymentHandler())
        return registry
    }

    /// Mints a sandbox client token advertising every method of `configuration`, the way a
    /// merchant backend would after creating a client session. Card gets per-network surcharges
    /// (AMEX +1.50) and CVV recapture for saved cards; PayPal a flat surcharge of 1.00.
    public static func sandboxClientToken(
        configuration: CheckoutConfiguration, merchantId: String = "merchant_a",
        customerId: String = "customer_demo", amount: Int = 4999, currency: String = "EUR",
        country: String = "NL",
        allowedCardNetworks: [CardNetwork] = [.visa, .mastercard, .amex, .cartesBancaires, .maestro],
        lifetime: TimeInterval = 3600, now: Date = Date(), vault: VaultAccess? = nil
    ) -> ClientToken {
        let methods = configuration.paymentMethods.map { entry -> AdvertisedPaymentMethod in
            var options = AdvertisedOptions()
            switch entry.type {
            case .paymentCard:
                options.networkSurcharges = ["AMEX": 150]
                options.surcharge = 0
                options.captureVaultedCardCvv = true
                options.vaultOnSuccess = true
            case .payPal:
                options.surcharge = 100
            default:
                break
            }
            return AdvertisedPaymentMethod(id: "pm_" + entry.type.rawValue.lowercased(), type: entry.type, options: options)
        }
        return ClientToken(merchantId: merchantId, customerId: customerId, amount: amount, currency: currency,
                           country: country, allowedCardNetworks: allowedCardNetworks,
                           expiresAt: now.addingTimeInterval(lifetime), paymentMethods: methods, vault: vault)
    }
}
