/// The sync bookkeeping of one customer's vault.
public struct SyncState: Sendable, Equatable {
    /// The change-feed cursor to pull from next; nil before the first pull or after a reset.
    public var cursor: String?
    /// When a remote page was last applied (Unix milliseconds); nil if never.
    public var lastSyncedAt: Int64?

    /// Creates a sync state.
    public init(cursor: String?, lastSyncedAt: Int64?) {
        self.cursor = cursor
        self.lastSyncedAt = lastSyncedAt
    }
}
