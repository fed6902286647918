/// A card network (scheme) identifier, e.g. `VISA`, as used on the wire and in JSON output.
///
/// An open set so that a network added to `Config/card-networks.json` needs no code change.
public struct CardNetwork: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByStringLiteral,
    CustomStringConvertible {
    /// The upper-case wire identifier.
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }

    /// The length of this network's security code: 4 for AMEX, 3 for every other known network.
    /// The card module refines this from its network table; the core needs it for vaulted-card CVV.
    public var securityCodeLength: Int { self == .amex ? 4 : 3 }

    public static let visa: Self = "VISA"
    public static let mastercard: Self = "MASTERCARD"
    public static let amex: Self = "AMEX"
    public static let discover: Self = "DISCOVER"
    public static let dinersClub: Self = "DINERS_CLUB"
    public static let jcb: Self = "JCB"
    public static let unionPay: Self = "UNIONPAY"
    public static let maestro: Self = "MAESTRO"
    public static let mir: Self = "MIR"
    public static let elo: Self = "ELO"
    public static let hiper: Self = "HIPER"
    public static let hipercard: Self = "HIPERCARD"
    /// Verve (Nigeria, Interswitch).
    public static let verve: Self = "VERVE"
    /// Troy (Turkey, BKM).
    public static let troy: Self = "TROY"
    /// Naranja (Argentina, Tarjeta Naranja).
    public static let naranja: Self = "NARANJA"
    public static let cartesBancaires: Self = "CARTES_BANCAIRES"
    public static let bancontact: Self = "BANCONTACT"
    public static let eftpos: Self = "EFTPOS"
    public static let dankort: Self = "DANKORT"
    public static let other: Self = "OTHER"

    /// Every network named in the reference table, in its order.
    public static let known: [CardNetwork] = [
        .visa, .mastercard, .amex, .discover, .dinersClub, .jcb, .unionPay, .maestro, .mir, .elo,
        .hiper, .hipercard, .verve, .troy, .naranja, .cartesBancaires, .bancontact, .eftpos, .dankort, .other,
    ]
}
