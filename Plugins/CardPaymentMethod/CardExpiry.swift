/// A card's expiry month and four-digit year, parsed from what a shopper types.
///
/// Accepted forms (spaces anywhere are ignored): `MM/YY`, `M/YY`, `MM/YYYY`, `M/YYYY`, `MMYY`
/// and `MMYYYY`. A two-digit year `YY` means `20YY`. Parsing never allocates.
public struct CardExpiry: Sendable, Hashable, CustomStringConvertible {
    /// The month, 1-12.
    public let month: Int
    /// The four-digit year.
    public let year: Int

    /// Creates an expiry; returns nil unless `month` is 1-12 and `year` is 0-9999.
    public init?(month: Int, year: Int) {
        guard (1...12).contains(month), (0...9999).contains(year) else { return nil }
        self.month = month
        self.year = year
    }

    /// Parses the text; nil for anything malformed (including month 0 or 13+).
    public init?(parsing text: String) {
        guard case .parsed(let expiry) = Self.parse(text) else { return nil }
        self = expiry
    }

    /// `MM/YY` when the year is in 2000-2099, else `MM/YYYY`.
    public var description: String {
        let monthText = month < 10 ? "0\(month)" : "\(month)"
        if (2000...2099).contains(year) {
            let short = year - 2000
            return monthText + "/" + (short < 10 ? "0\(short)" : "\(short)")
        }
        return monthText + "/\(year)"
    }

    /// Months since year 0, for comparisons.
    var monthIndex: Int { year * 12 + month - 1 }

    /// The outcome of parsing.
    enum ParseResult: Equatable {
        case empty, malformed, parsed(CardExpiry)
    }

    /// Parses without allocating.
    static func parse(_ text: String) -> ParseResult {
        if let result = text.utf8.withContiguousStorageIfAvailable(parse) { return result }
        var copy = text
        copy.makeContiguousUTF8()
        return copy.utf8.withContiguousStorageIfAvailable(parse) ?? .malformed
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> ParseResult {
        // Fast path for the canonical `MM/YY`.
        if bytes.count == 5 && bytes[2] == 47 {
            let m1 = bytes[0] &- 48, m2 = bytes[1] &- 48, y1 = bytes[3] &- 48, y2 = bytes[4] &- 48
            if m1 < 10 && m2 < 10 && y1 < 10 && y2 < 10 {
                let month = Int(m1) * 10 + Int(m2)
                guard let expiry = CardExpiry(month: month, year: 2000 + Int(y1) * 10 + Int(y2)) else { return .malformed }
                return .parsed(expiry)
            }
        }
        var before = 0, beforeDigits = 0, after = 0, afterDigits = 0
        var slash = false
        for byte in bytes {
            let digit = byte &- 48
            if digit < 10 {
                if slash {
                    afterDigits += 1
                    guard afterDigits <= 4 else { return .malformed }
                    after = after * 10 + Int(digit)
                } else {
                    beforeDigits += 1
                    guard beforeDigits <= 6 else { return .malformed }
                    before = before * 10 + Int(digit)
                }
            } else if byte == 32 {
                continue
            } else if byte == 47 && !slash {
                slash = true
            } else {
                return .malformed
            }
        }
        let month: Int
        var year: Int
        var yearDigits: Int
        if slash {
            guard (1...2).contains(beforeDigits) else { return .malformed }
            month = before
            year = after
            yearDigits = afterDigits
        } else {
            switch beforeDigits {
            case 0: return .empty
            case 4: (month, year, yearDigits) = (before / 100, before % 100, 2)
            case 6: (month, year, yearDigits) = (before / 10_000, before % 10_000, 4)
            default: return .malformed
            }
        }
        guard yearDigits == 2 || yearDigits == 4 else { return .malformed }
        if yearDigits == 2 { year += 2000 }
        guard let expiry = CardExpiry(month: month, year: year) else { return .malformed }
        return .parsed(expiry)
    }
}
