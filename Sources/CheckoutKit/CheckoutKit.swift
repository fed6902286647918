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
    ///   - clock: the wall clock card expiry checks read.
    public static func standardRegistry(
        cardNetworks: CardNetworkTable, binLookup: (any BinLookup)?,
        walletAuthorizer: any WalletAuthorizer = SandboxWalletAuthorizer(),
        redirectPolling: RedirectPollingPolicy = .standard,
        clock: WallClock = .system
    ) throws -> PaymentMethodRegistry {
        let registry = PaymentMethodRegistry()
        try registry.register(CardPaymentHandler(table: cardNetworks, binLookup: binLookup, clock: clock))
        try RedirectPaymentHandler.registerFactory(in: registry, polling: redirectPolling)
        try registry.register(ApplePayHandler(authorizer: walletAuthorizer))
        try registry.register(GooglePayHandler(authorizer: walletAuthorizer))
        try registry.register(VaultedPaymentHandler())
        return registry
    }

    /// Mints a sandbox client token advertising every method of `configuration`, the way a
    /// merchant backend would after creating a client session. Card gets per-network surcharges
    /// (`SandboxSurcharges`: AMEX +1.50) and CVV recapture for saved cards; PayPal a flat
    /// surcharge (1.00). `order`
    /// puts an order id, line items, customer details and fees into the token (read back as
    /// `ClientSession.lineItems`, `.customer`, `.fees`, `.orderId`); `demoOrder(amount:)` is one.
    public static func sandboxClientToken(
        configuration: CheckoutConfiguration, merchantId: String = "merchant_a",
        customerId: String = "customer_demo", amount: Int = 4999, currency: String = "EUR",
        country: String = "NL",
        allowedCardNetworks: [CardNetwork] = [.visa, .mastercard, .amex, .cartesBancaires, .maestro],
        lifetime: TimeInterval = 3600, now: Date = WallClock.system.now, vault: VaultAccess? = nil,
        order: OrderDetails = OrderDetails()
    ) -> ClientToken {
        let methods = configuration.paymentMethods.map { entry -> AdvertisedPaymentMethod in
            var options = AdvertisedOptions()
            switch entry.type {
            case .paymentCard:
                options.networkSurcharges = SandboxSurcharges.cardNetworks
                options.surcharge = 0
                options.captureVaultedCardCvv = true
                options.vaultOnSuccess = true
            case .payPal:
                options.surcharge = SandboxSurcharges.payPal
            default:
                break
            }
            return AdvertisedPaymentMethod(id: "pm_" + entry.type.rawValue.lowercased(), type: entry.type, options: options)
        }
        var token = ClientToken(merchantId: merchantId, customerId: customerId, amount: amount, currency: currency,
                                country: country, allowedCardNetworks: allowedCardNetworks,
                                expiresAt: now.addingTimeInterval(lifetime), paymentMethods: methods, vault: vault)
        token.order = order
        return token
    }

    /// A demo order for `amount`: one line item worth the amount less a 4.95 shipping fee (when
    /// the amount allows it), that fee, and a demo customer.
    public static func demoOrder(amount: Int, orderId: String = "order_demo") -> OrderDetails {
        let shipping = amount >= 495 ? 495 : 0
        return OrderDetails(
            orderId: orderId,
            lineItems: [LineItem(itemId: "sku_demo", description: "Demo item", amount: amount - shipping, quantity: 1)],
            customer: CustomerDetails(emailAddress: "shopper@example.com", firstName: "Demo", lastName: "Shopper"),
            fees: shipping > 0 ? [OrderFee(type: "SHIPPING", amount: shipping)] : [])
    }
}
