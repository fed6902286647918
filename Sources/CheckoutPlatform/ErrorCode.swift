/// A stable, machine-readable error code: the one code type of the package's errors
/// (`CheckoutError.Code`, `SQLiteError.Code`, `LedgerError.Code`, `HTTPTransportError.Code`, ...).
///
/// `Domain` is a phantom type (usually the error itself), so the codes of two errors never mix or
/// compare equal by accident. The set of codes is open: each domain declares its codes as static
/// constants of a constrained extension, and a code added later never breaks a caller's `switch`
/// (which needs a `default`). `rawValue` is the code's wire form (kebab-case), stable across releases.
///
/// ```swift
/// public struct LedgerError: Error {
///     public typealias Code = ErrorCode<LedgerError>
///     public let code: Code
/// }
/// extension ErrorCode where Domain == LedgerError {
///     public static let notFound = Self("not-found")
/// }
/// ```
public struct ErrorCode<Domain>: Hashable, Sendable, CustomStringConvertible, RawRepresentable {
    /// The wire form of the code (`disk-full`, `not-found`).
    public let rawValue: String

    /// The code whose wire form is `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The code whose wire form is `rawValue` (how a domain declares its codes).
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// The wire form.
    public var description: String { rawValue }
}

/// The domain of storage failures, shared by the SQLite wrapper (`SQLiteError`) and the errors
/// that hand its failures on without exposing it (`VaultStorageError`): one set of codes, so a
/// failure keeps its code as it crosses from one to the other.
public enum StorageErrorDomain {}

extension ErrorCode where Domain == StorageErrorDomain {
    /// Another connection held the database locked beyond the busy timeout (`SQLITE_BUSY`).
    public static let busy = Self("busy")
    /// A table is locked within the same connection (`SQLITE_LOCKED`).
    public static let locked = Self("locked")
    /// The disk, or the configured page cap, is exhausted (`SQLITE_FULL`).
    public static let diskFull = Self("disk-full")
    /// The database file is damaged (`SQLITE_CORRUPT`).
    public static let corrupt = Self("corrupt")
    /// The file exists but is not a database (`SQLITE_NOTADB`).
    public static let notADatabase = Self("not-a-database")
    /// The file or its directory cannot be opened or created (`SQLITE_CANTOPEN`).
    public static let cannotOpen = Self("cannot-open")
    /// The database cannot be written (`SQLITE_READONLY`, or a read-write open fell back to read-only).
    public static let readOnly = Self("read-only")
    /// A constraint (unique, check, foreign key, not null) was violated (`SQLITE_CONSTRAINT`).
    public static let constraint = Self("constraint")
    /// The operating system reported an I/O error (`SQLITE_IOERR`).
    public static let ioError = Self("io-error")
    /// The storage was used incorrectly: a bug, never a property of the data (`SQLITE_MISUSE`).
    public static let misuse = Self("misuse")
    /// The database records migrations this build does not know: a newer version wrote it.
    public static let newerSchema = Self("newer-schema")
    /// Any other storage failure; the error's result code says more.
    public static let other = Self("sqlite-error")
}
