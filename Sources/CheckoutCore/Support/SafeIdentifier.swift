import Foundation

/// Random identifiers that can never be mistaken for a card number.
///
/// A UUID's dash-separated digit groups pass the card-number rule (12–19 digits, Luhn) now and then, and then the vault store and server rightly refuse the identifier. Every id that
/// is stored or sent (vault tokens, op ids) is drawn again until it holds no such run.
public enum SafeIdentifier {
    /// `prefix` followed by a lower-case random UUID, redrawn until it holds no card-number run.
    public static func random(prefix: String = "") -> String {
        while true {
            let candidate = prefix + UUID().uuidString.lowercased()
            if !PaymentDataRedactor.containsCardNumber(candidate) { return candidate }
        }
    }
}
