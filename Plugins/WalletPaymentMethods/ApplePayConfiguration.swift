import CheckoutCore

/// The merchant's Apple Pay settings, from the `APPLE_PAY` entry of `Config/checkout.json`.
///
/// ```json
/// { "type": "APPLE_PAY", "options": { "merchantIdentifier": "merchant.com.example",
///   "merchantName": "Example Shop", "lineItems": [ { "label": "Subtotal", "amount": 1500 } ] } }
/// ```
public struct ApplePayConfiguration: Sendable, Equatable {
    /// The Apple merchant identifier.
    public var merchantIdentifier: String
    /// The name shown on the total line.
    public var merchantName: String
    /// Extra summary lines.
    public var lineItems: [WalletLineItem]

    /// Creates a configuration.
    public init(merchantIdentifier: String, merchantName: String, lineItems: [WalletLineItem] = []) {
        self.merchantIdentifier = merchantIdentifier
        self.merchantName = merchantName
        self.lineItems = lineItems
    }

    /// Reads the options of a configuration entry.
    /// - Throws: `CheckoutError` `.invalidConfiguration` naming the missing or malformed option.
    public init(options: [String: JSONValue]) throws {
        merchantIdentifier = try WalletOptions.requiredString(options, "merchantIdentifier")
        merchantName = try WalletOptions.requiredString(options, "merchantName")
        lineItems = try WalletLineItem.parse(options["lineItems"])
    }

    /// The request for a session: its country, currency and allowed networks, the order amount
    /// plus `surcharge` as the total.
    /// - Throws: `.paymentMethodUnavailable` when Apple Pay supports none of the allowed networks.
    public func paymentRequest(for session: ClientSession, surcharge: Int = 0) throws -> ApplePayPaymentRequest {
        let token = session.token
        let currency = try token.currencyValue
        let networks = WalletNetworks.applePayNames(for: token.allowedCardNetworks)
        guard !networks.isEmpty else {
            throw CheckoutError(.paymentMethodUnavailable, "Apple Pay supports none of the merchant's card networks ("
                                + token.allowedCardNetworks.map(\.rawValue).joined(separator: ", ") + ")")
        }
        var items = lineItems.map {
            ApplePaySummaryItem(label: $0.label, amount: WalletAmount.decimal(minorUnits: $0.amount, currency: currency),
                                type: $0.isPending ? "pending" : "final")
        }
        if surcharge != 0 {
            items.append(ApplePaySummaryItem(label: "Surcharge",
                                             amount: WalletAmount.decimal(minorUnits: surcharge, currency: currency)))
        }
        items.append(ApplePaySummaryItem(label: merchantName,
                                         amount: WalletAmount.decimal(minorUnits: token.amount + surcharge,
                                                                      currency: currency)))
        return ApplePayPaymentRequest(merchantIdentifier: merchantIdentifier, countryCode: token.country,
                                      currencyCode: token.currency, supportedNetworks: networks,
                                      paymentSummaryItems: items)
    }
}
