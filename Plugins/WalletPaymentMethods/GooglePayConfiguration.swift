import CheckoutCore

/// The merchant's Google Pay settings, from the `GOOGLE_PAY` entry of `Config/checkout.json`.
///
/// ```json
/// { "type": "GOOGLE_PAY", "options": { "merchantId": "BCR2DN4T...", "merchantName": "Example Shop",
///   "gateway": "checkoutkit", "gatewayMerchantId": "merchant_a" } }
/// ```
/// `merchantIdentifier` is accepted as another name for `merchantId` (not both). `lineItems` as
/// for Apple Pay become the transaction's `displayItems`.
public struct GooglePayConfiguration: Sendable, Equatable {
    /// The Google merchant identifier.
    public var merchantId: String
    /// The name shown to the shopper.
    public var merchantName: String
    /// The gateway's identifier at Google.
    public var gateway: String
    /// The merchant's identifier at the gateway.
    public var gatewayMerchantId: String
    /// Summary lines.
    public var lineItems: [WalletLineItem]

    /// Creates a configuration.
    public init(merchantId: String, merchantName: String, gateway: String, gatewayMerchantId: String,
                lineItems: [WalletLineItem] = []) {
        self.merchantId = merchantId
        self.merchantName = merchantName
        self.gateway = gateway
        self.gatewayMerchantId = gatewayMerchantId
        self.lineItems = lineItems
    }

    /// Reads the options of a configuration entry.
    /// - Throws: `CheckoutError` `.invalidConfiguration` naming the missing or malformed option.
    public init(options: [String: JSONValue]) throws {
        switch (options["merchantId"], options["merchantIdentifier"]) {
        case (.some, .some):
            throw CheckoutError(.invalidConfiguration, "give options.merchantId or options.merchantIdentifier, not both")
        case (nil, .some):
            merchantId = try WalletOptions.requiredString(options, "merchantIdentifier")
        default:
            merchantId = try WalletOptions.requiredString(options, "merchantId")
        }
        merchantName = try WalletOptions.requiredString(options, "merchantName")
        gateway = try WalletOptions.requiredString(options, "gateway")
        gatewayMerchantId = try WalletOptions.requiredString(options, "gatewayMerchantId")
        lineItems = try WalletLineItem.parse(options["lineItems"])
    }

    /// The request for a session: its country, currency and allowed networks, the order amount
    /// plus `surcharge` as the final total.
    /// - Throws: `.paymentMethodUnavailable` when Google Pay supports none of the allowed networks.
    public func paymentRequest(for session: ClientSession, surcharge: Int = 0) throws -> GooglePayPaymentDataRequest {
        let token = session.token
        let currency = try token.currencyValue
        let networks = WalletNetworks.googlePayNames(for: token.allowedCardNetworks)
        guard !networks.isEmpty else {
            throw CheckoutError(.paymentMethodUnavailable, "Google Pay supports none of the merchant's card networks ("
                                + token.allowedCardNetworks.map(\.rawValue).joined(separator: ", ") + ")")
        }
        var items = lineItems.map {
            GooglePayPaymentDataRequest.DisplayItem(
                label: $0.label, price: WalletAmount.decimal(minorUnits: $0.amount, currency: currency),
                status: $0.isPending ? "PENDING" : nil)
        }
        if surcharge != 0 {
            items.append(.init(label: "Surcharge", price: WalletAmount.decimal(minorUnits: surcharge, currency: currency)))
        }
        let method = GooglePayPaymentDataRequest.PaymentMethod(
            parameters: .init(allowedCardNetworks: networks),
            tokenizationSpecification: .init(parameters: .init(gateway: gateway, gatewayMerchantId: gatewayMerchantId)))
        return GooglePayPaymentDataRequest(
            allowedPaymentMethods: [method],
            merchantInfo: .init(merchantId: merchantId, merchantName: merchantName),
            transactionInfo: .init(totalPrice: WalletAmount.decimal(minorUnits: token.amount + surcharge, currency: currency),
                                   currencyCode: token.currency, countryCode: token.country,
                                   displayItems: items.isEmpty ? nil : items))
    }
}
