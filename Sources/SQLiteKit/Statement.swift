import CSQLite
import Foundation

/// A prepared SQL statement: owns its `sqlite3_stmt*` and finalizes it in `deinit`.
///
/// Values are bound by index (parameters from 1). Columns are read by name (`string("token")`,
/// see `Statement+ColumnNames.swift`), which resolves each name once per statement, so a query
/// can gain or reorder columns without its readers shifting; the by-index reads (columns from 0)
/// stay for the few results whose columns have no names worth giving. A statement belongs to one
/// connection and, like it, must only be used by one thread at a time, which is why it is not
/// `Sendable`.
public final class Statement {
    /// The SQL text, with `?` placeholders only.
    public let sql: String
    /// The prepared statement handle.
    let handle: OpaquePointer
    /// The owning connection's handle, for error messages.
    private let connection: OpaquePointer
    /// The result columns' indexes by name, built on the first read by name.
    var columnIndexCache: ColumnIndexes?

    /// Prepares exactly one SQL statement on `connection`.
    init(connection: OpaquePointer, sql: String, persistent: Bool) throws {
        var prepared: OpaquePointer?
        var trailing = false
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let resultCode = sql.withCString { text -> Int32 in
            var tail: UnsafePointer<CChar>?
            let code = sqlite3_prepare_v3(connection, text, -1, flags, &prepared, &tail)
            if code == SQLITE_OK, var cursor = tail {
                while cursor.pointee != 0 {
                    if !Self.isSpaceOrSemicolon(cursor.pointee) { trailing = true; break }
                    cursor += 1
                }
            }
            return code
        }
        guard resultCode == SQLITE_OK else {
            sqlite3_finalize(prepared)
            throw SQLiteError.from(connection, resultCode: resultCode, sql: sql)
        }
        guard let prepared else {
            throw SQLiteError(.misuse, message: "the SQL contains no statement", sql: sql)
        }
        guard !trailing else {
            sqlite3_finalize(prepared)
            throw SQLiteError(.misuse, message: "prepare takes one statement; use Database.execute for scripts", sql: sql)
        }
        self.sql = sql
        self.handle = prepared
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(handle)
    }

    private static func isSpaceOrSemicolon(_ character: CChar) -> Bool {
        character == 32 || character == 9 || character == 10 || character == 13 || character == 59
    }

    /// The number of `?` parameters.
    public var parameterCount: Int32 { sqlite3_bind_parameter_count(handle) }
    /// The number of result columns.
    public var columnCount: Int32 { sqlite3_column_count(handle) }

    // MARK: Running

    /// Advances to the next row: true when a row is available, false when the statement is done.
    @discardableResult
    public func step() throws -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw SQLiteError.from(connection, resultCode: code, sql: sql)
        }
    }

    /// Runs the statement to completion, ignoring any rows.
    public func run() throws {
        while try step() {}
    }

    /// Rewinds the statement so it can run again; bindings are kept.
    public func reset() {
        // The error of the last step was already thrown by `step`; reset's echo of it is not news.
        sqlite3_reset(handle)
    }

    /// Sets every parameter back to NULL.
    public func clearBindings() {
        sqlite3_clear_bindings(handle)
    }

    // MARK: Binding (parameter indexes start at 1)

    private func check(_ code: Int32) throws {
        guard code == SQLITE_OK else { throw SQLiteError.from(connection, resultCode: code, sql: sql) }
    }

    /// Binds NULL.
    public func bindNull(at index: Int32) throws {
        try check(sqlite3_bind_null(handle, index))
    }

    /// Binds a 64-bit integer.
    public func bind(_ value: Int64, at index: Int32) throws {
        try check(sqlite3_bind_int64(handle, index, value))
    }

    /// Binds an integer.
    public func bind(_ value: Int, at index: Int32) throws {
        try check(sqlite3_bind_int64(handle, index, Int64(value)))
    }

    /// Binds a Boolean as 0 or 1.
    public func bind(_ value: Bool, at index: Int32) throws {
        try check(sqlite3_bind_int64(handle, index, value ? 1 : 0))
    }

    /// Binds a double.
    public func bind(_ value: Double, at index: Int32) throws {
        try check(sqlite3_bind_double(handle, index, value))
    }

    /// Binds UTF-8 text (SQLite copies it).
    public func bind(_ value: String, at index: Int32) throws {
        var text = value
        let code = text.withUTF8 { buffer -> Int32 in
            guard let base = buffer.baseAddress, buffer.count > 0 else {
                // An empty buffer may have no address; a nil pointer would bind NULL, not "".
                return sqlite3_bind_text(handle, index, "", 0, csqlite_transient())
            }
            return base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                sqlite3_bind_text(handle, index, $0, Int32(buffer.count), csqlite_transient())
            }
        }
        try check(code)
    }

    /// Binds a blob (SQLite copies it).
    public func bind(_ value: Data, at index: Int32) throws {
        let code = value.withUnsafeBytes { buffer -> Int32 in
            guard let base = buffer.baseAddress, buffer.count > 0 else {
                return sqlite3_bind_zeroblob(handle, index, 0)
            }
            return sqlite3_bind_blob(handle, index, base, Int32(buffer.count), csqlite_transient())
        }
        try check(code)
    }

    /// Binds an optional integer (nil binds NULL).
    public func bind(_ value: Int64?, at index: Int32) throws {
        if let value { try bind(value, at: index) } else { try bindNull(at: index) }
    }

    /// Binds an optional integer (nil binds NULL).
    public func bind(_ value: Int?, at index: Int32) throws {
        if let value { try bind(value, at: index) } else { try bindNull(at: index) }
    }

    /// Binds an optional double (nil binds NULL).
    public func bind(_ value: Double?, at index: Int32) throws {
        if let value { try bind(value, at: index) } else { try bindNull(at: index) }
    }

    /// Binds optional text (nil binds NULL).
    public func bind(_ value: String?, at index: Int32) throws {
        if let value { try bind(value, at: index) } else { try bindNull(at: index) }
    }

    /// Binds an optional blob (nil binds NULL).
    public func bind(_ value: Data?, at index: Int32) throws {
        if let value { try bind(value, at: index) } else { try bindNull(at: index) }
    }

    // MARK: Reading columns of the current row (column indexes start at 0)

    /// True when the column is NULL.
    public func isNull(at index: Int32) -> Bool {
        sqlite3_column_type(handle, index) == SQLITE_NULL
    }

    /// The column as a 64-bit integer (NULL reads as 0).
    public func int64(at index: Int32) -> Int64 {
        sqlite3_column_int64(handle, index)
    }

    /// The column as an integer (NULL reads as 0).
    public func int(at index: Int32) -> Int {
        Int(sqlite3_column_int64(handle, index))
    }

    /// The column as a Boolean (non-zero is true).
    public func bool(at index: Int32) -> Bool {
        sqlite3_column_int64(handle, index) != 0
    }

    /// The column as a double (NULL reads as 0).
    public func double(at index: Int32) -> Double {
        sqlite3_column_double(handle, index)
    }

    /// The column as text (NULL reads as the empty string).
    public func string(at index: Int32) -> String {
        guard let text = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// The column as a blob (NULL reads as empty data).
    public func data(at index: Int32) -> Data {
        guard let bytes = sqlite3_column_blob(handle, index) else { return Data() }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(handle, index)))
    }

    /// The column as an integer, nil when NULL.
    public func optionalInt64(at index: Int32) -> Int64? {
        isNull(at: index) ? nil : int64(at: index)
    }

    /// The column as an integer, nil when NULL.
    public func optionalInt(at index: Int32) -> Int? {
        isNull(at: index) ? nil : int(at: index)
    }

    /// The column as a double, nil when NULL.
    public func optionalDouble(at index: Int32) -> Double? {
        isNull(at: index) ? nil : double(at: index)
    }

    /// The column as text, nil when NULL.
    public func optionalString(at index: Int32) -> String? {
        isNull(at: index) ? nil : string(at: index)
    }

    /// The column as a blob, nil when NULL.
    public func optionalData(at index: Int32) -> Data? {
        isNull(at: index) ? nil : data(at: index)
    }
}
