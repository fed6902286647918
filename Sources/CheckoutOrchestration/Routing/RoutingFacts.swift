/// What the router knows about a payment when it picks a route: the values the conditions test.
/// It holds no card number: only the leading digits (at most 8) used for BIN ranges.
public struct RoutingFacts: Sendable, Equatable {
    /// The payment-method type, e.g. `PAYMENT_CARD`.
    public var methodType: String
    /// The card network, when a card.
    public var cardNetwork: String?
    /// The card's leading digits (at most 8), when a card.
    public var bin: String?
    /// The issuer's ISO 3166 country, when known.
    public var issuerCountry: String?
    /// The ISO 4217 currency.
    public var currency: String
    /// The amount in minor units.
    public var amount: Int
    /// Merchant metadata (e.g. `{"segment": "travel"}`).
    public var merchant: [String: String]
    /// Customer metadata (e.g. `{"tier": "gold"}`).
    public var customer: [String: String]

    public init(methodType: String, cardNetwork: String? = nil, bin: String? = nil, issuerCountry: String? = nil,
                currency: String, amount: Int, merchant: [String: String] = [:], customer: [String: String] = [:]) {
        self.methodType = methodType
        self.cardNetwork = cardNetwork
        self.bin = bin.map { String($0.prefix(8)) }
        self.issuerCountry = issuerCountry
        self.currency = currency
        self.amount = amount
        self.merchant = merchant
        self.customer = customer
    }
}
