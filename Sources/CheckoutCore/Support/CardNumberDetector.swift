/// The package's one card-number detector: finds anything a person could read as a full card
/// number, however it is written.
///
/// The rule, in the order it is applied:
/// 1. **Normalise.** A text is read as Unicode scalars. A *digit* is any scalar whose Unicode
///    `Numeric_Type` is `Decimal` (the digits of every script: `4`, `４`, `٤`, `४`, ...) or
///    `Digit` (superscript and circled digits: `⁴`, `④`), with a value 0–9. A *letter* is any
///    other alphabetic or numeric scalar. Everything else is a *separator*: spaces of every
///    width, tabs, line breaks, punctuation (`.`, `/`, `-`, `_`, ...), symbols, and format and
///    control characters such as the zero-width space, the zero-width joiner or the soft hyphen.
///    Every Unicode `Default_Ignorable_Code_Point` is a separator, letters among them too (the
///    Hangul fillers `ㅤ` U+3164, U+FFA0, U+115F, U+1160 render as blanks).
/// 2. **Join.** Digits form one run as long as at most 3 separators stand between two of them.
///    A letter, or a 4th separator in a row, ends the run.
/// 3. **Look.** A run holds a card number when some window of 12–19 consecutive digits passes the
///    Luhn check (12: Maestro issues 12-digit numbers). A card number glued to other digits is still found.
///
/// What it deliberately also finds (false positives, listed and pinned by the test table in
/// `CardNumberDetectorTableTests`): any digit run longer than 19 (its many windows almost surely
/// hold one passing Luhn), and some long numbers joined by separators, such as a space-separated
/// date and time (`2026-12-01 20:19:31` is 14 digits). UUIDs, ISO 8601 timestamps, phone
/// numbers, amounts and the package's own ids and cursors are not found (ids the package makes
/// are drawn again when they would be: see `SafeIdentifier`).
///
/// Every check that keeps card numbers out of storage, logs, messages and wire answers uses this
/// type (through `PaymentDataRedactor`, `VaultedPaymentMethodGuard` and `VaultDataGuard`); there
/// is no second detector. Time is linear in the text's length: each digit closes at most 8
/// windows, whose Luhn sums come from the last 19 digits only.
public enum CardNumberDetector {
    /// The fewest digits a card number has.
    public static let minimumDigits = 12
    /// The most digits a card number has.
    public static let maximumDigits = 19
    /// The most separators that may stand between two digits of one number.
    public static let maximumSeparatorRun = 3

    /// True when `text` holds something that reads as a full card number (see the type's rule).
    public static func containsCardNumber(_ text: String) -> Bool {
        // Fast path for ASCII text (nearly every real value): the same rule over bytes, and a
        // text with fewer than 12 digits is answered without reading it twice.
        var digits = 0
        var isASCII = true
        for byte in text.utf8 {
            if byte >= 0x80 { isASCII = false; break }
            if byte &- 0x30 < 10 { digits += 1 }
        }
        if isASCII && digits < minimumDigits { return false }
        var scanner = Scanner()
        return scanner.feed(text, isASCII: isASCII)
    }

    /// True when `texts` written one after another, with nothing between them, hold a card number:
    /// `containsCardNumber(texts.joined())` without making the joined text (a database record
    /// lays its values side by side, so its fields are checked this way).
    public static func containsCardNumber(concatenating texts: [String]) -> Bool {
        var scanner = Scanner()
        for text in texts where scanner.feed(text, isASCII: !text.utf8.contains { $0 >= 0x80 }) { return true }
        return false
    }

    /// The most digits in one run of `text`, runs joined as the rule joins them (up to 3
    /// separators between two digits). Stops counting once a run is longer than `limit`, so a
    /// caller refusing long runs pays for no more than it reads.
    public static func longestDigitRun(_ text: String, limit: Int = .max) -> Int {
        var scanner = Scanner()
        var longest = 0
        for scalar in text.unicodeScalars {
            _ = scanner.feed(scalarClass(scalar))
            longest = max(longest, scanner.digitsInRun)
            if longest > limit { return longest }
        }
        return longest
    }

    /// The digit runs of `text` that hold a card number: each range runs from the run's first
    /// digit to its last (separators inside included, around it excluded), with the run's digits.
    public static func cardNumberRuns(in text: String) -> [(range: Range<String.Index>, digits: [UInt8])] {
        var found: [(range: Range<String.Index>, digits: [UInt8])] = []
        var scanner = Scanner()
        var runDigits: [UInt8] = []
        var runStart = text.startIndex
        var runEnd = text.startIndex
        var runHasCard = false
        func endRun() {
            if runHasCard { found.append((runStart..<runEnd, runDigits)) }
            runDigits.removeAll(keepingCapacity: true)
            runHasCard = false
        }
        let scalars = text.unicodeScalars
        var index = scalars.startIndex
        while index < scalars.endIndex {
            let next = scalars.index(after: index)
            let kind = scalarClass(scalars[index])
            let continues = scanner.continuesRun(kind)
            if case .digit(let value) = kind {
                if !continues { endRun(); runStart = index }
                runDigits.append(value)
                runEnd = next
            } else if !continues {
                endRun()
            }
            if scanner.feed(kind) { runHasCard = true }
            index = next
        }
        endRun()
        return found
    }

    /// What one scalar is to the rule.
    @usableFromInline
    enum ScalarClass: Equatable {
        case digit(UInt8)
        case letter
        case separator
    }

    @inline(__always)
    static func asciiClass(_ byte: UInt8) -> ScalarClass {
        switch byte {
        case 0x30...0x39: return .digit(byte - 0x30)
        case 0x41...0x5A, 0x61...0x7A: return .letter
        default: return .separator
        }
    }

    static func scalarClass(_ scalar: Unicode.Scalar) -> ScalarClass {
        if scalar.isASCII { return asciiClass(UInt8(truncatingIfNeeded: scalar.value)) }
        let properties = scalar.properties
        // Invisible letters (the Hangul fillers U+115F, U+1160, U+3164, U+FFA0) are alphabetic,
        // yet render as blanks: every Default_Ignorable_Code_Point is a separator.
        if properties.isDefaultIgnorableCodePoint { return .separator }
        if let type = properties.numericType {
            if type == .decimal || type == .digit, let value = properties.numericValue,
               value >= 0, value <= 9, value.rounded() == value {
                return .digit(UInt8(value))
            }
            return .letter
        }
        return properties.isAlphabetic ? .letter : .separator
    }

    /// The streaming half of the rule: fed one scalar class at a time, it says when the digit
    /// just fed closes a 12–19 digit window that passes Luhn.
    struct Scanner {
        /// The last 19 digits of the current run, as a ring.
        private var ring: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                           UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)
            = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        /// Digits in the current run (0: no run).
        private var count = 0
        /// Separators since the run's last digit.
        private var separators = 0

        /// The digits of the current run (0 outside a run).
        var digitsInRun: Int { count }

        /// True when a scalar of this class keeps the current run going (a digit or separator
        /// within the limit) rather than starting a new one or ending it.
        func continuesRun(_ kind: ScalarClass) -> Bool {
            guard count > 0 else { return false }
            switch kind {
            case .digit: return separators <= CardNumberDetector.maximumSeparatorRun
            case .separator: return separators < CardNumberDetector.maximumSeparatorRun
            case .letter: return false
            }
        }

        /// Feeds every scalar of `text` (its bytes, when `isASCII`), carrying the run on from what
        /// was fed before; true as soon as a digit completes a card-number window.
        mutating func feed(_ text: String, isASCII: Bool) -> Bool {
            if isASCII {
                for byte in text.utf8 where feed(asciiClass(byte)) { return true }
            } else {
                for scalar in text.unicodeScalars where feed(scalarClass(scalar)) { return true }
            }
            return false
        }

        /// Feeds one scalar; true when it is a digit that completes a card-number window.
        @inline(__always)
        mutating func feed(_ kind: ScalarClass) -> Bool {
            switch kind {
            case .letter:
                count = 0
                return false
            case .separator:
                if count > 0 {
                    separators += 1
                    if separators > CardNumberDetector.maximumSeparatorRun { count = 0 }
                }
                return false
            case .digit(let value):
                if separators > CardNumberDetector.maximumSeparatorRun { count = 0 }
                separators = 0
                withUnsafeMutableBytes(of: &ring) { $0[count % 19] = value }
                count += 1
                return count >= CardNumberDetector.minimumDigits && closesLuhnWindow()
            }
        }

        /// True when a window of 12–19 digits ending at the last digit passes Luhn: walking back
        /// from the last digit, every second digit is doubled.
        private func closesLuhnWindow() -> Bool {
            withUnsafeBytes(of: ring) { ring in
                var sum = 0
                let available = min(count, CardNumberDetector.maximumDigits)
                for back in 0..<available {
                    var value = Int(ring[(count - 1 - back) % 19])
                    if back & 1 == 1 {
                        value &*= 2
                        if value > 9 { value &-= 9 }
                    }
                    sum &+= value
                    if back + 1 >= CardNumberDetector.minimumDigits && sum % 10 == 0 { return true }
                }
                return false
            }
        }
    }
}
