/// The identifier of a payment-method type on the wire, e.g. `PAYMENT_CARD`, `PAYPAL`, `ADYEN_IDEAL`.
///
/// An open set (a struct, not an enum): a new method needs no change here. The well-known
/// types are provided as constants.
public struct PaymentMethodType: RawRepresentable, Hashable, Sendable, Codable, Comparable,
    ExpressibleByStringLiteral, CustomStringConvertible {
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

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { rawValue }

    /// Card entered in the card form.
    public static let paymentCard: Self = "PAYMENT_CARD"
    /// A saved (vaulted) instrument paid through the vault exchange.
    public static let vaulted: Self = "VAULTED"
    /// Apple Pay.
    public static let applePay: Self = "APPLE_PAY"
    /// Google Pay.
    public static let googlePay: Self = "GOOGLE_PAY"
    /// PayPal (a redirect flow).
    public static let payPal: Self = "PAYPAL"
    /// iDEAL through Adyen (a redirect flow).
    public static let adyenIdeal: Self = "ADYEN_IDEAL"
    /// Sofort through Adyen (a redirect flow).
    public static let adyenSofort: Self = "ADYEN_SOFORT"
    /// Klarna (a redirect flow).
    public static let klarna: Self = "KLARNA"
}

/// The kind of instrument behind a vaulted payment method, e.g. `PAYMENT_CARD`.
public struct PaymentInstrumentType: RawRepresentable, Hashable, Sendable, Codable,
    ExpressibleByStringLiteral, CustomStringConvertible {
    /// The upper-case wire identifier.
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }

    /// A payment card.
    public static let paymentCard: Self = "PAYMENT_CARD"
    /// A PayPal billing agreement.
    public static let payPalBillingAgreement: Self = "PAYPAL_BILLING_AGREEMENT"
    /// Any other tokenized instrument.
    public static let other: Self = "OTHER"
}
