import CSQLite
import Foundation

/// A statement's result columns by name: SQLite's names for them (the alias of `expr AS alias`,
/// else the column's own name), matched without regard to ASCII case as SQL matches identifiers.
/// A name two columns share (`a.id, b.id`) is ambiguous and never resolves: alias one of them.
struct ColumnIndexes {
    /// The columns' names, ASCII case folded, in result order.
    private let names: [String]
    let count: Int32

    init(_ handle: OpaquePointer) {
        count = sqlite3_column_count(handle)
        names = (0..<count).map { index in sqlite3_column_name(handle, index).map { Self.fold(String(cString: $0)) } ?? "" }
    }

    /// The index of `name`, nil when no column or more than one has it. A result has a few
    /// columns: comparing short names one by one is cheaper than hashing.
    func index(of name: String) -> Int32? {
        let key = Self.fold(name)
        var found: Int32?
        for (index, candidate) in names.enumerated() where candidate == key {
            guard found == nil else { return nil }
            found = Int32(index)
        }
        return found
    }

    /// Whether `name` is shared by several columns (for the error's message).
    func isAmbiguous(_ name: String) -> Bool {
        let key = Self.fold(name)
        return names.lazy.filter { $0 == key }.count > 1
    }

    /// ASCII lower case; names already in lower case (all of ours) are used as they are.
    private static func fold(_ name: String) -> String {
        guard name.utf8.contains(where: { $0 >= 65 && $0 <= 90 }) else { return name }
        return String(decoding: name.utf8.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, as: UTF8.self)
    }
}

extension Statement {
    /// The index of the result column named `name` (case-insensitive), for reading a column many
    /// times over many rows without looking its name up each time (`InstrumentRow` resolves its
    /// columns once per query this way). Throws `misuse` naming the column and the SQL when the
    /// result has no such column, or more than one.
    public func columnIndex(_ name: String) throws(SQLiteError) -> Int32 {
        if columnIndexCache == nil || columnIndexCache?.count != columnCount {
            columnIndexCache = ColumnIndexes(handle)
        }
        guard let indexes = columnIndexCache, let index = indexes.index(of: name) else {
            let why = columnIndexCache?.isAmbiguous(name) == true ? "is the name of several result columns" : "is not a result column"
            throw SQLiteError(.misuse, message: "'\(name)' \(why)", sql: sql)
        }
        return index
    }

    /// True when the named column is NULL.
    public func isNull(_ column: String) throws(SQLiteError) -> Bool { isNull(at: try columnIndex(column)) }

    /// The named column as a 64-bit integer (NULL reads as 0).
    public func int64(_ column: String) throws(SQLiteError) -> Int64 { int64(at: try columnIndex(column)) }

    /// The named column as an integer (NULL reads as 0).
    public func int(_ column: String) throws(SQLiteError) -> Int { int(at: try columnIndex(column)) }

    /// The named column as a Boolean (non-zero is true).
    public func bool(_ column: String) throws(SQLiteError) -> Bool { bool(at: try columnIndex(column)) }

    /// The named column as a double (NULL reads as 0).
    public func double(_ column: String) throws(SQLiteError) -> Double { double(at: try columnIndex(column)) }

    /// The named column as text (NULL reads as the empty string).
    public func string(_ column: String) throws(SQLiteError) -> String { string(at: try columnIndex(column)) }

    /// The named column as a blob (NULL reads as empty data).
    public func data(_ column: String) throws(SQLiteError) -> Data { data(at: try columnIndex(column)) }

    /// The named column as an integer, nil when NULL.
    public func optionalInt64(_ column: String) throws(SQLiteError) -> Int64? { optionalInt64(at: try columnIndex(column)) }

    /// The named column as an integer, nil when NULL.
    public func optionalInt(_ column: String) throws(SQLiteError) -> Int? { optionalInt(at: try columnIndex(column)) }

    /// The named column as a double, nil when NULL.
    public func optionalDouble(_ column: String) throws(SQLiteError) -> Double? { optionalDouble(at: try columnIndex(column)) }

    /// The named column as text, nil when NULL.
    public func optionalString(_ column: String) throws(SQLiteError) -> String? { optionalString(at: try columnIndex(column)) }

    /// The named column as a blob, nil when NULL.
    public func optionalData(_ column: String) throws(SQLiteError) -> Data? { optionalData(at: try columnIndex(column)) }
}
