import CheckoutTestSupport
import Foundation
import SQLiteKit
import Testing

/// Reads by column name: the oracle is the table's own contents as inserted, read back through
/// columns listed in an order unlike the table's and unlike each other's.
@Suite("Reading columns by name")
struct ColumnNameTests {
    private func database() throws -> (TemporaryDirectory, Database) {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.path("db.sqlite"))
        try database.execute("""
            CREATE TABLE item (id TEXT PRIMARY KEY, count INTEGER NOT NULL, price REAL, note TEXT, blob BLOB, flag INTEGER NOT NULL);
            INSERT INTO item VALUES ('a', 3, 1.5, NULL, x'0102', 1);
            INSERT INTO item VALUES ('b', 7, NULL, 'hello', NULL, 0);
            """)
        return (directory, database)
    }

    @Test("each name reads its own column whatever the order the query lists them in")
    func namesFollowTheirColumns() throws {
        let (directory, database) = try database()
        _ = directory
        for order in [["id", "count", "price", "note", "blob", "flag"], ["flag", "blob", "note", "price", "count", "id"],
                      ["note", "id", "flag", "count", "blob", "price"]] {
            let rows = try database.withStatement("SELECT \(order.joined(separator: ", ")) FROM item ORDER BY id") { statement in
                var rows: [String] = []
                while try statement.step() {
                    rows.append(try "\(statement.string("id")) \(statement.int("count")) \(String(describing: statement.optionalDouble("price"))) "
                        + "\(String(describing: statement.optionalString("note"))) \(Array(statement.data("blob"))) \(statement.bool("flag"))")
                }
                return rows
            }
            #expect(rows == ["a 3 Optional(1.5) nil [1, 2] true", "b 7 nil Optional(\"hello\") [] false"], "order \(order)")
        }
    }

    @Test("an alias names its expression, and names match without regard to ASCII case")
    func aliasesAndCase() throws {
        let (directory, database) = try database()
        _ = directory
        let (total, newest) = try database.withStatement("SELECT sum(count) AS Total, max(id) AS newest_id FROM item") {
            _ = try $0.step()
            return (try $0.int64("total"), try $0.string("NEWEST_ID"))
        }
        #expect(total == 10)
        #expect(newest == "b")
    }

    @Test("a name no column has, or that two columns share, is a misuse naming it and the SQL")
    func missingAndAmbiguousNames() throws {
        let (directory, database) = try database()
        _ = directory
        let sql = "SELECT a.id, b.id, a.count FROM item a JOIN item b ON a.id = b.id"
        try database.withStatement(sql) { statement in
            _ = try statement.step()
            for (name, reason) in [("cuont", "is not a result column"), ("id", "is the name of several result columns")] {
                do {
                    _ = try statement.string(name)
                    Issue.record("'\(name)' was read")
                } catch let error as SQLiteError {
                    #expect(error.code == .misuse)
                    #expect(error.message == "'\(name)' \(reason)")
                    #expect(error.sql == sql)
                } catch {
                    Issue.record("'\(name)': \(error)")
                }
            }
            #expect(try statement.int("count") == 3)
        }
    }
}

/// Product code reads SQLite columns by name: no line in `Sources/` or `Plugins/` reads a column at
/// a literal position (`string(at: 0)`), which silently reads the wrong column once a query's
/// column list changes. SQLiteKit itself (where the by-name reads are built on the by-index ones)
/// is exempt.
@Suite struct ColumnReadsByNameTests {
    static let pattern = #"\.(isNull|int64|int|bool|double|string|data|optionalInt64|optionalInt|optionalDouble|optionalString|optionalData)\(at: *[0-9]"#

    static func readsByPosition(_ line: String) -> Bool {
        let code = line.trimmingCharacters(in: .whitespaces)
        return !code.hasPrefix("//") && code.range(of: pattern, options: .regularExpression) != nil
    }

    @Test func theDetectorSeesPositionalReadsOnly() {
        #expect(Self.readsByPosition("ids.append(statement.string(at: 0))"))
        #expect(Self.readsByPosition("return try $0.step() ? $0.optionalInt64(at: 2) : nil"))
        #expect(!Self.readsByPosition("ids.append(try statement.string(\"id\"))"))
        #expect(!Self.readsByPosition("row.optionalString(at: columns.network)"))
        #expect(!Self.readsByPosition("try statement.bind(id, at: 1)"))
        #expect(!Self.readsByPosition("/// `string(at: 0)` reads the first column"))
    }

    @Test func productCodeReadsColumnsByName() throws {
        let (files, found) = try ProductSourceLines.scan(exempt: ["Sources/SQLiteKit/"]) { line in
            Self.readsByPosition(line) ? ["a column read by position"] : []
        }
        #expect(files > 300, "scanned \(files) files")
        #expect(found.isEmpty, "columns read by position (read them by name): \(found)")
    }
}
