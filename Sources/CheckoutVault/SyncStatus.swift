import CheckoutCore

/// A snapshot of the sync engine's state, published on `SyncEngine.status()`.
///
/// An `Equatable` value so observers (and tests) compare whole snapshots: what the engine is
/// doing, how many local changes wait to be pushed, and when the last round succeeded.
public struct SyncStatus: Sendable, Equatable, CustomStringConvertible {
    /// What the engine is doing.
    public enum Phase: Sendable, Equatable {
        /// No round is running and the last round of every scope succeeded (or none ran yet).
        case idle
        /// A round is running.
        case syncing
        /// The last round of some scope failed; the error says why (pending ops are kept).
        case offline(lastError: SyncError)
    }

    /// What the engine is doing.
    public var phase: Phase
    /// Local changes waiting to be pushed, over every scope the engine syncs.
    public var pendingCount: Int
    /// When a round last finished successfully (Unix milliseconds, from the engine's clock); nil if never.
    public var lastSyncedAt: Int64?
    /// True while the last successful round of some scope stopped before the end of its feed
    /// (`SyncReport.partial`: the page limit or time budget of a round): the cache is behind the
    /// server until a later round catches up from the stored cursor.
    public var isPartial: Bool
    /// When a round of each scope last finished successfully (Unix milliseconds, engine clock);
    /// a scope that never synced is absent. `lastSyncedAt` is the latest of these.
    public var lastSyncedAtByScope: [VaultScope: Int64]

    /// Creates a snapshot.
    public init(phase: Phase, pendingCount: Int, lastSyncedAt: Int64?, isPartial: Bool = false,
                lastSyncedAtByScope: [VaultScope: Int64] = [:]) {
        self.phase = phase
        self.pendingCount = pendingCount
        self.lastSyncedAt = lastSyncedAt
        self.isPartial = isPartial
        self.lastSyncedAtByScope = lastSyncedAtByScope
    }

    /// When a round of `scope` last finished successfully (Unix milliseconds); nil if never.
    public func lastSyncedAt(scope: VaultScope) -> Int64? { lastSyncedAtByScope[scope] }

    public var description: String {
        let phaseText: String
        switch phase {
        case .idle: phaseText = "idle"
        case .syncing: phaseText = "syncing"
        case .offline(let error): phaseText = "offline (\(error))"
        }
        return "\(phaseText), \(pendingCount) pending, last synced \(lastSyncedAt.map(String.init) ?? "never")"
            + (isPartial ? ", partial" : "")
    }
}
