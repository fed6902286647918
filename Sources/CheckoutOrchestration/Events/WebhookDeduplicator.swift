import CheckoutCore
import CheckoutLocking
import Foundation

/// The receiver's side of "at least once": handles each webhook event id exactly once.
///
/// The sender retries until it sees a 2xx, so a receiver whose answer was lost gets the same
/// event again. Claim the event id before acting on it: `first` means act, then `complete`
/// (answer 2xx); `duplicate` means it was handled already (answer 2xx, do nothing);
/// `inProgress` means another delivery of it is being handled right now (answer 409 or 503 so
/// the sender tries later). When handling fails, `release` it so that a redelivery may claim it.
/// Ids are remembered for `retention` (default 48 h, past the sender's 24 h of retries), then
/// forgotten. In memory: a receiver with several instances keeps the ids in its database
/// instead (a unique index on the event id, inserted in the same transaction as the effect).
///
/// ```swift
/// switch dedup.claim(eventId: id) {
/// case .first: try apply(event); dedup.complete(eventId: id); return 200
/// case .duplicate: return 200
/// case .inProgress: return 409
/// }
/// ```
public final class WebhookDeduplicator: Sendable {
    /// What a claim found.
    public enum Claim: Sendable, Equatable {
        /// Never seen: handle it now.
        case first
        /// Handled already: acknowledge, do nothing.
        case duplicate
        /// Being handled by another delivery right now.
        case inProgress
    }

    private struct State {
        var handled: [String: Date] = [:]
        var inProgress: Set<String> = []
        var lastSweep = Date.distantPast
    }

    private let state = Locked(State())
    private let retention: TimeInterval

    /// A de-duplicator that remembers handled ids for `retention` seconds.
    public init(retention: TimeInterval = 48 * 3600) {
        self.retention = max(0, retention)
    }

    /// Claims `eventId` for handling.
    public func claim(eventId: String, now: Date = WallClock.system.now) -> Claim {
        state.withLock { state in
            sweep(&state, now: now)
            if state.handled[eventId] != nil { return .duplicate }
            if state.inProgress.contains(eventId) { return .inProgress }
            state.inProgress.insert(eventId)
            return .first
        }
    }

    /// Records `eventId` as handled: every later claim is `duplicate`.
    public func complete(eventId: String, now: Date = WallClock.system.now) {
        state.withLock { state in
            state.inProgress.remove(eventId)
            state.handled[eventId] = now
        }
    }

    /// Gives a claim back after handling failed: the next delivery claims it `first`.
    public func release(eventId: String) {
        _ = state.withLock { $0.inProgress.remove(eventId) }
    }

    /// Runs `handle` only for the first delivery of `eventId`: true when it ran now, false for a
    /// duplicate. An error from `handle` releases the claim and is rethrown; a delivery of an id
    /// being handled elsewhere throws `WebhookDeduplicator.InProgress`.
    public func handleOnce(eventId: String, now: Date = WallClock.system.now, _ handle: () throws -> Void) throws -> Bool {
        switch claim(eventId: eventId, now: now) {
        case .duplicate: return false
        case .inProgress: throw InProgress()
        case .first:
            do {
                try handle()
            } catch {
                release(eventId: eventId)
                throw error
            }
            complete(eventId: eventId, now: now)
            return true
        }
    }

    /// Another delivery of the same event id is being handled; answer so the sender retries.
    public struct InProgress: Error, Sendable, Equatable {}

    /// How many handled ids are remembered.
    public var rememberedCount: Int { state.withLock { $0.handled.count } }

    private func sweep(_ state: inout State, now: Date) {
        guard now.timeIntervalSince(state.lastSweep) >= 60 else { return }
        state.lastSweep = now
        let cutoff = now.addingTimeInterval(-retention)
        state.handled = state.handled.filter { $0.value >= cutoff }
    }
}
