internal import SQLiteKit

extension VaultStore {
    /// How the store opens its database file: the settings a host may tune.
    ///
    /// The vault owns this type so that a host never needs the SQLite wrapper underneath. The
    /// defaults suit a client cache: write-ahead logging, a 5 s busy timeout, `synchronous = NORMAL`
    /// (durable across application crashes; after a power loss only the latest commits may roll
    /// back), up to 4 reader connections, no size cap.
    public struct Configuration: Sendable {
        /// How long a call waits for another connection's lock before failing with `busy`.
        public var busyTimeoutMilliseconds: Int32 = 5_000
        /// Whether the database uses write-ahead logging (lets reads run beside a write).
        public var journalModeWAL = true
        /// Whether every commit is synced to disk (`synchronous = FULL`) instead of `NORMAL`.
        public var fullSynchronous = false
        /// Whether a missing database file is created (otherwise opening it fails with `cannotOpen`).
        public var createIfMissing = true
        /// A cap on the database size in pages, for quotas: a write beyond it fails with `diskFull`.
        public var maxPageCount: Int?
        /// How many reader connections the store keeps at most.
        public var maximumReaderCount = 4

        /// The default configuration.
        public init() {}

        /// The same settings in SQLiteKit's terms.
        var database: DatabaseConfiguration {
            var configuration = DatabaseConfiguration()
            configuration.busyTimeoutMilliseconds = busyTimeoutMilliseconds
            configuration.journalModeWAL = journalModeWAL
            configuration.fullSynchronous = fullSynchronous
            configuration.createIfMissing = createIfMissing
            configuration.maxPageCount = maxPageCount
            configuration.maximumReaderCount = maximumReaderCount
            return configuration
        }
    }
}
