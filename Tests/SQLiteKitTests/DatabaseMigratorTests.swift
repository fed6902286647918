import Foundation
import SQLiteKit
import Testing

@Suite("DatabaseMigrator")
struct DatabaseMigratorTests {
    static func migrator(_ names: [String]) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for name in names {
            migrator.registerMigration(name) { database in
                try database.run("INSERT INTO log (name) VALUES (?)") { try $0.bind(name, at: 1) }
            }
        }
        return migrator
    }

    static func log(_ database: Database) throws -> [String] {
        try database.withStatement("SELECT name FROM log ORDER BY rowid") { row in
            var names: [String] = []
            while try row.step() { names.append(row.string(at: 0)) }
            return names
        }
    }

    @Test("migrations run once, in order, and are recorded")
    func runsOnce() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.path("db.sqlite"))
        try database.execute("CREATE TABLE log (name TEXT)")
        try Self.migrator(["a", "b"]).migrate(database)
        try Self.migrator(["a", "b"]).migrate(database)
        try Self.migrator(["a", "b", "c"]).migrate(database)
        #expect(try Self.log(database) == ["a", "b", "c"])
        #expect(try Self.migrator([]).appliedMigrations(database) == ["a", "b", "c"])
    }

    @Test("a database with unknown (newer) migrations is refused and left unchanged")
    func newerSchema() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.path("db.sqlite"))
        try database.execute("CREATE TABLE log (name TEXT)")
        try Self.migrator(["a", "b", "future"]).migrate(database)
        let error = try #require(throws: SQLiteError.self) { try Self.migrator(["a", "b", "c"]).migrate(database) }
        #expect(error.code == .newerSchema)
        #expect(error.message.contains("future"))
        #expect(try Self.log(database) == ["a", "b", "future"])
    }

    struct Boom: Error {}

    @Test("a failing migration rolls back every migration of the run")
    func failureRollsBack() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.path("db.sqlite"))
        try database.execute("CREATE TABLE log (name TEXT)")
        var migrator = Self.migrator(["a"])
        migrator.registerMigration("broken") { _ in throw Boom() }
        #expect(throws: Boom.self) { try migrator.migrate(database) }
        #expect(try Self.log(database) == [])
        #expect(try migrator.appliedMigrations(database) == [])
    }

    @Test("a name registered twice is a misuse")
    func duplicateNames() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.path("db.sqlite"))
        try database.execute("CREATE TABLE log (name TEXT)")
        let error = try #require(throws: SQLiteError.self) { try Self.migrator(["a", "a"]).migrate(database) }
        #expect(error.code == .misuse)
        #expect(try Self.log(database) == [])
    }
}
