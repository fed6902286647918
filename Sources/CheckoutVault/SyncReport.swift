/// What one sync round did, returned by `SyncEngine.syncNow()`.
///
/// The counts match the command line's JSON (`checkout vault sync --json`).
public struct SyncReport: Sendable, Equatable {
    /// Remote changes received (pages applied to the store; a change may be skipped by the store's rules).
    public var pulled: Int
    /// Local operations the server applied.
    public var pushed: Int
    /// Local operations the server refused (rejected or conflict) and that were dropped.
    public var rejected: Int
    /// Local operations still waiting after the round.
    public var pending: Int
    /// The change-feed cursor after the round (nil when the round covered several scopes).
    public var cursor: String?
    /// The refused operations, in the order the server answered.
    public var rejections: [SyncRejection]
    /// True when the server had forgotten the cursor (HTTP 410) and the round pulled from scratch.
    public var didReset: Bool

    /// Creates a report.
    public init(pulled: Int = 0, pushed: Int = 0, rejected: Int = 0, pending: Int = 0, cursor: String? = nil,
                rejections: [SyncRejection] = [], didReset: Bool = false) {
        self.pulled = pulled
        self.pushed = pushed
        self.rejected = rejected
        self.pending = pending
        self.cursor = cursor
        self.rejections = rejections
        self.didReset = didReset
    }

    /// Adds another scope's report (counts summed, the cursor dropped, rejections appended).
    mutating func merge(_ other: SyncReport) {
        pulled += other.pulled
        pushed += other.pushed
        rejected += other.rejected
        pending += other.pending
        cursor = nil
        rejections += other.rejections
        didReset = didReset || other.didReset
    }
}
