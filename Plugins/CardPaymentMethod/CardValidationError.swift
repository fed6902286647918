/// A validation failure of one card-form field, with a stable machine-readable code.
///
/// A struct with an extensible `Code` rather than an enum, so adding a code never breaks a host's
/// `switch`. It holds no input: the field and the code say everything, so it can be logged,
/// printed or serialised without leaking card data.
public struct CardValidationError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    /// A stable error code, e.g. `invalid-card-number`.
    public struct Code: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        /// The wire form, stable across releases.
        public let rawValue: String

        /// Creates a code (for codes added by a host).
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The wire form.
        public var description: String { rawValue }

        /// A required field is empty.
        public static let required = Code(rawValue: "required")
        /// The card number has a bad character, a bad length, fails Luhn, or has a length its network lacks.
        public static let invalidCardNumber = Code(rawValue: "invalid-card-number")
        /// The card's network is not among the merchant's allowed networks.
        public static let unsupportedCardType = Code(rawValue: "unsupported-card-type")
        /// The security code is not digits of the network's length.
        public static let invalidCvv = Code(rawValue: "invalid-cvv")
        /// The expiry date is malformed, has month 0 or 13+, or is too far in the future.
        public static let invalidExpiryDate = Code(rawValue: "invalid-expiry-date")
        /// The expiry month has passed.
        public static let cardExpired = Code(rawValue: "card-expired")
        /// The cardholder name has a character other than letters, spaces, `-` and `'`.
        public static let invalidCardholderName = Code(rawValue: "invalid-cardholder-name")
        /// The cardholder name is shorter than 2 or longer than the allowed characters.
        public static let invalidCardholderNameLength = Code(rawValue: "invalid-cardholder-name-length")
        /// The postal code does not fit the billing country's format.
        public static let invalidPostalCode = Code(rawValue: "invalid-postal-code")
        /// A billing first or last name has characters other than letters, spaces, `-`, `'` and `.`, or is too long.
        public static let invalidName = Code(rawValue: "invalid-name")
        /// A billing address line, city or state is too long or has control characters.
        public static let invalidAddress = Code(rawValue: "invalid-address")
        /// The billing country is not an ISO 3166 alpha-2 code.
        public static let invalidCountryCode = Code(rawValue: "invalid-country-code")
        /// The phone number is not `+` and 8-15 digits (E.164), separators allowed.
        public static let invalidPhoneNumber = Code(rawValue: "invalid-phone-number")
    }

    /// The field at fault.
    public let field: CardField
    /// What is wrong with it.
    public let code: Code

    /// Creates an error for `field`.
    public init(field: CardField, code: Code) {
        self.field = field
        self.code = code
    }

    /// `field: code`, e.g. `cardNumber: invalid-card-number`.
    public var description: String { "\(field): \(code)" }
}

/// One entry of a field-error list (the UI and CLI form of `CardValidationError`).
public typealias CardFieldError = CardValidationError
