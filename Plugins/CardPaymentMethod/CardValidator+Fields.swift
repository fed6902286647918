import CheckoutCore
import Foundation

extension CardValidator {
    /// The allowed length of a cardholder name, in characters after trimming.
    public static let cardholderNameLength = 2...50

    /// Validates a whole card entry and returns the field errors in form order.
    ///
    /// Nil for `cvv`, `expiry` or `cardholderName` skips that field; an empty value is `required`.
    public func validate(number: String, cvv: String? = nil, expiry: String? = nil,
                         cardholderName: String? = nil) -> CardValidationResult {
        let check = check(number: number, cvv: cvv, expiry: expiry)
        var errors = check.errors
        if let cardholderName, let code = Self.validateCardholderName(cardholderName) {
            errors.append(CardValidationError(field: .cardholderName, code: code))
        }
        return CardValidationResult(network: check.network, errors: errors, expiry: check.expiry)
    }

    /// Validates a cardholder name: trimmed, 2-50 characters, letters of any script, spaces, `-`,
    /// `'` (or the typographic `’`), with at least one letter. Empty is `required` when `required`.
    public static func validateCardholderName(_ name: String, required: Bool = true) -> CardValidationError.Code? {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { return required ? .required : nil }
        guard isPersonalName(trimmed, extra: []) else { return .invalidCardholderName }
        guard cardholderNameLength.contains(trimmed.count) else { return .invalidCardholderNameLength }
        return nil
    }

    /// True when `text` has only letters (any script), single spaces, `-`, `'`, `’` and `extra`,
    /// and at least one letter.
    static func isPersonalName(_ text: String, extra: Set<Character>) -> Bool {
        var hasLetter = false
        for character in text {
            if character.isLetter {
                hasLetter = true
            } else if character == " " || character == "-" || character == "'" || character == "\u{2019}"
                        || extra.contains(character) {
                continue
            } else {
                return false
            }
        }
        return hasLetter
    }
}
