import CheckoutCore
/// The compact result of the hot-path check (`CardValidator.check`): a small value, no allocation.
///
/// Problems are bits of `issues`, one field at a time taking its most specific code, so a
/// backend validating on every keystroke pays nothing for the error list until it asks for
/// `errors`.
public struct CardCheck: Sendable, Equatable {
    /// The problems found, as a bit set.
    public struct Issues: OptionSet, Sendable, Hashable {
        /// The bits.
        public let rawValue: UInt16
        /// Creates a set from its bits.
        public init(rawValue: UInt16) { self.rawValue = rawValue }

        /// The number is empty.
        public static let numberRequired = Issues(rawValue: 1 << 0)
        /// The number has a bad character or length, fails Luhn, or has a length its network lacks.
        public static let numberInvalid = Issues(rawValue: 1 << 1)
        /// The number's network is not among the merchant's allowed networks.
        public static let numberUnsupported = Issues(rawValue: 1 << 2)
        /// The security code was checked and is empty.
        public static let cvvRequired = Issues(rawValue: 1 << 3)
        /// The security code has a non-digit or the wrong length for the network.
        public static let cvvInvalid = Issues(rawValue: 1 << 4)
        /// The expiry date was checked and is empty.
        public static let expiryRequired = Issues(rawValue: 1 << 5)
        /// The expiry date is malformed, has a bad month, or is too far ahead.
        public static let expiryInvalid = Issues(rawValue: 1 << 6)
        /// The expiry month has passed.
        public static let expired = Issues(rawValue: 1 << 7)

        /// Every card-number issue.
        public static let number: Issues = [.numberRequired, .numberInvalid, .numberUnsupported]
        /// Every security-code issue.
        public static let cvv: Issues = [.cvvRequired, .cvvInvalid]
        /// Every expiry issue.
        public static let expiry: Issues = [.expiryRequired, .expiryInvalid, .expired]
    }

    /// The network detected from the leading digits (longest prefix), even when the number is invalid.
    public let network: CardNetwork?
    /// How many digits the number has (counting stops at 20).
    public let digitCount: Int
    /// The problems found; empty when valid.
    public let issues: Issues
    /// The parsed expiry, when an expiry was given and is well formed.
    public let expiry: CardExpiry?

    /// Creates a result (the validator does this).
    public init(network: CardNetwork?, digitCount: Int, issues: Issues, expiry: CardExpiry?) {
        self.network = network
        self.digitCount = digitCount
        self.issues = issues
        self.expiry = expiry
    }

    /// True when nothing that was checked has a problem.
    public var isValid: Bool { issues.isEmpty }

    /// The problems as field errors in form order (allocates; for UI and CLI).
    public var errors: [CardValidationError] {
        var errors: [CardValidationError] = []
        if issues.contains(.numberRequired) {
            errors.append(CardValidationError(field: .cardNumber, code: .required))
        } else if issues.contains(.numberInvalid) {
            errors.append(CardValidationError(field: .cardNumber, code: .invalidCardNumber))
        } else if issues.contains(.numberUnsupported) {
            errors.append(CardValidationError(field: .cardNumber, code: .unsupportedCardType))
        }
        if issues.contains(.expiryRequired) {
            errors.append(CardValidationError(field: .expiryDate, code: .required))
        } else if issues.contains(.expiryInvalid) {
            errors.append(CardValidationError(field: .expiryDate, code: .invalidExpiryDate))
        } else if issues.contains(.expired) {
            errors.append(CardValidationError(field: .expiryDate, code: .cardExpired))
        }
        if issues.contains(.cvvRequired) {
            errors.append(CardValidationError(field: .cvv, code: .required))
        } else if issues.contains(.cvvInvalid) {
            errors.append(CardValidationError(field: .cvv, code: .invalidCvv))
        }
        return errors
    }
}
