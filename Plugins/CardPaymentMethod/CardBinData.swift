import CheckoutCore

/// What the card form knows about the entered card's BIN, in the seed SDK's `PrimerBinData` shape.
///
/// `partial` while only local detection from the number prefix is known (fewer than 8 digits, or
/// the BIN lookup has not answered or failed); `complete` once the BIN lookup answered for the
/// current first 8 digits. `preferred` and `alternatives` together list the card's networks:
/// ordered by the merchant's allowed networks (`allowedCardNetworks` of the client token, in its
/// order; networks it does not list follow in the lookup's order), so `preferred` is the
/// network the payment uses unless the shopper chooses another of a co-badged card.
public struct CardBinData: Sendable, Equatable {
    /// How much is known.
    public enum Status: String, Sendable, Equatable {
        /// Local detection only.
        case partial
        /// The BIN lookup answered.
        case complete
    }

    /// The network to use by default, nil when none is detected.
    public var preferred: CardNetwork?
    /// The card's other networks (co-badged cards), in the merchant's order.
    public var alternatives: [CardNetwork]
    /// Whether the BIN lookup answered.
    public var status: Status
    /// The leading digits the data is for: at most 6, the house limit for shown card digits
    /// (the lookup itself uses 8, which are never published).
    public var firstDigits: String?
    /// The issuing country (alpha-2), when the lookup knows it.
    public var issuerCountry: String?
    /// `CREDIT`, `DEBIT` or `PREPAID`, when the lookup knows it.
    public var accountFundingType: String?

    /// Creates BIN data.
    public init(preferred: CardNetwork?, alternatives: [CardNetwork] = [], status: Status, firstDigits: String?,
                issuerCountry: String? = nil, accountFundingType: String? = nil) {
        self.preferred = preferred
        self.alternatives = alternatives
        self.status = status
        self.firstDigits = firstDigits
        self.issuerCountry = issuerCountry
        self.accountFundingType = accountFundingType
    }

    /// Every network of the card: `preferred`, then `alternatives`.
    public var networks: [CardNetwork] { (preferred.map { [$0] } ?? []) + alternatives }

    /// `networks` ordered by `allowed` (allowed ones first, in the merchant's order; the rest
    /// keep their order). An empty `allowed` list keeps `networks` as they are.
    static func ordered(_ networks: [CardNetwork], by allowed: [CardNetwork]) -> [CardNetwork] {
        var result: [CardNetwork] = []
        for network in allowed where networks.contains(network) && !result.contains(network) { result.append(network) }
        for network in networks where !result.contains(network) { result.append(network) }
        return result
    }
}
