import CheckoutPlatform

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
    public typealias Code = ErrorCode<StorageErrorDomain>

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
