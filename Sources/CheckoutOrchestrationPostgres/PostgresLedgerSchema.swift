import PostgresKit

/// The ledger's PostgreSQL schema: named migrations recorded in `ledger_migration`, never edited
/// once shipped; applied under an advisory lock so two instances starting together do not race.
enum PostgresLedgerSchema {
    static let migrations: [(name: String, sql: String)] = [
        ("ledger-1", """
            CREATE TABLE payment_intent (
              id TEXT PRIMARY KEY, stable_key TEXT NOT NULL UNIQUE, route TEXT NOT NULL, state TEXT NOT NULL,
              method_type TEXT NOT NULL, amount BIGINT NOT NULL, currency TEXT NOT NULL, card TEXT,
              created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL);
            CREATE INDEX payment_intent_state ON payment_intent(state, created_at);
            CREATE INDEX payment_intent_created ON payment_intent(created_at);
            CREATE TABLE payment_attempt (
              intent_id TEXT NOT NULL REFERENCES payment_intent(id), sequence INTEGER NOT NULL,
              processor TEXT NOT NULL, idempotency_key TEXT NOT NULL, status TEXT NOT NULL, category TEXT,
              raw_code TEXT, processor_payment_id TEXT, authentication TEXT, note TEXT,
              started_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, PRIMARY KEY (intent_id, sequence));
            CREATE INDEX payment_attempt_processor ON payment_attempt(processor, started_at);
            CREATE TABLE outbox_event (
              seq BIGSERIAL PRIMARY KEY, id TEXT NOT NULL UNIQUE, type TEXT NOT NULL, payment_id TEXT NOT NULL,
              created_at BIGINT NOT NULL, body TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
              next_attempt_at BIGINT NOT NULL, delivered_at BIGINT, abandoned_at BIGINT, last_error TEXT);
            CREATE INDEX outbox_event_due ON outbox_event(next_attempt_at) WHERE delivered_at IS NULL AND abandoned_at IS NULL;
            CREATE INDEX outbox_event_payment ON outbox_event(payment_id, seq);
            """),
        // The merchant of each payment, so a key reused by another merchant is refused.
        ("ledger-2-merchant", "ALTER TABLE payment_intent ADD COLUMN merchant TEXT"),
        // Capture, void and refund; the money's rules are a constraint of the storage.
        ("ledger-3-operations", """
            ALTER TABLE payment_intent ADD COLUMN capture_mode TEXT NOT NULL DEFAULT 'automatic';
            CREATE TABLE payment_balance (
              intent_id TEXT PRIMARY KEY REFERENCES payment_intent(id), authorized BIGINT NOT NULL,
              captured BIGINT NOT NULL, refunded BIGINT NOT NULL,
              CONSTRAINT payment_balance_money CHECK (authorized >= 0 AND captured >= 0 AND captured <= authorized
                                                      AND refunded >= 0 AND refunded <= captured));
            CREATE TABLE payment_operation (
              intent_id TEXT NOT NULL REFERENCES payment_intent(id), sequence INTEGER NOT NULL, kind TEXT NOT NULL,
              amount BIGINT NOT NULL, status TEXT NOT NULL, operation_key TEXT NOT NULL UNIQUE, processor TEXT NOT NULL,
              processor_key TEXT NOT NULL, processor_operation_id TEXT, raw_code TEXT, created_at BIGINT NOT NULL,
              updated_at BIGINT NOT NULL, PRIMARY KEY (intent_id, sequence));
            CREATE INDEX payment_operation_open ON payment_operation(created_at) WHERE status IN ('pending', 'unknown');
            """),
    ]

    static func migrate(_ connection: PostgresConnection) throws {
        try connection.execute("BEGIN")
        do {
            try connection.execute("SELECT pg_advisory_xact_lock(18001800)")
            try connection.execute("CREATE TABLE IF NOT EXISTS ledger_migration (name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())")
            let applied = try connection.execute("SELECT name FROM ledger_migration")
            let names = Set((0..<applied.rowCount).map { applied.string($0, 0) })
            for migration in migrations where !names.contains(migration.name) {
                try connection.execute(migration.sql)
                try connection.execute(PostgresStatement(name: "ledger_migration_insert", sql: "INSERT INTO ledger_migration (name) VALUES ($1)"),
                                       [migration.name])
            }
            try connection.execute("COMMIT")
        } catch {
            _ = try? connection.execute("ROLLBACK")
            throw error
        }
    }
}
