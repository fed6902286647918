import CheckoutLocking
import CheckoutOrchestration
import Foundation

/// A `WebhookOutbox` in memory, for the deliverer's tests: keeps every call it gets.
final class InMemoryWebhookOutbox: WebhookOutbox {
    enum Fate: Equatable { case pending, delivered(Date), abandoned(Date, String) }

    struct Row {
        var entry: OutboxEntry
        var fate: Fate = .pending
        var retries: [(at: Date, attempts: Int, next: Date, error: String)] = []
    }

    private let rows = Locked<[String: Row]>([:])
    private let order = Locked<[String]>([])

    init(events: [WebhookEvent]) {
        for event in events { add(event) }
    }

    func add(_ event: WebhookEvent) {
        rows.withLock { $0[event.id] = Row(entry: OutboxEntry(event: event, attempts: 0, nextAttemptAt: event.createdAt)) }
        order.withLock { $0.append(event.id) }
    }

    func row(_ id: String) -> Row? { rows.withLock { $0[id] } }
    var allRows: [Row] { let ids = order.withLock { $0 }; return rows.withLock { rows in ids.compactMap { rows[$0] } } }
    var pendingCount: Int { rows.withLock { $0.values.filter { $0.fate == .pending }.count } }
    /// The earliest next attempt of a pending event.
    var nextDue: Date? { rows.withLock { $0.values.filter { $0.fate == .pending }.map(\.entry.nextAttemptAt).min() } }

    func dueEvents(now: Date, limit: Int) async throws -> [OutboxEntry] {
        let ids = order.withLock { $0 }
        return rows.withLock { rows in
            Array(ids.compactMap { rows[$0] }.filter { $0.fate == .pending && $0.entry.nextAttemptAt <= now }.map(\.entry).prefix(limit))
        }
    }

    func markDelivered(eventId: String, at: Date) async throws {
        rows.withLock { $0[eventId]?.fate = .delivered(at) }
    }

    func scheduleRetry(eventId: String, attempts: Int, nextAttemptAt: Date, lastError: String) async throws {
        rows.withLock { rows in
            rows[eventId]?.entry.attempts = attempts
            rows[eventId]?.retries.append((Date(), attempts, nextAttemptAt, lastError))
            rows[eventId]?.entry.nextAttemptAt = nextAttemptAt
        }
    }

    func markAbandoned(eventId: String, at: Date, lastError: String) async throws {
        rows.withLock { $0[eventId]?.fate = .abandoned(at, lastError) }
    }
}
