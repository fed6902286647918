import Foundation

/// What a webhook deliverer needs from the ledger's outbox table. The SQLite and PostgreSQL ledgers
/// implement it; the outbox rows are written in the same transaction as the state change.
public protocol WebhookOutbox: Sendable {
    /// Events not yet delivered nor abandoned whose next attempt is due at `now`, oldest first.
    func dueEvents(now: Date, limit: Int) async throws -> [OutboxEntry]
    /// Records a successful delivery; the event is never handed out again.
    func markDelivered(eventId: String, at: Date) async throws
    /// Records a failed delivery and when to try again.
    func scheduleRetry(eventId: String, attempts: Int, nextAttemptAt: Date, lastError: String) async throws
    /// Gives up on an event (after the retry window); it is never handed out again.
    func markAbandoned(eventId: String, at: Date, lastError: String) async throws
}
