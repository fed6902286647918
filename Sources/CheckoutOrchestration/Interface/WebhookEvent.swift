import Foundation

/// One event of a payment's life, written to the ledger's outbox in the same transaction as the
/// state change that produced it, and delivered (signed) to the merchant's webhook URL.
public struct WebhookEvent: Sendable, Codable, Equatable {
    /// The event types, spelled as on the wire.
    public static let types = ["payment.succeeded", "payment.failed", "payment.requires_action", "payment.unknown",
                               "payment.reconciled", "checkout.completed", "checkout.cancelled"]

    /// The unique event id (the receiver de-duplicates on it).
    public var id: String
    /// One of `WebhookEvent.types`.
    public var type: String
    /// The ledger's intent id (for a `checkout.*` event, the hosted checkout's id).
    public var paymentId: String
    /// When the event was written.
    public var createdAt: Date
    /// The exact JSON bytes that will be POSTed; never a card number (checked with `CardNumberDetector`).
    public var body: Data

    public init(id: String, type: String, paymentId: String, createdAt: Date, body: Data) {
        self.id = id
        self.type = type
        self.paymentId = paymentId
        self.createdAt = createdAt
        self.body = body
    }
}
