/// Hides long digit runs in theme error text, so an error never echoes a card number.
///
/// A theme file is merchant configuration, but a mistyped or hostile one can still carry a card
/// number in a token name or value, and `ThemeIssue` quotes both. CheckoutTheme does not depend on
/// CheckoutCore's `PaymentDataRedactor`, so it applies the simpler rule: every run of 13 or more
/// digits (spaces and dashes between digits allowed) has its digits replaced by `•`. No design
/// token needs such a number.
enum ThemeTextRedactor {
    /// `text` with every run of 13+ digits masked.
    static func redact(_ text: String) -> String {
        var digitCount = 0
        for byte in text.utf8 where byte >= 48 && byte <= 57 { digitCount += 1 }
        guard digitCount >= 13 else { return text }
        var result = ""
        var run: [Character] = []
        var digits = 0
        func flush() {
            if digits >= 13 {
                result += String(run.map { $0.isASCII && $0.isNumber ? "•" : $0 })
            } else {
                result.append(contentsOf: run)
            }
            run.removeAll()
            digits = 0
        }
        for character in text {
            if character.isASCII && character.isNumber {
                run.append(character)
                digits += 1
            } else if (character == " " || character == "-") && digits > 0 {
                run.append(character)
            } else {
                flush()
                result.append(character)
            }
        }
        flush()
        return result
    }
}
