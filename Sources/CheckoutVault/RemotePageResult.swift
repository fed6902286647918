/// What `VaultStore.applyRemotePage` did with a page of remote changes.
public struct RemotePageResult: Sendable, Equatable {
    /// Changes written to the local cache.
    public var applied: Int
    /// Changes skipped: not newer than the local row, or for a row with queued local operations.
    public var skipped: Int

    /// Creates a result.
    public init(applied: Int, skipped: Int) {
        self.applied = applied
        self.skipped = skipped
    }
}
