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

    /// Bytes written as letters `a`-`p` (two per byte): hex without digits.
    static func letters(_ bytes: some Collection<UInt8>) -> String {
        var scalars = String.UnicodeScalarView()
        for byte in bytes {
            scalars.append(Unicode.Scalar(UInt8(97) + (byte >> 4)))
            scalars.append(Unicode.Scalar(UInt8(97) + (byte & 0x0F)))
        }
        return String(scalars)
    }

    /// What the ledger stores for a payment's stable key: `sk_` and the SHA-256 of the key in
    /// letters. The key itself (a host's order id, a UUID) is never stored, so it can neither leak
    /// nor be masked into something else.
    static func stableKeyDigest(_ key: String) -> String {
        "sk_" + letters(Digest.sha256(Array(key.utf8)).prefix(20))
    }

    /// The body of an event about `intent` (the exact bytes POSTed), checked for card numbers.
    static func eventBody(id: String, type: String, intent: IntentRecord, at date: Date) throws -> Data {
        try eventBody(id: id, type: type, intent: intent, extra: [:], at: date)
    }

    /// The body of a capture, void or refund event: the payment's fields, the operation (`operation`,
    /// `operationAmount`, `operationStatus`, `rawCode`) and the money after it (`captured`, `refunded`).
    static func operationEventBody(id: String, type: String, intent: IntentRecord, operation: OperationRecord, reconciled: Bool,
                                   at date: Date) throws -> Data {
        try eventBody(id: id, type: type, intent: intent, extra: [
            "operation": operation.kind.rawValue, "operationAmount": operation.amount, "operationStatus": operation.status.rawValue,
            "operationSequence": operation.sequence, "rawCode": operation.rawCode ?? NSNull(),
            "captured": intent.balance?.captured ?? 0, "refunded": intent.refundedAmount, "reconciled": reconciled,
        ], at: date)
    }

    private static func eventBody(id: String, type: String, intent: IntentRecord, extra: [String: Any], at date: Date) throws -> Data {
        let last = intent.attempts.last { $0.status != .skipped }
        var data: [String: Any] = [
            "state": intent.state.rawValue, "route": intent.route, "amount": intent.amount, "currency": intent.currency,
            "methodType": intent.methodType, "processor": last?.processor ?? NSNull(),
            "category": last?.category?.rawValue ?? NSNull(), "rawCode": last?.rawCode ?? NSNull(),
            "attempts": intent.attempts.count,
        ]
        data.merge(extra) { $1 }
        let object: [String: Any] = ["id": id, "type": type, "paymentId": intent.id,
                                     "createdAt": ISO8601DateFormatter().string(from: date), "data": data]
        let body = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        guard !CardNumberDetector.containsCardNumber(String(decoding: body, as: UTF8.self)) else {
            throw LedgerError(.cardDataRefused, "an event body would hold a card number")
        }
        return body
    }
}
