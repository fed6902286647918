/// One prefix of a card network: a single value (`34`) or an inclusive range (`2221-2229`).
///
/// Both bounds have the same number of digits, and a card number matches when its leading
/// `digitCount` digits, read as a number, lie within `lowerBound...upperBound`.
public struct CardPrefixRange: Sendable, Hashable, CustomStringConvertible {
    /// The smallest matching value of the leading digits.
    public let lowerBound: UInt32
    /// The largest matching value of the leading digits.
    public let upperBound: UInt32
    /// How many leading digits are compared (1–8).
    public let digitCount: Int

    /// The most digits a prefix may have (a BIN is 8 digits).
    public static let maximumDigits = 8

    /// Parses `"34"` or `"2221-2229"`, throwing what is wrong with anything else.
    init(parsing text: String) throws(PrefixProblem) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2 else { throw .malformed }
        guard let low = Self.value(parts[0]) else { throw .malformed }
        let high = parts.count == 2 ? Self.value(parts[1]) : low
        guard let high else { throw .malformed }
        guard low.digits == high.digits else { throw .mixedDigitCounts }
        guard low.value <= high.value else { throw .inverted }
        lowerBound = low.value
        upperBound = high.value
        digitCount = low.digits
    }

    /// Creates a range directly (tests and programmatic tables).
    public init(_ lowerBound: UInt32, _ upperBound: UInt32, digitCount: Int) {
        self.lowerBound = lowerBound
        self.upperBound = upperBound
        self.digitCount = digitCount
    }

    /// `34` or `2221-2229`, zero-padded to the digit count.
    public var description: String {
        lowerBound == upperBound ? Self.padded(lowerBound, digitCount) :
            Self.padded(lowerBound, digitCount) + "-" + Self.padded(upperBound, digitCount)
    }

    /// True when the two ranges compare the same number of digits and share a value.
    func overlaps(_ other: CardPrefixRange) -> Bool {
        digitCount == other.digitCount && lowerBound <= other.upperBound && other.lowerBound <= upperBound
    }

    /// How many leading-digit values the range covers (`hi - lo + 1`); the narrower range wins a tie.
    var width: UInt32 { upperBound - lowerBound + 1 }

    /// True when every value of `other` (same digit count) lies in this range.
    func contains(_ other: CardPrefixRange) -> Bool {
        digitCount == other.digitCount && lowerBound <= other.lowerBound && other.upperBound <= upperBound
    }

    /// True when the first `digitCount` of `digits` leading digits, whose value is `lead`, lie in the range.
    func matches(lead: UInt32, digits: Int) -> Bool {
        guard digits >= digitCount else { return false }
        var value = lead
        for _ in digitCount..<digits { value /= 10 }
        return lowerBound <= value && value <= upperBound
    }

    private static func value(_ text: Substring) -> (value: UInt32, digits: Int)? {
        let bytes = text.utf8
        guard (1...maximumDigits).contains(bytes.count) else { return nil }
        var value: UInt32 = 0
        for byte in bytes {
            guard byte >= 48 && byte <= 57 else { return nil }
            value = value * 10 + UInt32(byte - 48)
        }
        return (value, bytes.count)
    }

    private static func padded(_ value: UInt32, _ digits: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    /// Why a prefix string was rejected.
    enum PrefixProblem: Error {
        case malformed, mixedDigitCounts, inverted
    }
}
