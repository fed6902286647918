/// Finds and hides full card numbers in free text.
///
/// The last line of defence behind the rule "never log or persist a full card number": every error
/// message and every `description` of a type that can hold payment data passes through here.
/// What counts as a card number is `CardNumberDetector`'s rule (digits of any script, up to 3
/// separators of any kind between them, a 12–19 digit window passing Luhn); each run holding one
/// is replaced by its mask (first 6 and last 4 digits kept, ASCII digits).
public enum PaymentDataRedactor {
    /// Returns `text` with every embedded card number masked.
    public static func redact(_ text: String) -> String {
        guard CardNumberDetector.containsCardNumber(text) else { return text }
        // Run bounds are scalar positions (a digit may share a Character with a combining mark or
        // a joiner), so the text is cut in its scalar view, never rounded to Characters.
        let scalars = text.unicodeScalars
        var result = String.UnicodeScalarView()
        var position = scalars.startIndex
        for run in CardNumberDetector.cardNumberRuns(in: text) {
            result += scalars[position..<run.range.lowerBound]
            result += CardMask.mask(digits: run.digits).unicodeScalars
            position = run.range.upperBound
        }
        result += scalars[position...]
        return String(result)
    }

    /// True when `text` holds a full card number by `CardNumberDetector`'s rule.
    public static func containsCardNumber(_ text: String) -> Bool {
        CardNumberDetector.containsCardNumber(text)
    }
}

/// The Luhn (mod 10) check digit algorithm.
public enum Luhn {
    /// True when the digit sequence (values 0–9) passes the Luhn check.
    @inlinable
    public static func isValid<C: BidirectionalCollection>(_ digits: C) -> Bool where C.Element == UInt8 {
        var sum = 0
        var double = false
        for digit in digits.reversed() {
            var value = Int(digit)
            if double {
                value &*= 2
                if value > 9 { value &-= 9 }
            }
            sum &+= value
            double.toggle()
        }
        return sum % 10 == 0
    }
}

/// Card-number masking: the only form in which a card number may be shown or stored.
public enum CardMask {
    /// The character that replaces each hidden digit.
    public static let maskCharacter: Character = "•"

    /// Masks digits keeping at most the first 6 and the last 4. A partial number (fewer than 13
    /// digits, e.g. while typing) reveals fewer trailing digits, so at least 3 stay hidden once
    /// more than 6 have been typed: `4242 4242 4242 4242` -> `424242••••••4242`.
    public static func mask(digits: some Collection<UInt8>) -> String {
        let all = Array(digits)
        let count = all.count
        let keepFirst = min(6, count)
        let keepLast = min(4, max(0, count - 9))
        var out = ""
        for (index, digit) in all.enumerated() {
            if index < keepFirst || index >= count - keepLast {
                out.append(Character(Unicode.Scalar(digit + 48)))
            } else {
                out.append(maskCharacter)
            }
        }
        return out
    }
}
