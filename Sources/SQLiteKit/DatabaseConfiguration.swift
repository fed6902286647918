/// How SQLiteKit opens and configures a connection.
///
/// The defaults are the ones a client cache wants: WAL, foreign keys on, a 5 s busy timeout,
/// `synchronous = NORMAL` (durable across application crashes; in WAL mode the database stays
/// consistent after a power loss, only the latest commits may roll back).
public struct DatabaseConfiguration: Sendable {
    /// How long a connection waits for another connection's lock before failing with `busy`.
    public var busyTimeoutMilliseconds: Int32 = 5_000
    /// Whether to switch the database to write-ahead logging (needed for readers beside a writer).
    public var journalModeWAL = true
    /// Whether to set `synchronous = FULL` (an fsync per commit) instead of `NORMAL`.
    public var fullSynchronous = false
    /// Whether a missing database file is created.
    public var createIfMissing = true
    /// A cap on the database size in pages (`PRAGMA max_page_count`), for quotas and disk-full tests.
    public var maxPageCount: Int?
    /// How many reader connections a `DatabasePool` keeps at most.
    public var maximumReaderCount = 4
    /// Extra setup run on every connection after SQLiteKit's own (e.g. a pragma).
    public var prepareConnection: (@Sendable (Database) throws -> Void)?

    /// The default configuration.
    public init() {}
}
