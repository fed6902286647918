/// Named schema migrations, applied in registration order and recorded in a table.
///
/// A migration is never edited once shipped: fix a mistake with a new migration. Opening a
/// database that records a migration this build does not know means a newer app version wrote
/// it; `migrate` then throws `SQLiteError.Code.newerSchema` and changes nothing.
public struct DatabaseMigrator: Sendable {
    /// The table recording applied migrations (name, applied time in Unix seconds).
    public static let tableName = "sqlitekit_migration"

    private var migrations: [(name: String, body: @Sendable (Database) throws -> Void)] = []

    /// An empty migrator.
    public init() {}

    /// Appends a migration. Names must be unique; `migrate` rejects duplicates.
    public mutating func registerMigration(_ name: String, _ body: @escaping @Sendable (Database) throws -> Void) {
        migrations.append((name, body))
    }

    /// The registered names in order.
    public var migrationNames: [String] { migrations.map(\.name) }

    /// Applies every registered migration not yet recorded, all in one immediate transaction.
    public func migrate(_ database: Database) throws {
        var seen = Set<String>()
        for migration in migrations where !seen.insert(migration.name).inserted {
            throw SQLiteError(.misuse, message: "migration '\(migration.name)' is registered twice")
        }
        try database.transaction(.immediate) {
            try database.execute("""
                CREATE TABLE IF NOT EXISTS \(Self.tableName) (
                    name TEXT NOT NULL PRIMARY KEY,
                    applied_at INTEGER NOT NULL
                ) WITHOUT ROWID
                """)
            let applied = try Self.appliedNames(database)
            let unknown = applied.subtracting(seen)
            guard unknown.isEmpty else {
                throw SQLiteError(.newerSchema,
                                  message: "the database was written by a newer version (unknown migrations: \(unknown.sorted().joined(separator: ", ")))")
            }
            for migration in migrations where !applied.contains(migration.name) {
                try migration.body(database)
                try database.run("INSERT INTO \(Self.tableName) (name, applied_at) VALUES (?, strftime('%s', 'now'))") {
                    try $0.bind(migration.name, at: 1)
                }
            }
        }
    }

    /// The names of the migrations recorded in `database` (empty for a new database).
    public func appliedMigrations(_ database: Database) throws -> Set<String> {
        let exists = try database.withStatement("SELECT count(*) AS n FROM sqlite_schema WHERE type = 'table' AND name = ?") {
            try $0.bind(Self.tableName, at: 1)
            return try $0.step() && $0.int64("n") > 0
        }
        return exists ? try Self.appliedNames(database) : []
    }

    private static func appliedNames(_ database: Database) throws -> Set<String> {
        try database.withStatement("SELECT name FROM \(tableName)") { statement in
            var names = Set<String>()
            while try statement.step() { names.insert(try statement.string("name")) }
            return names
        }
    }
}
