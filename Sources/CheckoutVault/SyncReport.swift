import CheckoutCore

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
    /// Set when the round stopped pulling before the end of the feed (the server still announced
    /// more): the pulled pages are applied and the next round resumes from the cursor. Nil when
    /// the round reached the end of the feed.
    public var partial: Partial?

    /// Why a round stopped pulling before the end of the feed.
    public enum Partial: Sendable, Equatable, CustomStringConvertible {
        /// `SyncEngine.Configuration.maxPagesPerRound` pages were pulled.
        case pageLimit(pages: Int)
        /// `SyncEngine.Configuration.roundTimeBudget` was spent.
        case timeBudget(Duration)

        /// `page limit (N pages)` or `time budget (D)`.
        public var description: String {
            switch self {
            case .pageLimit(let pages): "page limit (\(pages) pages)"
            case .timeBudget(let budget): "time budget (\(budget))"
            }
        }
    }

    /// True when the round stopped before the end of the feed (`partial` is set).
    public var isPartial: Bool { partial != nil }

    /// Scopes with queued ops that belong to another merchant than the remote's credentials: not
    /// synced (nothing sent, nothing pulled), their ops kept for that merchant's own credentials.
    public var foreignScopes: [VaultScope]

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
        self.foreignScopes = []
        self.partial = nil
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
        foreignScopes += other.foreignScopes
        partial = partial ?? other.partial
    }
}
