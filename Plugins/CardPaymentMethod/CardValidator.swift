import CheckoutCore
import Foundation

/// Validates card data against the network table, the merchant's allowed networks and a clock.
///
/// Two APIs over the same rules:
/// - `check(number:cvv:expiry:)` is the hot path: it reads the UTF-8 bytes in place (eight at a
///   time for a digits-only number), keeps no digit buffer (the Luhn sum and the value of the
///   first 8 digits are computed on the fly, see `NumberScan`), detects the network with one read
///   of a precomputed index, and returns a `CardCheck`. It performs no heap allocation.
/// - `validate(...)` adds the cardholder name and returns `[CardFieldError]` for UIs and the CLI.
///
/// Expiry: a card is valid through the last day of its expiry month wherever the shopper is: the
/// current month is read at UTC−12, the last time zone to leave a month. An expiry more than
/// `maximumYearsAhead` (20) years after the current month is `invalid-expiry-date`.
public struct CardValidator: Sendable {
    /// The network table.
    public let table: CardNetworkTable
    /// The merchant's allowed networks in the merchant's order; empty allows every network.
    public let allowedNetworks: [CardNetwork]
    /// The clock used for expiry checks.
    public let now: @Sendable () -> Date

    /// Bit `i` set when `table.rules[i]` is allowed.
    private let allowedMask: UInt64
    /// Per-rule length bit sets, copied out of the rules so the hot path touches only integers.
    private let lengthMasks: [UInt32]
    /// Per-rule security-code lengths.
    private let securityCodeLengths: [UInt8]
    /// The month of the current span of the clock, so the calendar arithmetic rarely runs.
    private let monthCache = MonthCache()

    /// How far ahead an expiry may be before it is considered a typo: 20 years.
    public static let maximumYearsAhead = 20
    /// Card numbers have 13 to 19 digits.
    public static let numberLengths = 13...19
    /// The offset applied to the clock to find the current month (UTC−12), in seconds.
    static let expiryZoneOffset: Int64 = -12 * 3600

    /// Creates a validator.
    /// - Parameters:
    ///   - table: the network table (`Config/card-networks.json`).
    ///   - allowedNetworks: the merchant's accepted networks; empty accepts any number that is
    ///     otherwise valid, including one no rule detects.
    ///   - now: the clock, injectable for tests.
    public init(table: CardNetworkTable, allowedNetworks: [CardNetwork] = [],
                now: @escaping @Sendable () -> Date = CardValidator.systemClock) {
        self.table = table
        self.allowedNetworks = allowedNetworks
        self.now = now
        var mask: UInt64 = 0
        for network in allowedNetworks {
            if let index = table.ruleIndex(of: network) { mask |= 1 << UInt64(index) }
        }
        allowedMask = mask
        lengthMasks = table.rules.map(\.lengthMask)
        securityCodeLengths = table.rules.map { UInt8(truncatingIfNeeded: $0.securityCodeLength) }
    }

    /// This validator with another merchant's allowed networks.
    public func allowing(_ networks: [CardNetwork]) -> CardValidator {
        CardValidator(table: table, allowedNetworks: networks, now: now)
    }

    // MARK: Hot path

    /// Checks a card number and, when given, a security code and an expiry. Allocation-free.
    ///
    /// The number may contain spaces and dashes; any other character (letters, non-ASCII digits,
    /// emoji) makes it `invalid-card-number`. A nil `cvv` or `expiry` is not checked; an empty one
    /// is `required`. The security code length follows the detected network (3 or 4 when none).
    public func check(number: String, cvv: String? = nil, expiry: String? = nil) -> CardCheck {
        let scan = NumberScan.scan(number)
        var issues = CardCheck.Issues()
        let ruleIndex = table.ruleIndex(lead: scan.lead, digits: min(scan.count, CardPrefixRange.maximumDigits))
        if scan.badCharacter || scan.tooLong {
            issues.insert(.numberInvalid)
        } else if scan.count == 0 {
            issues.insert(.numberRequired)
        } else if !Self.numberLengths.contains(scan.count) || !scan.passesLuhn
            || (ruleIndex >= 0 && lengthMasks[ruleIndex] & (1 << UInt32(scan.count)) == 0) {
            issues.insert(.numberInvalid)
        } else if !allowedNetworks.isEmpty && (ruleIndex < 0 || allowedMask & (1 << UInt64(ruleIndex)) == 0) {
            issues.insert(.numberUnsupported)
        }
        if let cvv {
            issues.formUnion(Self.checkSecurityCode(cvv, length: ruleIndex >= 0 ? Int(securityCodeLengths[ruleIndex]) : 0))
        }
        var parsedExpiry: CardExpiry?
        if let expiry {
            let (expiryIssues, parsed) = checkExpiry(expiry)
            issues.formUnion(expiryIssues)
            parsedExpiry = parsed
        }
        return CardCheck(network: ruleIndex >= 0 ? table.rules[ruleIndex].network : nil,
                         digitCount: scan.count + (scan.tooLong ? 1 : 0), issues: issues, expiry: parsedExpiry)
    }

    /// Checks a security code for `network` (nil or a network outside the table: 3 or 4 digits).
    public func checkSecurityCode(_ cvv: String, network: CardNetwork?) -> CardCheck.Issues {
        let length = network.flatMap { table.rule(for: $0)?.securityCodeLength } ?? 0
        return Self.checkSecurityCode(cvv, length: length)
    }

    /// Checks an expiry against the clock; returns the issues and the parsed value when well formed.
    public func checkExpiry(_ text: String) -> (issues: CardCheck.Issues, expiry: CardExpiry?) {
        switch CardExpiry.parse(text) {
        case .empty: return (.expiryRequired, nil)
        case .malformed: return (.expiryInvalid, nil)
        case .parsed(let expiry):
            let current = currentMonthIndex()
            if expiry.monthIndex < current { return (.expired, expiry) }
            if expiry.monthIndex > current + Self.maximumYearsAhead * 12 { return (.expiryInvalid, expiry) }
            return ([], expiry)
        }
    }

    /// The current month as `year * 12 + month - 1`, read at UTC−12 without Calendar (no allocation).
    func currentMonthIndex() -> Int {
        let seconds = now().timeIntervalSince1970
        let clamped = seconds.isFinite ? max(-1.0e13, min(1.0e13, seconds)) : 0
        var whole = Int64(clamped)
        if Double(whole) > clamped { whole -= 1 }
        return monthCache.monthIndex(seconds: whole + Self.expiryZoneOffset)
    }

    /// Howard Hinnant's days-to-civil algorithm (proleptic Gregorian, UTC).
    static func civil(daysSinceEpoch days: Int64) -> (year: Int64, month: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month)
    }

    /// `length` 0 means the network is unknown: 3 or 4 digits are accepted.
    static func checkSecurityCode(_ cvv: String, length: Int) -> CardCheck.Issues {
        func check(_ bytes: UnsafeBufferPointer<UInt8>) -> CardCheck.Issues {
            let count = bytes.count
            if count == 0 { return .cvvRequired }
            guard count <= 4 else { return .cvvInvalid }
            for byte in bytes where byte &- 48 >= 10 { return .cvvInvalid }
            if length == 0 { return count == 3 || count == 4 ? [] : .cvvInvalid }
            return count == length ? [] : .cvvInvalid
        }
        if let issues = cvv.utf8.withContiguousStorageIfAvailable(check) { return issues }
        var copy = cvv
        copy.makeContiguousUTF8()
        return copy.utf8.withContiguousStorageIfAvailable(check) ?? .cvvInvalid
    }
}

/// One pass over a card number's bytes: digit count, Luhn sum, value of the first 8 digits.
///
/// Two paths, both without a digit buffer:
/// - digits only, 8-19 bytes (what a backend usually receives): eight bytes at a time (SWAR):
///   one 64-bit test that all eight are digits, the digit sums and the count of digits >= 5 per
///   index parity by multiplication, and the first 8 digits' value by the classic three-multiply
///   parse. The Luhn sum then follows from the length's parity.
/// - anything else (separators, short input, bad characters): a byte loop that keeps the Luhn
///   sum under both hypotheses ("this digit is doubled" / "it is not") and swaps them at every
///   digit, since a digit's position from the right is unknown until the end.
struct NumberScan {
    /// The value of the first min(count, 8) digits.
    var lead: UInt32 = 0
    /// Digits seen (at most 19; see `tooLong`).
    var count = 0
    /// The Luhn sum (every second digit from the right doubled, 9 subtracted above 9).
    var luhnSum = 0
    /// A character other than a digit, space or dash was found (scanning stopped there).
    var badCharacter = false
    /// More than 19 digits (scanning stopped at the 20th).
    var tooLong = false

    /// True when the digits pass the Luhn check.
    var passesLuhn: Bool { luhnSum % 10 == 0 }

    static func scan(_ number: String) -> NumberScan {
        if let scan = number.utf8.withContiguousStorageIfAvailable(scan) { return scan }
        var copy = number
        copy.makeContiguousUTF8()
        return copy.utf8.withContiguousStorageIfAvailable(scan) ?? NumberScan(badCharacter: true)
    }

    @inline(__always)
    static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> NumberScan {
        if bytes.count >= 8 && bytes.count <= 19, let scan = scanDigits(bytes) { return scan }
        return scanBytes(bytes)
    }

    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080
    private static let evenBytes: UInt64 = 0x00FF_00FF_00FF_00FF

    /// True when all eight bytes are ASCII digits.
    @inline(__always)
    private static func allDigits(_ word: UInt64) -> Bool {
        // High bit per byte: >= 0x3A after adding 0x46, < 0x30 after subtracting 0x30, or >= 0x80.
        ((word &+ 0x4646_4646_4646_4646) | (word &- 0x3030_3030_3030_3030) | word) & highBits == 0
    }

    /// The sum of the eight bytes of `word` (each at most 31).
    @inline(__always)
    private static func byteSum(_ word: UInt64) -> Int { Int((word &* ones) >> 56) }

    /// The SWAR path; nil when a byte is not an ASCII digit.
    @inline(__always)
    private static func scanDigits(_ bytes: UnsafeBufferPointer<UInt8>) -> NumberScan? {
        guard let base = bytes.baseAddress else { return nil }
        let raw = UnsafeRawPointer(base)
        let count = bytes.count
        var sum = 0, evenSum = 0, evenHigh = 0, oddHigh = 0
        var lead: UInt32 = 0
        var index = 0
        while index + 8 <= count {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            guard allDigits(word) else { return nil }
            let values = word &- 0x3030_3030_3030_3030
            // 1 in each byte whose digit is 5 or more (those lose 9 when doubled).
            let high = ((values &+ 0x7B7B_7B7B_7B7B_7B7B) & highBits) >> 7
            sum += byteSum(values)
            evenSum += byteSum(values & evenBytes)
            evenHigh += byteSum(high & evenBytes)
            oddHigh += byteSum(high & ~evenBytes)
            if index == 0 {
                var value = (values &* 2561) >> 8
                value = ((value & 0x00FF_00FF_00FF_00FF) &* 6_553_601) >> 16
                lead = UInt32(truncatingIfNeeded: ((value & 0x0000_FFFF_0000_FFFF) &* 42_949_672_960_001) >> 32)
            }
            index += 8
        }
        while index < count {
            let digit = bytes[index] &- 48
            guard digit < 10 else { return nil }
            let value = Int(digit)
            sum += value
            if index & 1 == 0 {
                evenSum += value
                evenHigh += value >= 5 ? 1 : 0
            } else {
                oddHigh += value >= 5 ? 1 : 0
            }
            index += 1
        }
        // Doubled digits sit at even indices (from the left) when the length is even, else odd.
        let luhnSum = count & 1 == 0 ? sum + evenSum - 9 * evenHigh : sum + (sum - evenSum) - 9 * oddHigh
        return NumberScan(lead: lead, count: count, luhnSum: luhnSum, badCharacter: false, tooLong: false)
    }

    /// The general byte loop.
    private static func scanBytes(_ bytes: UnsafeBufferPointer<UInt8>) -> NumberScan {
        var result = NumberScan()
        var doubledSum = 0
        var plainSum = 0
        var lead: UInt32 = 0
        var count = 0
        for byte in bytes {
            let digit = byte &- 48
            if digit < 10 {
                if count == 19 {
                    result.tooLong = true
                    break
                }
                let value = Int(digit)
                let doubled = value &* 2 &- (value >= 5 ? 9 : 0)
                // (sum if this digit is doubled, sum if not) -> the same for the next digit.
                (doubledSum, plainSum) = (plainSum &+ value, doubledSum &+ doubled)
                if count < CardPrefixRange.maximumDigits { lead = lead &* 10 &+ UInt32(digit) }
                count += 1
            } else if byte != 32 && byte != 45 {
                result.badCharacter = true
                break
            }
        }
        result.lead = lead
        result.count = count
        // The last digit is never doubled, so the real sum is "the next digit would be doubled".
        result.luhnSum = doubledSum
        return result
    }
}
