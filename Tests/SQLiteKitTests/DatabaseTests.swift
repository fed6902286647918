import CSQLite
import Foundation
import SQLiteKit
import Testing

@Suite("Database")
struct DatabaseTests {
    @Test("a new connection uses WAL, foreign keys, a busy timeout and defensive mode")
    func configuration() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.path("db.sqlite"))
        let journal = try database.withStatement("PRAGMA journal_mode") { try $0.step() ? $0.string(at: 0) : "" }
        let foreignKeys = try database.withStatement("PRAGMA foreign_keys") { try $0.step() ? $0.int(at: 0) : -1 }
        let timeout = try database.withStatement("PRAGMA busy_timeout") { try $0.step() ? $0.int(at: 0) : -1 }
        #expect(journal == "wal")
        #expect(foreignKeys == 1)
        #expect(timeout == 5_000)
        // Defensive mode forbids writable_schema tricks.
        try database.execute("PRAGMA writable_schema = ON")
        try database.execute("CREATE TABLE t (x)")
        #expect(throws: SQLiteError.self) {
            try database.execute("UPDATE sqlite_schema SET sql = 'CREATE TABLE t (y)' WHERE name = 't'")
        }
    }

    enum Value: Sendable, CustomStringConvertible {
        case int(Int64), double(Double), text(String), blob(Data), null
        var description: String {
            switch self {
            case .int(let value): "int \(value)"
            case .double(let value): "double \(value)"
            case .text(let value): "text '\(value)'"
            case .blob(let value): "blob \(value.count) bytes"
            case .null: "null"
            }
        }
    }

    @Test("typed values survive a bind and read by index", arguments: [
        Value.int(0), .int(Int64.max), .int(Int64.min), .double(3.25), .double(-0.5), .text(""), .text("héllo • 世界"),
        .text("with\u{0}nul"), .blob(Data()), .blob(Data([0, 1, 2, 255])), .null,
    ])
    func roundTrip(_ value: Value) throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.path("db.sqlite"))
        try database.execute("CREATE TABLE t (v)")
        try database.run("INSERT INTO t (v) VALUES (?)") { statement in
            switch value {
            case .int(let number): try statement.bind(number, at: 1)
            case .double(let number): try statement.bind(number, at: 1)
            case .text(let text): try statement.bind(text, at: 1)
            case .blob(let data): try statement.bind(data, at: 1)
            case .null: try statement.bindNull(at: 1)
            }
        }
        try database.withStatement("SELECT v, typeof(v) FROM t") { (row: Statement) throws -> Void in
            #expect(try row.step())
            switch value {
            case .int(let number):
                #expect(row.int64(at: 0) == number)
                #expect(row.optionalInt64(at: 0) == number)
            case .double(let number):
                #expect(row.double(at: 0) == number)
            case .text(let text):
                #expect(row.string(at: 0) == text)
                #expect(row.string(at: 1) == "text")
            case .blob(let data):
                #expect(row.data(at: 0) == data)
                #expect(row.string(at: 1) == (data.isEmpty ? "blob" : "blob"))
            case .null:
                #expect(row.isNull(at: 0))
                #expect(row.optionalString(at: 0) == nil)
                #expect(row.optionalInt(at: 0) == nil)
            }
            #expect(try row.step() == false)
        }
    }

    @Test("optional binds of nil store NULL")
    func optionalNil() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.path("db.sqlite"))
        try database.execute("CREATE TABLE t (a, b, c, d)")
        try database.run("INSERT INTO t VALUES (?, ?, ?, ?)") {
            try $0.bind(String?.none, at: 1)
            try $0.bind(Int?.none, at: 2)
            try $0.bind(Double?.none, at: 3)
            try $0.bind(Data?.none, at: 4)
        }
        let nulls = try database.withStatement("SELECT count(*) FROM t WHERE a IS NULL AND b IS NULL AND c IS NULL AND d IS NULL") {
            try $0.step() ? $0.int(at: 0) : 0
        }
        #expect(nulls == 1)
    }

    @Test("cached statements are prepared once per SQL text")
    func statementCache() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.path("db.sqlite"))
        let first = try database.cachedStatement("SELECT 1")
        let second = try database.cachedStatement("SELECT 1")
        _ = try database.cachedStatement("SELECT 2")
        #expect(first === second)
        #expect(database.cachedStatementCount == 2)
    }

    @Test("prepare refuses scripts and empty SQL", arguments: ["SELECT 1; SELECT 2", "", "  ;  "])
    func prepareRefuses(_ sql: String) throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.path("db.sqlite"))
        let error = try #require(throws: SQLiteError.self) { try database.prepare(sql) }
        #expect(error.code == .misuse)
    }

    @Test("a trailing semicolon is fine")
    func trailingSemicolon() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.path("db.sqlite"))
        let statement = try database.prepare("SELECT 42;  \n")
        #expect(try statement.step())
        #expect(statement.int(at: 0) == 42)
    }

    @Test("errors carry the codes and the SQL but never the bound values")
    func errorsHideValues() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.path("db.sqlite"))
        try database.execute("CREATE TABLE t (secret TEXT UNIQUE)")
        let sql = "INSERT INTO t (secret) VALUES (?)"
        try database.run(sql) { try $0.bind("s3cret-value-4242", at: 1) }
        let error = try #require(throws: SQLiteError.self) {
            try database.run(sql) { try $0.bind("s3cret-value-4242", at: 1) }
        }
        #expect(error.code == .constraint)
        #expect(error.resultCode == SQLITE_CONSTRAINT)
        #expect(error.extendedResultCode == 2067) // SQLITE_CONSTRAINT_UNIQUE
        #expect(error.sql == sql)
        #expect(!error.description.contains("s3cret"))
        #expect(!error.message.contains("s3cret"))
    }

    struct Boom: Error {}

    @Test("a transaction commits on return and rolls back on any thrown error")
    func transactions() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.path("db.sqlite"))
        try database.execute("CREATE TABLE t (x INTEGER)")
        try database.transaction { try database.run("INSERT INTO t VALUES (1)") }
        #expect(throws: Boom.self) {
            try database.transaction {
                try database.run("INSERT INTO t VALUES (2)")
                throw Boom()
            }
        }
        let values = try database.withStatement("SELECT x FROM t ORDER BY x") { row in
            var values: [Int] = []
            while try row.step() { values.append(row.int(at: 0)) }
            return values
        }
        #expect(values == [1])
        #expect(database.isInTransaction == false)
    }

    @Test("transactions do not nest")
    func noNesting() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.path("db.sqlite"))
        let error = try #require(throws: SQLiteError.self) {
            try database.transaction { try database.transaction(.immediate) {} }
        }
        #expect(error.code == .misuse)
        #expect(database.isInTransaction == false)
    }

    @Test("a missing or unwritable directory is a cannot-open error", arguments: ["missing", "proc"])
    func cannotOpen(_ kind: String) throws {
        let directory = try TemporaryDirectory()
        // /proc cannot hold new files even for root, so it stands in for a read-only directory.
        let path = kind == "missing" ? directory.path("no/such/dir/db.sqlite") : "/proc/sqlitekit-\(UUID().uuidString).sqlite"
        let error = try #require(throws: SQLiteError.self) { try Database(path: path) }
        #expect(error.code == .cannotOpen)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("a file that is not a database is refused and left untouched")
    func notADatabase() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("notes.sqlite")
        let content = Data(String(repeating: "this is not a database, just some notes\n", count: 200).utf8)
        try content.write(to: URL(fileURLWithPath: path))
        let error = try #require(throws: SQLiteError.self) { try Database(path: path) }
        #expect(error.code == .notADatabase)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == content)
    }

    @Test("a full database (max_page_count) fails with disk-full and keeps committed data")
    func diskFull() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite")
        do {
            let database = try Database(path: path)
            try database.execute("CREATE TABLE t (x TEXT)")
            try database.run("INSERT INTO t VALUES ('kept')")
        }
        var configuration = DatabaseConfiguration()
        configuration.maxPageCount = 3
        let database = try Database(path: path, configuration: configuration)
        let error = try #require(throws: SQLiteError.self) {
            try database.transaction {
                for _ in 0..<200 {
                    try database.run("INSERT INTO t VALUES (?)") { try $0.bind(String(repeating: "x", count: 1_000), at: 1) }
                }
            }
        }
        #expect(error.code == .diskFull)
        #expect(database.isInTransaction == false)
        let rows = try database.withStatement("SELECT x FROM t") { row in
            var rows: [String] = []
            while try row.step() { rows.append(row.string(at: 0)) }
            return rows
        }
        #expect(rows == ["kept"])
    }
}
