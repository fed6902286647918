import CSQLite
import CheckoutPlatform

/// An error reported by SQLite or by SQLiteKit itself, with a stable code.
///
/// It carries the result codes, SQLite's message and the SQL text, but never the values bound to
/// the statement: the SQL only ever contains `?` placeholders, so an error can be logged without
/// leaking payment data. `Code` is an extensible struct, so new codes never break a `switch`.
public struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable, machine-readable classification of the failure (`disk-full`, `newer-schema`, ...).
    public typealias Code = ErrorCode<StorageErrorDomain>

    /// The classification of the failure.
    public let code: Code
    /// The primary SQLite result code (e.g. `SQLITE_FULL` = 13).
    public let resultCode: Int32
    /// The extended SQLite result code (e.g. `SQLITE_CONSTRAINT_UNIQUE`), equal to `resultCode` when none.
    public let extendedResultCode: Int32
    /// SQLite's (or SQLiteKit's) explanation. Never contains bound values.
    public let message: String
    /// The SQL text that failed, with `?` placeholders only; nil when no statement was involved.
    public let sql: String?

    /// Creates an error from an SQLite result code (primary or extended).
    public init(resultCode: Int32, message: String, sql: String? = nil) {
        self.resultCode = resultCode & 0xFF
        self.extendedResultCode = resultCode
        self.code = Code(primaryResultCode: resultCode & 0xFF)
        self.message = message
        self.sql = sql
    }

    /// Creates an error with an explicit code, for failures SQLiteKit detects itself.
    public init(_ code: Code, message: String, sql: String? = nil, resultCode: Int32 = SQLITE_ERROR) {
        self.code = code
        self.resultCode = resultCode & 0xFF
        self.extendedResultCode = resultCode
        self.message = message
        self.sql = sql
    }

    /// Code, extended result code, message and SQL: safe to log (no bound values).
    public var description: String {
        var text = "SQLite error \(code) (\(extendedResultCode)): \(message)"
        if let sql { text += " [SQL: \(sql)]" }
        return text
    }

    /// The error SQLite currently reports on `handle` for a failed call that returned `resultCode`.
    static func from(_ handle: OpaquePointer?, resultCode: Int32, sql: String?) -> SQLiteError {
        guard let handle else {
            return SQLiteError(resultCode: resultCode, message: String(cString: sqlite3_errstr(resultCode)), sql: sql)
        }
        let extended = sqlite3_extended_errcode(handle)
        // Prefer the extended code SQLite recorded when it matches the failing call's primary code.
        let code = (extended & 0xFF) == (resultCode & 0xFF) ? extended : resultCode
        let message = sqlite3_errmsg(handle).map { String(cString: $0) } ?? String(cString: sqlite3_errstr(resultCode))
        return SQLiteError(resultCode: code, message: message, sql: sql)
    }
}

extension ErrorCode where Domain == StorageErrorDomain {
    /// The code for a primary SQLite result code.
    init(primaryResultCode code: Int32) {
        switch code {
        case SQLITE_BUSY: self = .busy
        case SQLITE_LOCKED: self = .locked
        case SQLITE_FULL: self = .diskFull
        case SQLITE_CORRUPT: self = .corrupt
        case SQLITE_NOTADB: self = .notADatabase
        case SQLITE_CANTOPEN: self = .cannotOpen
        case SQLITE_READONLY: self = .readOnly
        case SQLITE_CONSTRAINT: self = .constraint
        case SQLITE_IOERR: self = .ioError
        case SQLITE_MISUSE: self = .misuse
        default: self = .other
        }
    }
}
