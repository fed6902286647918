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
    /// The wall clock expiry checks read. On `.system` the hot path reads the machine's coarse
    /// real-time clock as whole seconds directly (`systemSeconds()`), without building a `Date`.
    public let clock: WallClock

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
    /// Card numbers have 12 to 19 digits; 12 only for a network whose lengths include it (Maestro).
    public static let numberLengths = 12...19
    /// A number no rule detects needs at least 13 digits (the seed's rule).
    public static let minimumUnknownLength = 13
    /// Creates a validator whose expiry checks read `now`.
    @available(*, deprecated, message: "pass clock: WallClock(now:) (or .fixed(date)); the package has one wall clock")
    public init(table: CardNetworkTable, allowedNetworks: [CardNetwork] = [], now: @escaping @Sendable () -> Date) {
        self.init(table: table, allowedNetworks: allowedNetworks, clock: WallClock(now: now))
    }

    /// The offset applied to the clock to find the current month (UTC−12), in seconds.
    static let expiryZoneOffset: Int64 = -12 * 3600

    /// Creates a validator.
    /// - Parameters:
    ///   - table: the network table (`Config/card-networks.json`).
    ///   - allowedNetworks: the merchant's accepted networks; empty accepts any number that is
    ///     otherwise valid, including one no rule detects.
    ///   - clock: the wall clock expiry checks read (a test passes a fixed or moving one).
    public init(table: CardNetworkTable, allowedNetworks: [CardNetwork] = [], clock: WallClock = .system) {
        self.table = table
        self.allowedNetworks = allowedNetworks
        self.clock = clock
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
        CardValidator(table: table, allowedNetworks: networks, clock: clock)
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
            || (ruleIndex >= 0 && lengthMasks[ruleIndex] & (1 << UInt32(scan.count)) == 0)
            || (ruleIndex < 0 && scan.count < Self.minimumUnknownLength) {
            issues.insert(.numberInvalid)
        } else if !allowedNetworks.isEmpty && (ruleIndex < 0 || allowedMask & (1 << UInt64(ruleIndex)) == 0)
                    && !allowsCoBadge(ruleIndex: ruleIndex, lead: scan.lead, digits: scan.count) {
            issues.insert(.numberUnsupported)
        }
        if let cvv {
            issues.formUnion(Self.checkSecurityCode(cvv, length: ruleIndex >= 0 ? Int(securityCodeLengths[ruleIndex]) : 0))
        }
        var packedExpiry = CardExpiry.packedMalformed
        if let expiry {
            let (expiryIssues, packed) = checkExpiryPacked(expiry)
            issues.formUnion(expiryIssues)
            packedExpiry = packed
        }
        return CardCheck(network: ruleIndex >= 0 ? table.rules[ruleIndex].network : nil,
                         digitCount: scan.count + (scan.tooLong ? 1 : 0), issues: issues,
                         expiry: CardExpiry(packed: packedExpiry))
    }

    /// True when a co-badge entry shares this card's prefix with an allowed network (a Naranja
    /// Visa card where only VISA is allowed). Off the hot path: only reached for a refused network.
    @inline(never)
    private func allowsCoBadge(ruleIndex: Int, lead: UInt32, digits: Int) -> Bool {
        guard ruleIndex >= 0, !table.rules[ruleIndex].coBadges.isEmpty else { return false }
        let typed = min(digits, CardPrefixRange.maximumDigits)
        return table.coBadgedNetworks(ruleIndex: ruleIndex, lead: lead, digits: typed).contains { allowedNetworks.contains($0) }
    }

    /// Checks a security code for `network` (nil or a network outside the table: 3 or 4 digits).
    public func checkSecurityCode(_ cvv: String, network: CardNetwork?) -> CardCheck.Issues {
        let length = network.flatMap { table.rule(for: $0)?.securityCodeLength } ?? 0
        return Self.checkSecurityCode(cvv, length: length)
    }

    /// Checks an expiry against the clock; returns the issues and the parsed value when well formed.
    public func checkExpiry(_ text: String) -> (issues: CardCheck.Issues, expiry: CardExpiry?) {
        let (issues, packed) = checkExpiryPacked(text)
        return (issues, CardExpiry(packed: packed))
    }

    /// `checkExpiry` with the expiry packed as `CardExpiry.parsePacked` returns it (in registers).
    @inline(__always)
    func checkExpiryPacked(_ text: String) -> (issues: CardCheck.Issues, packed: Int) {
        let packed = CardExpiry.parsePacked(text)
        if packed == CardExpiry.packedEmpty { return (.expiryRequired, packed) }
        if packed == CardExpiry.packedMalformed { return (.expiryInvalid, packed) }
        let monthIndex = CardExpiry.monthIndex(packed: packed)
        let current = currentMonthIndex()
        if monthIndex < current { return (.expired, packed) }
        if monthIndex > current + Self.maximumYearsAhead * 12 { return (.expiryInvalid, packed) }
        return ([], packed)
    }

    /// The current month as `year * 12 + month - 1`, read at UTC−12 without Calendar (no allocation).
    // Kept out of line: inlined into `check`, full validation measured about 10% slower.
    @inline(never)
    func currentMonthIndex() -> Int {
        let seconds = clock.isSystem ? Self.systemSeconds() : Self.wholeSeconds(clock.now.timeIntervalSince1970)
        return monthCache.monthIndex(seconds: seconds + Self.expiryZoneOffset)
    }

    /// `seconds` rounded down to a whole second, clamped to ±1e13 (non-finite reads as 0).
    static func wholeSeconds(_ seconds: Double) -> Int64 {
        let clamped = seconds.isFinite ? max(-1.0e13, min(1.0e13, seconds)) : 0
        var whole = Int64(clamped)
        if Double(whole) > clamped { whole -= 1 }
        return whole
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
