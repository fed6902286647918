import CheckoutCore

/// The status rules of a `SyncEngine` as a value: what rounds and pending counts do to the
/// published `SyncStatus`. An event goes in through `handle(_:)`; the status to publish (when it
/// changed) comes out, numbered so that the engine can publish it after unlocking.
///
/// The rules:
/// - A started round makes the phase `.syncing` until every started round ended.
/// - A round that succeeds clears its scope's failure, sets the last sync time (overall and for the
///   scope) and whether its scope stopped before the end of the feed; once no scope has a failure
///   left, the last failure is cleared too.
/// - A round that fails records the failure for its scope and as the last failure (`.offline`
///   once no round runs); a cancelled round changes neither.
/// - Every round's end, and a separate count, may bring the pending count.
/// - A round's end with no round started is not one of the engine's rounds: it changes nothing.
struct SyncStatusMachine: Sendable, Equatable {
    /// What happened.
    enum Event: Sendable, Equatable {
        /// A round began.
        case roundStarted
        /// A round of `scope` succeeded at `at` (Unix milliseconds); `partial`: it stopped before
        /// the end of the feed; `pending`: the count read after it, if that read worked.
        case roundSucceeded(VaultScope, at: Int64, partial: Bool, pending: Int?)
        /// A round of `scope` ended with `failure` (nil: it was cancelled).
        case roundFailed(VaultScope, failure: SyncError?, pending: Int?)
        /// The pending count was read.
        case pendingCounted(Int)
    }

    /// A status to publish, with its place in the order of changes.
    struct Publication: Sendable, Equatable {
        /// Increases with every change: a publication with a lower revision than one already
        /// published is stale.
        let revision: UInt64
        let status: SyncStatus
    }

    private(set) var activeRounds = 0
    /// The failure of each scope whose last round failed.
    private(set) var failures: [VaultScope: SyncError] = [:]
    private(set) var lastFailure: SyncError?
    private(set) var lastSyncedAt: Int64?
    private(set) var lastSyncedAtByScope: [VaultScope: Int64] = [:]
    /// Scopes whose last successful round stopped before the end of the feed.
    private(set) var partialScopes: Set<VaultScope> = []
    private(set) var pendingCount = 0
    private(set) var revision: UInt64 = 0

    init(activeRounds: Int = 0, failures: [VaultScope: SyncError] = [:], lastFailure: SyncError? = nil,
         lastSyncedAt: Int64? = nil, lastSyncedAtByScope: [VaultScope: Int64] = [:],
         partialScopes: Set<VaultScope> = [], pendingCount: Int = 0, revision: UInt64 = 0) {
        self.activeRounds = activeRounds
        self.failures = failures
        self.lastFailure = lastFailure
        self.lastSyncedAt = lastSyncedAt
        self.lastSyncedAtByScope = lastSyncedAtByScope
        self.partialScopes = partialScopes
        self.pendingCount = pendingCount
        self.revision = revision
    }

    /// The status these facts make.
    var status: SyncStatus {
        let phase: SyncStatus.Phase
        if activeRounds > 0 {
            phase = .syncing
        } else if let lastFailure {
            phase = .offline(lastError: lastFailure)
        } else {
            phase = .idle
        }
        return SyncStatus(phase: phase, pendingCount: pendingCount, lastSyncedAt: lastSyncedAt,
                          isPartial: !partialScopes.isEmpty, lastSyncedAtByScope: lastSyncedAtByScope)
    }

    /// Applies `event`; returns the new status to publish, or nil when the status did not change.
    mutating func handle(_ event: Event) -> Publication? {
        let before = status
        switch event {
        case .roundStarted:
            activeRounds += 1
        case .roundSucceeded(let scope, let at, let partial, let pending):
            guard activeRounds > 0 else { return nil }
            activeRounds -= 1
            failures[scope] = nil
            if failures.isEmpty { lastFailure = nil }
            lastSyncedAt = at
            lastSyncedAtByScope[scope] = at
            if partial { partialScopes.insert(scope) } else { partialScopes.remove(scope) }
            if let pending { pendingCount = pending }
        case .roundFailed(let scope, let failure, let pending):
            guard activeRounds > 0 else { return nil }
            activeRounds -= 1
            if let failure {
                failures[scope] = failure
                lastFailure = failure
            }
            if let pending { pendingCount = pending }
        case .pendingCounted(let pending):
            pendingCount = pending
        }
        let after = status
        guard after != before else { return nil }
        revision += 1
        return Publication(revision: revision, status: after)
    }
}
