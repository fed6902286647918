import CheckoutCore

/// A malformed card-network table: names the entry (index and network) and the problem.
///
/// Thrown when `Config/card-networks.json` is loaded, so a bad table fails at start-up with a
/// message such as `networks[5] (JCB): lengths: 20 is outside 12-19` instead of misdetecting cards.
public struct CardNetworkTableError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable, machine-readable kind of problem (extensible: a struct, not an enum).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The stable wire form.
        public let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }

        /// The file could not be read.
        public static let unreadable = Code("unreadable")
        /// The JSON is invalid or a required key is missing or mistyped.
        public static let malformedJSON = Code("malformed-json")
        /// The network identifier is empty or not upper-case letters, digits and `_`.
        public static let badNetworkName = Code("bad-network-name")
        /// The same network appears twice.
        public static let duplicateNetwork = Code("duplicate-network")
        /// A prefix is not 1-8 digits or `lo-hi` with bounds of equal digit count.
        public static let badPrefix = Code("bad-prefix")
        /// A prefix range has `lo > hi`.
        public static let invertedRange = Code("inverted-range")
        /// Two networks claim the same prefix value with the same digit count, and neither range
        /// lies strictly inside the other (nested ranges are allowed: the narrower wins).
        public static let overlappingPrefix = Code("overlapping-prefix")
        /// The length list is empty, repeats a length, or has one outside 12-19.
        public static let badLength = Code("bad-length")
        /// The gaps are not strictly increasing positions inside the longest number.
        public static let badGaps = Code("bad-gaps")
        /// The security code length is not 3 or 4, or its name is empty.
        public static let badSecurityCode = Code("bad-security-code")
        /// A `coBadges` entry names an unknown network, or a prefix outside the network's own.
        public static let badCoBadge = Code("bad-co-badge")
        /// An entry has no `source` naming where its ranges come from.
        public static let missingSource = Code("missing-source")
        /// The table has more networks than the validator's bit sets can hold (64).
        public static let tooManyNetworks = Code("too-many-networks")

        /// The wire form.
        public var description: String { rawValue }
    }

    /// What kind of problem.
    public let code: Code
    /// The index of the offending entry in `networks`, when one entry is at fault.
    public let entryIndex: Int?
    /// The offending entry's network identifier, when known.
    public let network: String?
    /// A human-readable explanation (never contains card data: the table holds none).
    public let message: String

    /// Creates an error for one entry or for the whole table.
    public init(_ code: Code, entryIndex: Int? = nil, network: String? = nil, _ message: String) {
        self.code = code
        self.entryIndex = entryIndex
        // The table is configuration, but a mistyped file can still hold a card number: never echo one.
        self.network = network.map(PaymentDataRedactor.redact)
        self.message = PaymentDataRedactor.redact(message)
    }

    /// `card network table: networks[5] (JCB): <problem>`.
    public var description: String {
        var location = "card network table"
        if let entryIndex { location += ": networks[\(entryIndex)]" }
        if let network, !network.isEmpty { location += " (\(network))" }
        return "\(location): \(message)"
    }
}
