import CheckoutCore
import CheckoutCrypto
import Foundation

/// The one gate every value passes before the ledger or an event stores it: card numbers found by
/// `CardNumberDetector` are masked (`PaymentDataRedactor`), and an event body that would still hold
/// one is refused.
enum LedgerText {
    /// `text` with every card number masked (first 6 and last 4 digits at most).
    static func clean(_ text: String) -> String {
        CardNumberDetector.containsCardNumber(text) ? PaymentDataRedactor.redact(text) : text
    }

    static func clean(_ text: String?) -> String? { text.map(clean) }

    /// A fresh random id with a prefix (`pi_`, `evt_`), from libcrypto's generator.
    static func randomId(_ prefix: String) throws -> String {
        prefix + Hex.encode(try SecureRandom.bytes(12))
    }

    /// The body of an event about `intent` (the exact bytes POSTed), checked for card numbers.
    static func eventBody(id: String, type: String, intent: IntentRecord, at date: Date) throws -> Data {
        let last = intent.attempts.last { $0.status != .skipped }
        let data: [String: Any] = [
            "state": intent.state.rawValue, "route": intent.route, "amount": intent.amount, "currency": intent.currency,
            "methodType": intent.methodType, "processor": last?.processor ?? NSNull(),
            "category": last?.category?.rawValue ?? NSNull(), "rawCode": last?.rawCode ?? NSNull(),
            "attempts": intent.attempts.count,
        ]
        let object: [String: Any] = ["id": id, "type": type, "paymentId": intent.id,
                                     "createdAt": ISO8601DateFormatter().string(from: date), "data": data]
        let body = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        guard !CardNumberDetector.containsCardNumber(String(decoding: body, as: UTF8.self)) else {
            throw LedgerError(.cardDataRefused, "an event body would hold a card number")
        }
        return body
    }
}
