/// A second, deliberately simple card-number detector: the tests' oracle for `CardNumberDetector`.
///
/// It follows the written rule (see `CardNumberDetector`'s documentation) step by step, with no
/// shortcuts: turn the text into a list of digits, letters and separators; cut it into runs of
/// digits joined by at most 3 separators; then try every window of 12 to 19 digits of every run
/// with the textbook Luhn check. It shares no code with the product, so a fuzzer that compares
/// the two finds a bug in either.
public enum ReferenceCardNumberDetector {
    /// One normalised scalar.
    enum Token: Equatable {
        case digit(Int)
        case letter
        case separator
    }

    /// The rule's step 1: Unicode decimal digits (and `Numeric_Type=Digit`: superscripts, circled
    /// digits) are digits; other alphabetic or numeric scalars are letters; the rest separates.
    static func token(_ scalar: Unicode.Scalar) -> Token {
        // The Basic Multilingual Plane's answers are worked out once, by `classify` itself, and
        // looked up (the byte scans read megabytes, most of it decoded into non-ASCII scalars).
        scalar.value < 0x10000 ? planeZero[Int(scalar.value)] : classify(scalar)
    }

    /// `classify` of every scalar of plane 0 (surrogate code points are no scalars: never asked).
    private static let planeZero: [Token] = (0..<0x10000).map { value in
        Unicode.Scalar(UInt32(value)).map(classify) ?? .separator
    }

    private static let hangulFillers: Set<UInt32> = [0x115F, 0x1160, 0x3164, 0xFFA0]

    /// Step 1 for one scalar, from its Unicode properties.
    static func classify(_ scalar: Unicode.Scalar) -> Token {
        let properties = scalar.properties
        // What renders as nothing separates, whatever its category: the Hangul fillers are letters
        // (Lo) that show as blanks, listed by hand here, then every other default-ignorable.
        if hangulFillers.contains(scalar.value) || properties.isDefaultIgnorableCodePoint { return .separator }
        if let type = properties.numericType {
            if type == .decimal || type == .digit, let value = properties.numericValue,
               [0.0, 1, 2, 3, 4, 5, 6, 7, 8, 9].contains(value) {
                return .digit(Int(value))
            }
            return .letter
        }
        return properties.isAlphabetic ? .letter : .separator
    }

    /// The rule's step 2: the digit runs, each a list of digit values.
    public static func runs(_ text: String) -> [[Int]] {
        var runs: [[Int]] = []
        var current: [Int] = []
        var separatorsSinceDigit = 0
        for scalar in text.unicodeScalars {
            switch token(scalar) {
            case .digit(let value):
                if separatorsSinceDigit > 3 && !current.isEmpty {
                    runs.append(current)
                    current = []
                }
                current.append(value)
                separatorsSinceDigit = 0
            case .letter:
                if !current.isEmpty { runs.append(current) }
                current = []
                separatorsSinceDigit = 0
            case .separator:
                separatorsSinceDigit += 1
            }
        }
        if !current.isEmpty { runs.append(current) }
        return runs
    }

    /// The textbook Luhn check: from the right, double every second digit, subtract 9 from
    /// doubles above 9, and the sum must be a multiple of 10.
    public static func luhn(_ digits: [Int]) -> Bool {
        var sum = 0
        for (position, digit) in digits.reversed().enumerated() {
            if position % 2 == 1 {
                let doubled = digit * 2
                sum += doubled > 9 ? doubled - 9 : doubled
            } else {
                sum += digit
            }
        }
        return sum % 10 == 0
    }

    /// The rule's step 3: true when some run has a 12–19 digit window passing Luhn.
    public static func containsCardNumber(_ text: String) -> Bool {
        for run in runs(text) where run.count >= 12 {
            for start in 0..<run.count {
                for length in 12...19 where start + length <= run.count {
                    if luhn(Array(run[start..<(start + length)])) { return true }
                }
            }
        }
        return false
    }
}
