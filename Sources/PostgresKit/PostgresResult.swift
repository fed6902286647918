import CLibPQ

/// One `PGresult`, cleared when the value is released; values are read as text by row and column.
///
/// Not `Sendable`: it lives within one storage call on one thread.
public final class PostgresResult {
    private let handle: OpaquePointer

    init(_ handle: OpaquePointer) { self.handle = handle }

    deinit { PQclear(handle) }

    /// The number of rows.
    public var rowCount: Int { Int(PQntuples(handle)) }

    /// True when the value at `row`, `column` is SQL NULL.
    public func isNull(_ row: Int, _ column: Int) -> Bool { PQgetisnull(handle, Int32(row), Int32(column)) == 1 }

    /// The text of a value; "" for NULL (check `isNull` where NULL matters).
    public func string(_ row: Int, _ column: Int) -> String {
        guard let value = PQgetvalue(handle, Int32(row), Int32(column)) else { return "" }
        return String(cString: value)
    }

    /// The text of a value, or nil for NULL.
    public func optionalString(_ row: Int, _ column: Int) -> String? {
        isNull(row, column) ? nil : string(row, column)
    }

    /// A `bigint` value; throws on NULL or non-numeric text (a schema drift, never user input).
    public func int64(_ row: Int, _ column: Int) throws(PostgresError) -> Int64 {
        guard !isNull(row, column), let value = Int64(string(row, column)) else {
            throw PostgresError(.unexpectedResult, message: "column \(column) is not a bigint")
        }
        return value
    }

    /// A `bigint` value or nil for NULL.
    public func optionalInt64(_ row: Int, _ column: Int) throws(PostgresError) -> Int64? {
        isNull(row, column) ? nil : try int64(row, column)
    }

    /// A `boolean` value (`t` or `f` in text format).
    public func bool(_ row: Int, _ column: Int) throws(PostgresError) -> Bool {
        switch string(row, column) {
        case "t": return true
        case "f": return false
        default: throw PostgresError(.unexpectedResult, message: "column \(column) is not a boolean")
        }
    }
}
