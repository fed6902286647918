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

    /// `MM/YY` when the year is in 2000-2099, else `MM/YYYY` (the year zero-padded to four digits,
    /// so the text always parses back to the same expiry).
    public var description: String {
        let monthText = month < 10 ? "0\(month)" : "\(month)"
        if (2000...2099).contains(year) {
            let short = year - 2000
            return monthText + "/" + (short < 10 ? "0\(short)" : "\(short)")
        }
        let yearText = "\(year)"
        return monthText + "/" + String(repeating: "0", count: max(0, 4 - yearText.count)) + yearText
    }

    /// Months since year 0, for comparisons.
    var monthIndex: Int { year * 12 + month - 1 }

    /// The outcome of parsing.
    enum ParseResult: Equatable {
        case empty, malformed, parsed(CardExpiry)
    }

    /// Parses without allocating.
    static func parse(_ text: String) -> ParseResult {
        let packed = parsePacked(text)
        if packed == Self.packedEmpty { return .empty }
        guard let expiry = CardExpiry(packed: packed) else { return .malformed }
        return .parsed(expiry)
    }

    /// `parsePacked`'s value for empty text (or text of spaces only).
    static let packedEmpty = 0
    /// `parsePacked`'s value for malformed text.
    static let packedMalformed = -1

    /// The expiry packed as `year << 4 | month`, so it comes back in a register (see `parsePacked`).
    @inline(__always)
    init?(packed: Int) {
        guard packed > 0 else { return nil }
        self.init(month: packed & 15, year: packed >> 4)
    }

    /// Months since year 0 of a packed expiry (`year << 4 | month`, month 1-12).
    @inline(__always)
    static func monthIndex(packed: Int) -> Int { (packed >> 4) * 12 + (packed & 15) - 1 }

    /// Parses without allocating into `year << 4 | month` (month 1-12, year 0-9999), or
    /// `packedEmpty` / `packedMalformed`. The validator's hot path uses this form.
    @inline(__always)
    static func parsePacked(_ text: String) -> Int {
        if let packed = text.utf8.withContiguousStorageIfAvailable(parsePacked) { return packed }
        return parsePackedCopy(text)
    }

    /// Bridged or otherwise non-contiguous strings: parse a contiguous copy.
    @inline(never)
    private static func parsePackedCopy(_ text: String) -> Int {
        var copy = text
        copy.makeContiguousUTF8()
        return copy.utf8.withContiguousStorageIfAvailable(parsePacked) ?? packedMalformed
    }

    @inline(__always)
    private static func parsePacked(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        // Fast path for the canonical `MM/YY`.
        if bytes.count == 5, let base = bytes.baseAddress, base[2] == 47 {
            let m1 = base[0] &- 48, m2 = base[1] &- 48, y1 = base[3] &- 48, y2 = base[4] &- 48
            if m1 < 10 && m2 < 10 && y1 < 10 && y2 < 10 {
                let month = Int(m1) &* 10 &+ Int(m2)
                guard month >= 1 && month <= 12 else { return packedMalformed }
                return (2000 &+ Int(y1) &* 10 &+ Int(y2)) << 4 | month
            }
        }
        return parseGeneral(bytes)
    }

    /// Every accepted form; see the type's documentation.
    private static func parseGeneral(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var before = 0, beforeDigits = 0, after = 0, afterDigits = 0
        var slash = false
        for byte in bytes {
            let digit = byte &- 48
            if digit < 10 {
                if slash {
                    afterDigits += 1
                    guard afterDigits <= 4 else { return packedMalformed }
                    after = after * 10 + Int(digit)
                } else {
                    beforeDigits += 1
                    guard beforeDigits <= 6 else { return packedMalformed }
                    before = before * 10 + Int(digit)
                }
            } else if byte == 32 {
                continue
            } else if byte == 47 && !slash {
                slash = true
            } else {
                return packedMalformed
            }
        }
        let month: Int
        var year: Int
        var yearDigits: Int
        if slash {
            guard (1...2).contains(beforeDigits) else { return packedMalformed }
            month = before
            year = after
            yearDigits = afterDigits
        } else {
            switch beforeDigits {
            case 0: return packedEmpty
            case 4: (month, year, yearDigits) = (before / 100, before % 100, 2)
            case 6: (month, year, yearDigits) = (before / 10_000, before % 10_000, 4)
            default: return packedMalformed
            }
        }
        guard yearDigits == 2 || yearDigits == 4 else { return packedMalformed }
        if yearDigits == 2 { year += 2000 }
        guard (1...12).contains(month), (0...9999).contains(year) else { return packedMalformed }
        return year << 4 | month
    }
}
