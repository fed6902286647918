import CheckoutCore

/// A line of the wallet sheet's summary (e.g. subtotal, shipping), from the `lineItems` option.
///
/// ```json
/// "lineItems": [ { "label": "Subtotal", "amount": 1500 },
///                { "label": "Shipping", "amount": 499, "pending": true } ]
/// ```
/// `amount` is in minor units (negative for a discount); `pending` marks an amount not final yet.
public struct WalletLineItem: Sendable, Equatable {
    /// The label shown on the sheet.
    public var label: String
    /// The amount in minor units.
    public var amount: Int
    /// Whether the amount is an estimate.
    public var isPending: Bool

    /// Creates a line item.
    public init(label: String, amount: Int, isPending: Bool = false) {
        self.label = label
        self.amount = amount
        self.isPending = isPending
    }

    /// Parses the `lineItems` option; absent means none.
    /// - Throws: `CheckoutError` `.invalidConfiguration` naming the bad element.
    static func parse(_ value: JSONValue?) throws -> [WalletLineItem] {
        guard let value else { return [] }
        guard let elements = value.arrayValue else {
            throw CheckoutError(.invalidConfiguration, "options.lineItems must be an array")
        }
        return try elements.enumerated().map { index, element in
            guard let label = element["label"]?.stringValue, !label.isEmpty else {
                throw CheckoutError(.invalidConfiguration, "options.lineItems[\(index)].label must be a non-empty string")
            }
            guard let amount = element["amount"]?.intValue else {
                throw CheckoutError(.invalidConfiguration,
                                    "options.lineItems[\(index)].amount must be an integer amount in minor units")
            }
            var pending = false
            if let flag = element["pending"] {
                guard let value = flag.boolValue else {
                    throw CheckoutError(.invalidConfiguration, "options.lineItems[\(index)].pending must be true or false")
                }
                pending = value
            }
            return WalletLineItem(label: label, amount: amount, isPending: pending)
        }
    }
}
