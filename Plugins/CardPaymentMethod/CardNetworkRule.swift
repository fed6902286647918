import CheckoutCore
/// What the network table knows about one card network: prefixes, lengths, digit groups, security code.
///
/// Rules are data (`Config/card-networks.json`), so a new network or a new range needs no code change.
/// A rule with no prefixes describes a network known only from a BIN lookup (e.g. CARTES_BANCAIRES),
/// which still needs its lengths, groups and security code once a co-badged card selects it.
public struct CardNetworkRule: Sendable, Hashable {
    /// The network this rule describes.
    public let network: CardNetwork
    /// The prefixes (single values or inclusive ranges) that identify the network locally.
    public let prefixes: [CardPrefixRange]
    /// Digit positions after which a space is shown, e.g. `[4, 10]` for AMEX.
    public let gaps: [Int]
    /// The allowed card-number lengths, ascending.
    public let lengths: [Int]
    /// The security code's name on the card (CVV, CVC, CID, ...).
    public let securityCodeName: String
    /// The security code's length (3 or 4).
    public let securityCodeLength: Int
    /// Prefixes of this network that are genuinely shared with other networks (co-branded cards
    /// such as Naranja Visa): a card under one of them may be processed on any of the listed networks.
    public let coBadges: [CardCoBadge]
    /// The public source of the rule's ranges (the table's `source` field), kept for audits.
    public let source: String
    /// Bit `n` is set when length `n` is allowed; lets the hot path test a length with one AND.
    let lengthMask: UInt32

    /// Creates a rule; `CardNetworkTable` validates rules when it loads them.
    public init(network: CardNetwork, prefixes: [CardPrefixRange], gaps: [Int], lengths: [Int],
                securityCodeName: String, securityCodeLength: Int, coBadges: [CardCoBadge] = [], source: String = "") {
        self.network = network
        self.coBadges = coBadges
        self.source = source
        self.prefixes = prefixes
        self.gaps = gaps
        self.lengths = lengths.sorted()
        self.securityCodeName = securityCodeName
        self.securityCodeLength = securityCodeLength
        var mask: UInt32 = 0
        for length in lengths where (0..<32).contains(length) { mask |= 1 << UInt32(length) }
        lengthMask = mask
    }

    /// True when `length` is one of the network's card-number lengths.
    public func allowsLength(_ length: Int) -> Bool {
        (0..<32).contains(length) && lengthMask & (1 << UInt32(length)) != 0
    }

    /// The longest allowed card number.
    public var maximumLength: Int { lengths.last ?? 19 }
}

/// Prefixes of one network that another network shares (a co-branded card), from the table's
/// `coBadges` entries: `{"prefixes": ["402918"], "networks": ["VISA"]}` under NARANJA.
public struct CardCoBadge: Sendable, Hashable {
    /// The shared prefixes (each inside one of the owning rule's own prefixes).
    public let prefixes: [CardPrefixRange]
    /// The other networks the card may be processed on, in the table's order.
    public let networks: [CardNetwork]

    public init(prefixes: [CardPrefixRange], networks: [CardNetwork]) {
        self.prefixes = prefixes
        self.networks = networks
    }
}
