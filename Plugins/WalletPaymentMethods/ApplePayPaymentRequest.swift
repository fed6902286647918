import CheckoutCore

/// The Apple Pay payment request, shaped like PassKit's `PKPaymentRequest` and encodable to the
/// JSON a host bridges to it (field names as in PassKit; network and capability values as in
/// Apple Pay on the Web).
///
/// `paymentSummaryItems` lists the configured line items (and the surcharge, when there is one)
/// followed by the total, labelled with the merchant's display name, as Apple requires.
public struct ApplePayPaymentRequest: Sendable, Equatable, Codable {
    /// The Apple merchant identifier, e.g. `merchant.com.example`.
    public var merchantIdentifier: String
    /// The merchant's ISO 3166 country code.
    public var countryCode: String
    /// The ISO 4217 currency code.
    public var currencyCode: String
    /// The networks the merchant accepts, in Apple's names (`visa`, `masterCard`, `amex`, ...).
    public var supportedNetworks: [String]
    /// Always `["supports3DS"]`.
    public var merchantCapabilities: [String]
    /// Line items, then the total.
    public var paymentSummaryItems: [ApplePaySummaryItem]

    /// Creates a request.
    public init(merchantIdentifier: String, countryCode: String, currencyCode: String, supportedNetworks: [String],
                merchantCapabilities: [String] = ["supports3DS"], paymentSummaryItems: [ApplePaySummaryItem]) {
        self.merchantIdentifier = merchantIdentifier
        self.countryCode = countryCode
        self.currencyCode = currencyCode
        self.supportedNetworks = supportedNetworks
        self.merchantCapabilities = merchantCapabilities
        self.paymentSummaryItems = paymentSummaryItems
    }

    /// The total (the last summary item).
    public var total: ApplePaySummaryItem? { paymentSummaryItems.last }
}

/// One line of the Apple Pay sheet (`PKPaymentSummaryItem`).
public struct ApplePaySummaryItem: Sendable, Equatable, Codable {
    /// The label, e.g. `Shipping`, or the merchant's name for the total.
    public var label: String
    /// The amount as a decimal string in the major unit, e.g. `19.99` (EUR) or `1999` (JPY).
    public var amount: String
    /// `final` or `pending`.
    public var type: String

    /// Creates a summary item.
    public init(label: String, amount: String, type: String = "final") {
        self.label = label
        self.amount = amount
        self.type = type
    }
}
