/// The local vault's database could not be opened, read or written: the storage errors of
/// `VaultStore` and of the `SyncEngine` calls that reach it.
///
/// The vault owns this type so that a host handles storage failures without importing the SQLite
/// wrapper underneath. `Code` is an extensible struct (like `CheckoutError` and `SyncError`), so a
/// new code never breaks a `switch`. The message is SQLite's explanation and the SQL text holds only
/// `?` placeholders: neither ever carries a bound value, so the error can be logged without leaking
/// payment data.
public struct VaultStorageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable, machine-readable classification of the failure (`disk-full`, `newer-schema`, ...).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The wire form of the code, stable across releases.
        public let rawValue: String
        init(_ rawValue: String) { self.rawValue = rawValue }

        /// Another connection held the database locked beyond the busy timeout.
        public static let busy = Code("busy")
        /// A table is locked within the store's own connection.
        public static let locked = Code("locked")
        /// The disk, or the configured page cap (`Configuration.maxPageCount`), is exhausted.
        public static let diskFull = Code("disk-full")
        /// The database file is damaged.
        public static let corrupt = Code("corrupt")
        /// The file exists but is not a vault database (not SQLite at all).
        public static let notADatabase = Code("not-a-database")
        /// The file or its directory cannot be opened or created.
        public static let cannotOpen = Code("cannot-open")
        /// The database cannot be written (a read-only file or directory).
        public static let readOnly = Code("read-only")
        /// A storage constraint (unique, check, foreign key, not null) was violated.
        public static let constraint = Code("constraint")
        /// The operating system reported an I/O error.
        public static let ioError = Code("io-error")
        /// The storage was used incorrectly (a bug, never a property of the data).
        public static let misuse = Code("misuse")
        /// The database records migrations this build does not know: it was written by a newer version.
        public static let newerSchema = Code("newer-schema")
        /// Any other storage failure; see `resultCode`.
        public static let other = Code("sqlite-error")

        /// The code's wire form.
        public var description: String { rawValue }
    }

    /// The classification of the failure.
    public let code: Code
    /// SQLite's extended result code (e.g. 13 for a full disk), for diagnostics beyond `code`.
    public let resultCode: Int32
    /// What failed, in SQLite's words. Never contains bound values.
    public let message: String
    /// The SQL text that failed, with `?` placeholders only; nil when no statement was involved.
    public let sql: String?

    /// Creates an error; `message` and `sql` must not hold payment data.
    public init(_ code: Code, message: String, sql: String? = nil, resultCode: Int32 = 1) {
        self.code = code
        self.message = message
        self.sql = sql
        self.resultCode = resultCode
    }

    /// Code, result code, message and SQL: safe to log (no bound values).
    public var description: String {
        var text = "SQLite error \(code) (\(resultCode)): \(message)"
        if let sql { text += " [SQL: \(sql)]" }
        return text
    }
}
