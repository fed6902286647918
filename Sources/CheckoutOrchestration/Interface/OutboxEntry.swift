import Foundation

/// An event waiting in the ledger's outbox, with its delivery bookkeeping.
public struct OutboxEntry: Sendable, Equatable {
    /// The event.
    public var event: WebhookEvent
    /// Delivery attempts so far.
    public var attempts: Int
    /// When the next delivery attempt is due.
    public var nextAttemptAt: Date

    public init(event: WebhookEvent, attempts: Int, nextAttemptAt: Date) {
        self.event = event
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
    }
}
