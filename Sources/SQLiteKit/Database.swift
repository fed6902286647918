import CSQLite
#if canImport(Glibc)
import Glibc
#endif

/// One SQLite connection: opens the file, configures it, prepares and caches statements.
///
/// Opened by the SQLite documentation's rules: `sqlite3_open_v2` with explicit flags, and the
/// handle is closed even when opening or configuring fails. The connection is opened with
/// `SQLITE_OPEN_NOMUTEX` (multi-thread mode): SQLite's per-connection mutex would only repeat
/// the guarantee SQLiteKit already gives, that a connection is used by one thread at a time
/// (`DatabasePool` hands each one out under a lock). For the same reason `Database` is not
/// `Sendable`: share a `DatabasePool`, not a connection.
public final class Database {
    /// The file path the connection was opened on.
    public let path: String
    /// The `sqlite3*` handle.
    let handle: OpaquePointer
    /// Prepared statements by SQL text, reused across calls.
    private var statementCache: [String: Statement] = [:]

    /// Opens (and, unless configured otherwise, creates) the database at `path`.
    ///
    /// A database this creates is mode 0600 (owner only, whatever the umask allows of that), and
    /// so are its `-wal`, `-shm` and journal files, which SQLite creates with the database's mode:
    /// the vault's files hold tokens and the server's cursor secret. An existing file keeps its mode.
    ///
    /// Throws `SQLiteError` with `cannotOpen` (missing or unwritable directory), `notADatabase`,
    /// `corrupt` or `readOnly` (the file can only be read) instead of opening a half-usable connection.
    public convenience init(path: String, configuration: DatabaseConfiguration = DatabaseConfiguration()) throws {
        try self.init(path: path, configuration: configuration, role: .writer)
    }

    /// What a connection is for: the writer sets up the file (WAL), a reader only reads.
    enum Role { case writer, reader }

    init(path: String, configuration: DatabaseConfiguration, role: Role) throws {
        guard sqlite3_threadsafe() != 0 else {
            throw SQLiteError(.misuse, message: "this SQLite library was built without thread safety")
        }
        var flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        if configuration.createIfMissing && role == .writer {
            flags |= SQLITE_OPEN_CREATE
            Self.createOwnerOnly(path)
        }
        var opened: OpaquePointer?
        let code = sqlite3_open_v2(path, &opened, flags, nil)
        guard let opened else {
            // SQLite could not even allocate a handle.
            throw SQLiteError(resultCode: code, message: "cannot allocate a connection")
        }
        guard code == SQLITE_OK else {
            let error = SQLiteError.from(opened, resultCode: code, sql: nil)
            sqlite3_close_v2(opened)
            throw error
        }
        do {
            try Self.configure(opened, configuration: configuration, role: role)
        } catch {
            sqlite3_close_v2(opened)
            throw error
        }
        self.path = path
        self.handle = opened
        // From here on `deinit` closes the handle if the hook throws.
        try configuration.prepareConnection?(self)
    }

    /// Creates `path` empty with mode 0600 unless it exists (an empty file is a new database to
    /// SQLite), so the database never exists with SQLite's default 0644. `:memory:` and the empty
    /// path (a temporary database) have no file.
    private static func createOwnerOnly(_ path: String) {
        guard !path.isEmpty, path != ":memory:" else { return }
        // A failure (the file exists, the directory is missing) is left to sqlite3_open_v2, which
        // opens the existing file or reports the error.
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor >= 0 { close(descriptor) }
    }

    deinit {
        statementCache.removeAll()
        // close_v2 defers the close until any statement still alive elsewhere is finalized.
        sqlite3_close_v2(handle)
    }

    private static func configure(_ handle: OpaquePointer, configuration: DatabaseConfiguration, role: Role) throws {
        sqlite3_extended_result_codes(handle, 1)
        try check(handle, sqlite3_busy_timeout(handle, configuration.busyTimeoutMilliseconds), sql: nil)
        // Defensive mode: no writable_schema, no direct shadow-table writes, no journal tampering.
        try check(handle, csqlite_enable_defensive(handle), sql: nil)
        try exec(handle, "PRAGMA foreign_keys = ON")
        try exec(handle, "PRAGMA trusted_schema = OFF")
        // Reading the schema reads the header: a non-SQLite or damaged file fails here, not later.
        try exec(handle, "SELECT count(*) FROM sqlite_schema")
        if role == .writer {
            if sqlite3_db_readonly(handle, "main") == 1 {
                throw SQLiteError(.readOnly, message: "the database file can only be opened read-only",
                                  resultCode: SQLITE_READONLY)
            }
            if configuration.journalModeWAL { try exec(handle, "PRAGMA journal_mode = WAL") }
            try exec(handle, configuration.fullSynchronous ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL")
            if let pages = configuration.maxPageCount {
                try exec(handle, "PRAGMA max_page_count = \(max(1, pages))")
            }
        } else {
            try exec(handle, "PRAGMA query_only = ON")
        }
    }

    private static func check(_ handle: OpaquePointer, _ code: Int32, sql: String?) throws {
        guard code == SQLITE_OK else { throw SQLiteError.from(handle, resultCode: code, sql: sql) }
    }

    private static func exec(_ handle: OpaquePointer, _ sql: String) throws {
        try check(handle, sqlite3_exec(handle, sql, nil, nil, nil), sql: sql)
    }

    // MARK: Statements

    /// Runs one or more SQL statements without parameters (schema scripts, pragmas).
    public func execute(_ sql: String) throws {
        try Self.exec(handle, sql)
    }

    /// Prepares a new, uncached statement. It is finalized when released.
    public func prepare(_ sql: String) throws -> Statement {
        try Statement(connection: handle, sql: sql, persistent: false)
    }

    /// A prepared statement from this connection's cache (prepared on first use), reset and with
    /// its bindings cleared. Prefer `withStatement`, which also resets it after use.
    public func cachedStatement(_ sql: String) throws -> Statement {
        if let statement = statementCache[sql] {
            statement.reset()
            statement.clearBindings()
            return statement
        }
        let statement = try Statement(connection: handle, sql: sql, persistent: true)
        statementCache[sql] = statement
        return statement
    }

    /// Runs `body` with a cached statement and resets it afterwards, so no read stays open.
    public func withStatement<T>(_ sql: String, _ body: (Statement) throws -> T) throws -> T {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        return try body(statement)
    }

    /// Runs a cached statement to completion after `bind` binds its parameters.
    public func run(_ sql: String, bind: (Statement) throws -> Void = { _ in }) throws {
        try withStatement(sql) { statement in
            try bind(statement)
            try statement.run()
        }
    }

    /// The number of prepared statements in the cache.
    public var cachedStatementCount: Int { statementCache.count }

    // MARK: State

    /// Rows changed by the most recent INSERT, UPDATE or DELETE.
    public var changes: Int { Int(sqlite3_changes64(handle)) }

    /// How many pages this connection has fetched, from its page cache or from the file, since it
    /// was opened. A statement that reads a bounded number of rows fetches a bounded number of
    /// pages however large its table grows: tests compare this count at two table sizes to prove
    /// that a hot statement does not scan.
    public var pageFetches: Int {
        var total = 0
        for counter in [SQLITE_DBSTATUS_CACHE_HIT, SQLITE_DBSTATUS_CACHE_MISS] {
            var current: Int32 = 0
            var highwater: Int32 = 0
            sqlite3_db_status(handle, counter, &current, &highwater, 0)
            total += Int(current)
        }
        return total
    }

    /// The rowid of the most recent successful INSERT.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// True while a transaction is open on this connection.
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    // MARK: Transactions

    /// How a transaction takes its locks.
    public enum TransactionKind: Sendable {
        /// Locks on first read or write (for read snapshots).
        case deferred
        /// Takes the write lock at BEGIN, so it never fails half-way with a lock upgrade (for writes).
        case immediate
        /// Like immediate; in WAL mode identical.
        case exclusive

        var beginSQL: String {
            switch self {
            case .deferred: "BEGIN DEFERRED"
            case .immediate: "BEGIN IMMEDIATE"
            case .exclusive: "BEGIN EXCLUSIVE"
            }
        }
    }

    /// Runs `body` in a transaction: commits when it returns, rolls back when anything throws.
    ///
    /// Transactions do not nest: calling this inside another transaction throws `misuse`.
    public func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        guard !isInTransaction else {
            throw SQLiteError(.misuse, message: "a transaction is already open on this connection", sql: kind.beginSQL)
        }
        try run(kind.beginSQL)
        do {
            let result = try body()
            try run("COMMIT")
            return result
        } catch {
            // COMMIT may fail (busy, disk full) and leave the transaction open; SQLite may also have
            // rolled back already (e.g. after SQLITE_FULL). Roll back only what is still open.
            if isInTransaction { sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
            throw error
        }
    }
}
