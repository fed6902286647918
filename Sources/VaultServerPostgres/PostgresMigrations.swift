import PostgresKit

/// The PostgreSQL schema of the vault server, as named migrations applied at start.
///
/// Each migration runs in its own transaction together with the row that records it in
/// `vault_schema_migrations`, so a crash never leaves one half-applied. Every start takes a
/// session-wide advisory lock (`pg_advisory_lock`) before looking at what is applied: two
/// instances starting at once apply each migration exactly once, the second one waiting and then
/// finding nothing left to do. Shipped migrations are never edited; changes come as new ones.
enum PostgresMigrations {
    /// A named schema step.
    struct Migration: Sendable {
        let name: String
        let sql: String
    }

    /// The advisory-lock key that serialises migrations ("CKVAULT1" as a 64-bit integer). It lives
    /// in the one-key space of advisory locks; customer locks use the two-key space, so the two
    /// can never collide.
    static let lockKey: Int64 = 0x434B_5641_554C_5431

    /// Every migration, oldest first.
    static let all: [Migration] = [
        Migration(name: "v1-vault-server", sql: """
            CREATE SEQUENCE vault_change_seq AS bigint;
            CREATE TABLE vault_instrument (
                merchant text NOT NULL,
                customer text NOT NULL,
                id text NOT NULL,
                version bigint NOT NULL,
                seq bigint NOT NULL,
                deleted boolean NOT NULL,
                is_default boolean NOT NULL,
                method_json text,
                deleted_at bigint,
                PRIMARY KEY (merchant, customer, id)
            );
            CREATE INDEX vault_instrument_feed ON vault_instrument (merchant, customer, seq);
            CREATE INDEX vault_instrument_tombstone ON vault_instrument (merchant, customer, deleted_at) WHERE deleted;
            CREATE TABLE vault_purge_horizon (
                merchant text NOT NULL,
                customer text NOT NULL,
                seq bigint NOT NULL,
                PRIMARY KEY (merchant, customer)
            );
            CREATE TABLE vault_op_log (
                merchant text NOT NULL,
                customer text NOT NULL,
                op_id text NOT NULL,
                body_hash text NOT NULL,
                result_json text NOT NULL,
                created_at bigint NOT NULL,
                PRIMARY KEY (merchant, customer, op_id)
            );
            """),
        // Two version-4 UUIDs from the server's strong random source: 244 random bits, as hex.
        Migration(name: "v2-cursor-secret", sql: """
            CREATE TABLE vault_cursor_secret (
                id integer PRIMARY KEY CHECK (id = 1),
                secret text NOT NULL
            );
            INSERT INTO vault_cursor_secret (id, secret)
                VALUES (1, replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''));
            """),
        // Ephemeral customer keys: the secret's HMAC only (letters a–p), unique and indexed for the
        // lookup that authenticates a bearer secret; (merchant, expires_at) for the purge.
        Migration(name: "v3-ephemeral-keys", sql: """
            CREATE TABLE vault_ephemeral_key (
                id text PRIMARY KEY,
                merchant text NOT NULL,
                customer text NOT NULL,
                secret_hash text NOT NULL UNIQUE,
                scope text NOT NULL,
                created_at bigint NOT NULL,
                expires_at bigint NOT NULL,
                revoked_at bigint
            );
            CREATE INDEX vault_ephemeral_key_expiry ON vault_ephemeral_key (merchant, expires_at);
            """),
        // The background purge reads by age across every customer.
        Migration(name: "v4-expiry-indexes", sql: """
            CREATE INDEX vault_instrument_tombstone_age ON vault_instrument (deleted_at) WHERE deleted;
            CREATE INDEX vault_op_log_age ON vault_op_log (created_at);
            """),
        // The per-customer caps read a customer's op records by age.
        Migration(name: "v5-op-log-customer-age", sql: """
            CREATE INDEX vault_op_log_customer_age ON vault_op_log (merchant, customer, created_at);
            """),
    ]

    /// Applies the missing migrations on `connection` under the migration lock; returns the names
    /// applied by this call (empty when another instance, or an earlier start, applied them).
    @discardableResult
    static func migrate(_ connection: PostgresConnection, migrations: [Migration] = all) throws(PostgresError) -> [String] {
        try connection.execute("SELECT pg_advisory_lock(\(lockKey))")
        do {
            let applied = try apply(connection, migrations)
            try connection.execute("SELECT pg_advisory_unlock(\(lockKey))")
            return applied
        } catch {
            // The lock is per session: release it even after a failure (or the closing
            // connection releases it when the unlock cannot be sent).
            _ = try? connection.execute("ROLLBACK")
            _ = try? connection.execute("SELECT pg_advisory_unlock(\(lockKey))")
            throw error
        }
    }

    private static func apply(_ connection: PostgresConnection, _ migrations: [Migration]) throws(PostgresError) -> [String] {
        try connection.execute("""
            CREATE TABLE IF NOT EXISTS vault_schema_migrations (
                name text PRIMARY KEY,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """)
        let done = try connection.execute("SELECT name FROM vault_schema_migrations")
        let names = Set((0..<done.rowCount).map { done.string($0, 0) })
        var applied: [String] = []
        for migration in migrations where !names.contains(migration.name) {
            try connection.execute("BEGIN")
            try connection.execute(migration.sql)
            try connection.execute(insertStatement, [migration.name])
            try connection.execute("COMMIT")
            applied.append(migration.name)
        }
        return applied
    }

    private static let insertStatement = PostgresStatement(
        name: "vault_record_migration", sql: "INSERT INTO vault_schema_migrations (name) VALUES ($1)")
}
