// TEMPORARY: the interface text of orch-shared.md, copied verbatim until ENGINE's
// "Orchestration interface:" commit lands on orch-engine; deleted at that merge.
import Foundation

public struct WebhookEvent: Sendable, Codable, Equatable {
    public var id: String
    public var type: String
    public var paymentId: String
    public var createdAt: Date
    public var body: Data
    public init(id: String, type: String, paymentId: String, createdAt: Date, body: Data) {
        self.id = id; self.type = type; self.paymentId = paymentId; self.createdAt = createdAt; self.body = body
    }
}

public protocol WebhookOutbox: Sendable {
    func dueEvents(now: Date, limit: Int) async throws -> [OutboxEntry]
    func markDelivered(eventId: String, at: Date) async throws
    func scheduleRetry(eventId: String, attempts: Int, nextAttemptAt: Date, lastError: String) async throws
    func markAbandoned(eventId: String, at: Date, lastError: String) async throws
}

public struct OutboxEntry: Sendable {
    public var event: WebhookEvent
    public var attempts: Int
    public var nextAttemptAt: Date
    public init(event: WebhookEvent, attempts: Int, nextAttemptAt: Date) {
        self.event = event; self.attempts = attempts; self.nextAttemptAt = nextAttemptAt
    }
}
