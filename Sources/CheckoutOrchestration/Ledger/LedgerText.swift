import CheckoutCore
import CheckoutCrypto
import CheckoutJSON
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
        try eventBody(id: id, type: type, intent: intent, extra: [], at: date)
    }

    /// The body of a capture, void or refund event: the payment's fields, the operation (`operation`,
    /// `operationAmount`, `operationStatus`, `rawCode`) and the money after it (`captured`, `refunded`).
    static func operationEventBody(id: String, type: String, intent: IntentRecord, operation: OperationRecord, reconciled: Bool,
                                   at date: Date) throws -> Data {
        try eventBody(id: id, type: type, intent: intent, extra: [
            ("operation", .string(operation.kind.rawValue)), ("operationAmount", number(operation.amount)),
            ("operationStatus", .string(operation.status.rawValue)), ("operationSequence", number(operation.sequence)),
            ("rawCode", text(operation.rawCode)), ("captured", number(intent.balance?.captured ?? 0)),
            ("refunded", number(intent.refundedAmount)), ("reconciled", .bool(reconciled)),
        ], at: date)
    }

    /// The body of an event that is not a payment's state change: `{"id", "type", "createdAt", "data"}`.
    static func eventBody(id: String, type: String, data: JSONObject, at date: Date) throws -> Data {
        try checked(.object(["id": .string(id), "type": .string(type), "createdAt": .string(ISO8601DateFormatter().string(from: date)),
                             "data": .object(data)]))
    }

    private static func number(_ value: some BinaryInteger) -> JSONValue { .number(Double(value)) }
    private static func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }

    private static func eventBody(id: String, type: String, intent: IntentRecord, extra: [(String, JSONValue)], at date: Date) throws -> Data {
        let last = intent.attempts.last { $0.status != .skipped }
        var data: JSONObject = [
            "state": .string(intent.state.rawValue), "route": .string(intent.route), "amount": number(intent.amount),
            "currency": .string(intent.currency), "methodType": .string(intent.methodType), "processor": text(last?.processor),
            "category": text(last?.category?.rawValue), "rawCode": text(last?.rawCode), "attempts": number(intent.attempts.count),
        ]
        for (key, value) in extra { data[key] = value }
        let object: JSONValue = .object(["id": .string(id), "type": .string(type), "paymentId": .string(intent.id),
                                         "createdAt": .string(ISO8601DateFormatter().string(from: date)), "data": .object(data)])
        return try checked(object)
    }

    /// The bytes of an event body, refused when they would hold a card number.
    private static func checked(_ object: JSONValue) throws -> Data {
        let body = Data(JSONWriter.write(object))
        guard !CardNumberDetector.containsCardNumber(String(decoding: body, as: UTF8.self)) else {
            throw LedgerError(.cardDataRefused, "an event body would hold a card number")
        }
        return body
    }
}
