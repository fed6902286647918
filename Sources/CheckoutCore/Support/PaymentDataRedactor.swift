/// Finds and hides full card numbers in free text.
///
/// The last line of defence behind the rule "never log or persist a full card number": every error
/// message and every `description` of a type that can hold payment data passes through here.
/// A run of 13–19 digits (spaces and dashes between digits allowed) that passes the Luhn check is
/// treated as a card number and replaced by its mask (first 6 and last 4 digits kept).
public enum PaymentDataRedactor {
    /// Returns `text` with every embedded card number masked.
    public static func redact(_ text: String) -> String {
        guard containsCardNumber(text) else { return text }
        var result = ""
        var run: [Character] = []      // the current digit run including separators
        var digits: [UInt8] = []       // digits of the current run

        func flush() {
            // Any 13–19 digit window passing Luhn makes the whole run a card number (as in
            // `containsCardNumber`): a card number glued to other digits must not slip through.
            if digits.count >= 13 && hasCardWindow(digits) {
                // Separators after the last digit belong to the surrounding text: keep them.
                let trailing = run.reversed().prefix { $0 == " " || $0 == "-" }
                result += CardMask.mask(digits: digits) + String(trailing.reversed())
            } else {
                result.append(contentsOf: run)
            }
            run.removeAll(keepingCapacity: true)
            digits.removeAll(keepingCapacity: true)
        }

        for character in text {
            if let ascii = character.asciiValue, ascii >= 48 && ascii <= 57 {
                run.append(character)
                digits.append(ascii - 48)
            } else if (character == " " || character == "-") && !digits.isEmpty {
                run.append(character)
            } else {
                flush()
                result.append(character)
            }
        }
        flush()
        return result
    }

    /// True when some 13–19 digit window of `run` passes Luhn.
    private static func hasCardWindow(_ run: [UInt8]) -> Bool {
        guard run.count >= 13 else { return false }
        for length in 13...min(19, run.count) {
            for start in 0...(run.count - length) where Luhn.isValid(run[start..<(start + length)]) {
                return true
            }
        }
        return false
    }

    /// True when `text` holds 13–19 consecutive digits (separators allowed) passing Luhn.
    public static func containsCardNumber(_ text: String) -> Bool {
        var digits: [UInt8] = []
        var candidates: [[UInt8]] = []
        for byte in text.utf8 {
            if byte >= 48 && byte <= 57 {
                digits.append(byte - 48)
            } else if (byte == 32 || byte == 45) && !digits.isEmpty {
                continue
            } else {
                if digits.count >= 13 { candidates.append(digits) }
                digits.removeAll(keepingCapacity: true)
            }
        }
        if digits.count >= 13 { candidates.append(digits) }
        for run in candidates {
            // Any 13–19 digit window of a longer run could be a card number.
            for length in 13...min(19, run.count) {
                for start in 0...(run.count - length) where Luhn.isValid(run[start..<(start + length)]) {
                    return true
                }
            }
        }
        return false
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
