import Foundation
import SQLiteKit

/// The default `VaultServerStorage`: one SQLite file in WAL mode through SQLiteKit.
///
/// Every transaction runs on SQLiteKit's single writer connection in `BEGIN IMMEDIATE`, which
/// serialises writers, so sequences become visible in the order they were handed out; reads run
/// on SQLiteKit's reader connections in deferred transactions and never wait for a writer. Rows are
/// decoded by column index into plain structs (no `Codable` on the hot path).
public final class SQLiteVaultServerStorage: VaultServerStorage {
    private let pool: DatabasePool

    /// Opens (creating if needed) the database at `path` and applies the schema migrations.
    public init(path: String) throws {
        var configuration = DatabaseConfiguration()
        configuration.journalModeWAL = true
        pool = try DatabasePool(path: path, configuration: configuration)
        try pool.writeWithoutTransaction { database in try Self.migrator.migrate(database) }
    }

    /// The schema, as named migrations that are never edited once shipped.
    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-vault-server") { database in
            try database.execute("""
                CREATE TABLE instrument (
                    merchant TEXT NOT NULL,
                    customer TEXT NOT NULL,
                    id TEXT NOT NULL,
                    version INTEGER NOT NULL,
                    seq INTEGER NOT NULL,
                    deleted INTEGER NOT NULL,
                    is_default INTEGER NOT NULL,
                    method_json TEXT,
                    deleted_at INTEGER,
                    PRIMARY KEY (merchant, customer, id)
                ) WITHOUT ROWID;
                CREATE INDEX instrument_feed ON instrument (merchant, customer, seq);
                CREATE INDEX instrument_tombstone ON instrument (merchant, customer, deleted_at) WHERE deleted = 1;
                CREATE TABLE sequence_counter (id INTEGER PRIMARY KEY CHECK (id = 1), value INTEGER NOT NULL);
                INSERT INTO sequence_counter (id, value) VALUES (1, 0);
                CREATE TABLE purge_horizon (
                    merchant TEXT NOT NULL,
                    customer TEXT NOT NULL,
                    seq INTEGER NOT NULL,
                    PRIMARY KEY (merchant, customer)
                ) WITHOUT ROWID;
                CREATE TABLE op_log (
                    merchant TEXT NOT NULL,
                    customer TEXT NOT NULL,
                    op_id TEXT NOT NULL,
                    body_hash TEXT NOT NULL,
                    result_json TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    PRIMARY KEY (merchant, customer, op_id)
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v2-cursor-secret") { database in
            try database.execute("""
                CREATE TABLE cursor_secret (id INTEGER PRIMARY KEY CHECK (id = 1), secret TEXT NOT NULL);
                INSERT INTO cursor_secret (id, secret) VALUES (1, lower(hex(randomblob(32))));
                """)
        }
        // Ephemeral customer keys: the secret's HMAC only (letters a–p), unique and indexed for the
        // lookup that authenticates a bearer secret; (merchant, expires_at) for the purge.
        migrator.registerMigration("v3-ephemeral-keys") { database in
            try database.execute("""
                CREATE TABLE ephemeral_key (
                    id TEXT NOT NULL PRIMARY KEY,
                    merchant TEXT NOT NULL,
                    customer TEXT NOT NULL,
                    secret_hash TEXT NOT NULL UNIQUE,
                    scope TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    expires_at INTEGER NOT NULL,
                    revoked_at INTEGER
                ) WITHOUT ROWID;
                CREATE INDEX ephemeral_key_expiry ON ephemeral_key (merchant, expires_at);
                """)
        }
        // The background purge reads by age across every customer.
        migrator.registerMigration("v4-expiry-indexes") { database in
            try database.execute("""
                CREATE INDEX instrument_tombstone_age ON instrument (deleted_at) WHERE deleted = 1;
                CREATE INDEX op_log_age ON op_log (created_at);
                """)
        }
        // The per-customer caps read a customer's op records by age.
        migrator.registerMigration("v5-op-log-customer-age") { database in
            try database.execute("CREATE INDEX op_log_customer_age ON op_log (merchant, customer, created_at);")
        }
        return migrator
    }()

    /// Runs `body` atomically; see `VaultServerStorage.transaction`.
    public func transaction<T: Sendable>(_ body: (any VaultStorageTransaction) throws -> T) throws -> T {
        try pool.write { database in
            let sequences = SequenceBlock()
            let result = try body(Transaction(database: database, sequences: sequences))
            try sequences.store(database)
            return result
        }
    }

    /// The sequences one write transaction hands out: the counter is read at the first
    /// `nextSequence()` and written back once before the commit (a batch of ops costs two
    /// statements, not one per op). Writers are serialised (`BEGIN IMMEDIATE`), and a failed
    /// transaction rolls back, the counter with it, so sequences stay unique and increasing.
    private final class SequenceBlock {
        private var last: Int64?
        private var dirty = false

        func next(_ database: Database) throws -> Int64 {
            let current: Int64
            if let last {
                current = last
            } else {
                current = try database.withStatement("SELECT value FROM sequence_counter WHERE id = 1") { statement in
                    guard try statement.step() else { throw SQLiteError(.corrupt, message: "sequence_counter row is missing") }
                    return try statement.int64("value")
                }
            }
            last = current + 1
            dirty = true
            return current + 1
        }

        func store(_ database: Database) throws {
            guard dirty, let last else { return }
            try database.run("UPDATE sequence_counter SET value = ? WHERE id = 1") { try $0.bind(last, at: 1) }
        }
    }

    /// Runs `body` on a read-only snapshot; see `VaultServerStorage.read`.
    public func read<T: Sendable>(_ body: (any VaultStorageTransaction) throws -> T) throws -> T {
        try pool.read { database in
            try database.transaction(.deferred) { try body(Transaction(database: database, sequences: nil)) }
        }
    }

    /// The primitives over one open transaction of the writer connection.
    private struct Transaction: VaultStorageTransaction {
        let database: Database
        /// Write transactions only (nil for reads, which never hand out sequences).
        var sequences: SequenceBlock?

        private static let columns = "id, version, seq, deleted, is_default, method_json, deleted_at"

        /// The indexes of `columns` in a statement's result, resolved by name once per query.
        private struct Columns {
            let id, version, seq, deleted, isDefault, methodJSON, deletedAt: Int32

            init(_ statement: Statement) throws {
                id = try statement.columnIndex("id")
                version = try statement.columnIndex("version")
                seq = try statement.columnIndex("seq")
                deleted = try statement.columnIndex("deleted")
                isDefault = try statement.columnIndex("is_default")
                methodJSON = try statement.columnIndex("method_json")
                deletedAt = try statement.columnIndex("deleted_at")
            }

            func row(_ statement: Statement) -> InstrumentRecord {
                InstrumentRecord(id: statement.string(at: id), version: statement.int64(at: version),
                                 sequence: statement.int64(at: seq), deleted: statement.bool(at: deleted),
                                 isDefault: statement.bool(at: isDefault), methodJSON: statement.optionalString(at: methodJSON),
                                 deletedAt: statement.optionalInt64(at: deletedAt))
            }
        }

        private func rows(_ sql: String, _ bind: (Statement) throws -> Void) throws -> [InstrumentRecord] {
            try database.withStatement(sql) { statement in
                try bind(statement)
                var rows: [InstrumentRecord] = []
                let columns = try Columns(statement)
                while try statement.step() { rows.append(columns.row(statement)) }
                return rows
            }
        }

        func instrument(_ key: CustomerKey, id: String) throws -> InstrumentRecord? {
            try rows("SELECT \(Self.columns) FROM instrument WHERE merchant = ?1 AND customer = ?2 AND id = ?3") { statement in
                try statement.bind(key.merchant, at: 1)
                try statement.bind(key.customer, at: 2)
                try statement.bind(id, at: 3)
            }.first
        }

        func liveInstruments(_ key: CustomerKey) throws -> [InstrumentRecord] {
            try rows("""
                SELECT \(Self.columns) FROM instrument WHERE merchant = ?1 AND customer = ?2 AND deleted = 0
                ORDER BY is_default DESC, id
                """) { statement in
                try statement.bind(key.merchant, at: 1)
                try statement.bind(key.customer, at: 2)
            }
        }

        func changes(_ key: CustomerKey, after: Int64, limit: Int, maxBytes: Int) throws -> [InstrumentRecord] {
            try database.withStatement("""
                SELECT \(Self.columns) FROM instrument WHERE merchant = ?1 AND customer = ?2 AND seq > ?3
                ORDER BY seq LIMIT ?4
                """) { statement in
                try statement.bind(key.merchant, at: 1)
                try statement.bind(key.customer, at: 2)
                try statement.bind(after, at: 3)
                try statement.bind(max(0, limit), at: 4)
                var rows: [InstrumentRecord] = []
                var total = 0
                let columns = try Columns(statement)
                // Stepping stops after the row that crosses the bound: nothing more is loaded.
                while total <= maxBytes, try statement.step() {
                    let row = columns.row(statement)
                    total += row.feedBytes
                    rows.append(row)
                }
                return rows
            }
        }

        func put(_ key: CustomerKey, _ instrument: InstrumentRecord) throws {
            try database.run("""
                INSERT OR REPLACE INTO instrument (merchant, customer, id, version, seq, deleted, is_default, method_json, deleted_at)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
                """) { statement in
                try statement.bind(key.merchant, at: 1)
                try statement.bind(key.customer, at: 2)
                try statement.bind(instrument.id, at: 3)
                try statement.bind(instrument.version, at: 4)
                try statement.bind(instrument.sequence, at: 5)
                try statement.bind(instrument.deleted, at: 6)
                try statement.bind(instrument.isDefault, at: 7)
                try statement.bind(instrument.methodJSON, at: 8)
                try statement.bind(instrument.deletedAt, at: 9)
            }
        }

        func nextSequence() throws -> Int64 {
            if let sequences { return try sequences.next(database) }
            return try database.withStatement("UPDATE sequence_counter SET value = value + 1 WHERE id = 1 RETURNING value") { statement in
                guard try statement.step() else { throw SQLiteError(.corrupt, message: "sequence_counter row is missing") }
                let value = try statement.int64("value")
                while try statement.step() {}
                return value
            }
        }

        func hasTombstones(_ key: CustomerKey, deletedAtOrBefore: Int64) throws -> Bool {
            try database.withStatement("""
                SELECT 1 FROM instrument WHERE merchant = ?1 AND customer = ?2 AND deleted = 1 AND deleted_at <= ?3 LIMIT 1
                """) { statement in
                try statement.bind(key.merchant, at: 1)
                try statement.bind(key.customer, at: 2)
                try statement.bind(deletedAtOrBefore, at: 3)
                return try statement.step()
            }
        }

        func purgeHorizon(_ key: CustomerKey) throws -> Int64 {
            try database.withStatement("SELECT seq FROM purge_horizon WHERE merchant = ?1 AND customer = ?2") { statement in
                try statement.bind(key.merchant, at: 1)
                try statement.bind(key.customer, at: 2)
                return try statement.step() ? statement.int64("seq") : 0
            }
        }

        func cursorSecret() throws -> [UInt8] {
            try database.withStatement("SELECT secret FROM cursor_secret WHERE id = 1") { statement in
                guard try statement.step() else { throw SQLiteError(.corrupt, message: "the cursor secret is missing") }
                return Array(try statement.string("secret").utf8)
            }
        }

        func purgeTombstones(_ key: CustomerKey, deletedAtOrBefore: Int64) throws {
            let purgedMax = try database.withStatement("""
                SELECT MAX(seq) AS purged FROM instrument
                WHERE merchant = ?1 AND customer = ?2 AND deleted = 1 AND deleted_at <= ?3
                """) { statement -> Int64? in
                try statement.bind(key.merchant, at: 1)
                try statement.bind(key.customer, at: 2)
                try statement.bind(deletedAtOrBefore, at: 3)
                return try statement.step() ? statement.optionalInt64("purged") : nil
            }
            guard let purgedMax else { return }
            try database.run("""
                DELETE FROM instrument WHERE merchant = ?1 AND customer = ?2 AND deleted = 1 AND deleted_at <= ?3
                """) { statement in
                try statement.bind(key.merchant, at: 1)
                try statement.bind(key.customer, at: 2)
                try statement.bind(deletedAtOrBefore, at: 3)
            }
            try database.run("""
                INSERT INTO purge_horizon (merchant, customer, seq) VALUES (?1, ?2, ?3)
                ON CONFLICT (merchant, customer) DO UPDATE SET seq = MAX(seq, excluded.seq)
                """) { statement in
                try statement.bind(key.merchant, at: 1)
                try statement.bind(key.customer, at: 2)
                try statement.bind(purgedMax, at: 3)
            }
        }

        func purgeExpired(tombstonesDeletedAtOrBefore: Int64, opsCreatedAtOrBefore: Int64) throws {
            try database.run("""
                INSERT INTO purge_horizon (merchant, customer, seq)
                SELECT merchant, customer, MAX(seq) FROM instrument WHERE deleted = 1 AND deleted_at <= ?1
                GROUP BY merchant, customer
                ON CONFLICT (merchant, customer) DO UPDATE SET seq = MAX(seq, excluded.seq)
                """) { try $0.bind(tombstonesDeletedAtOrBefore, at: 1) }
            try database.run("DELETE FROM instrument WHERE deleted = 1 AND deleted_at <= ?1") {
                try $0.bind(tombstonesDeletedAtOrBefore, at: 1)
            }
            try database.run("DELETE FROM op_log WHERE created_at <= ?1") { try $0.bind(opsCreatedAtOrBefore, at: 1) }
        }

        func tombstoneCutoff(_ key: CustomerKey, keeping: Int) throws -> Int64? {
            try database.withStatement("""
                SELECT deleted_at FROM instrument WHERE merchant = ?1 AND customer = ?2 AND deleted = 1
                ORDER BY deleted_at DESC LIMIT 1 OFFSET ?3
                """) { statement in
                try statement.bind(key.merchant, at: 1)
                try statement.bind(key.customer, at: 2)
                try statement.bind(Int64(keeping), at: 3)
                return try statement.step() ? statement.optionalInt64("deleted_at") : nil
            }
        }

        func opRecordCutoff(_ key: CustomerKey, keeping: Int) throws -> Int64? {
            try database.withStatement("""
                SELECT created_at FROM op_log WHERE merchant = ?1 AND customer = ?2 ORDER BY created_at DESC LIMIT 1 OFFSET ?3
                """) { statement in
                try statement.bind(key.merchant, at: 1)
                try statement.bind(key.customer, at: 2)
                try statement.bind(Int64(keeping), at: 3)
                return try statement.step() ? statement.optionalInt64("created_at") : nil
            }
        }

        func purgeOpRecords(_ key: CustomerKey, createdAtOrBefore: Int64) throws {
            try database.run("DELETE FROM op_log WHERE merchant = ?1 AND customer = ?2 AND created_at <= ?3") { statement in
                try statement.bind(key.merchant, at: 1)
                try statement.bind(key.customer, at: 2)
                try statement.bind(createdAtOrBefore, at: 3)
            }
        }

        func opRecord(_ key: CustomerKey, opId: String) throws -> StoredOpRecord? {
            try database.withStatement("""
                SELECT body_hash, result_json, created_at FROM op_log WHERE merchant = ?1 AND customer = ?2 AND op_id = ?3
                """) { statement in
                try statement.bind(key.merchant, at: 1)
                try statement.bind(key.customer, at: 2)
                try statement.bind(opId, at: 3)
                guard try statement.step() else { return nil }
                return try StoredOpRecord(opId: opId, bodyHash: statement.string("body_hash"),
                                          resultJSON: statement.string("result_json"), createdAt: statement.int64("created_at"))
            }
        }

        func insertEphemeralKey(_ record: EphemeralKeyRecord) throws {
            try database.run("""
                INSERT INTO ephemeral_key (id, merchant, customer, secret_hash, scope, created_at, expires_at, revoked_at)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                """) { statement in
                try statement.bind(record.id, at: 1)
                try statement.bind(record.merchant, at: 2)
                try statement.bind(record.customer, at: 3)
                try statement.bind(record.secretHash, at: 4)
                try statement.bind(record.scope.rawValue, at: 5)
                try statement.bind(record.createdAt, at: 6)
                try statement.bind(record.expiresAt, at: 7)
                try statement.bind(record.revokedAt, at: 8)
            }
        }

        func ephemeralKey(secretHash: String) throws -> EphemeralKeyRecord? {
            try database.withStatement("""
                SELECT id, merchant, customer, scope, created_at, expires_at, revoked_at FROM ephemeral_key WHERE secret_hash = ?1
                """) { statement in
                try statement.bind(secretHash, at: 1)
                guard try statement.step() else { return nil }
                guard let scope = EphemeralKeyScope(rawValue: try statement.string("scope")) else {
                    throw SQLiteError(.corrupt, message: "an ephemeral key has an unknown scope")
                }
                return try EphemeralKeyRecord(id: statement.string("id"), merchant: statement.string("merchant"),
                                              customer: statement.string("customer"), secretHash: secretHash, scope: scope,
                                              createdAt: statement.int64("created_at"), expiresAt: statement.int64("expires_at"),
                                              revokedAt: statement.optionalInt64("revoked_at"))
            }
        }

        func revokeEphemeralKey(merchant: String, id: String, at: Int64) throws -> Bool {
            try database.withStatement("""
                UPDATE ephemeral_key SET revoked_at = coalesce(revoked_at, ?3) WHERE merchant = ?1 AND id = ?2 RETURNING id
                """) { statement in
                try statement.bind(merchant, at: 1)
                try statement.bind(id, at: 2)
                try statement.bind(at, at: 3)
                let found = try statement.step()
                while try statement.step() {}
                return found
            }
        }

        func purgeEphemeralKeys(merchant: String, expiredAtOrBefore: Int64) throws {
            try database.run("DELETE FROM ephemeral_key WHERE merchant = ?1 AND expires_at <= ?2") { statement in
                try statement.bind(merchant, at: 1)
                try statement.bind(expiredAtOrBefore, at: 2)
            }
        }

        func putOpRecord(_ key: CustomerKey, _ record: StoredOpRecord) throws {
            try database.run("""
                INSERT INTO op_log (merchant, customer, op_id, body_hash, result_json, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                """) { statement in
                try statement.bind(key.merchant, at: 1)
                try statement.bind(key.customer, at: 2)
                try statement.bind(record.opId, at: 3)
                try statement.bind(record.bodyHash, at: 4)
                try statement.bind(record.resultJSON, at: 5)
                try statement.bind(record.createdAt, at: 6)
            }
        }
    }
}
