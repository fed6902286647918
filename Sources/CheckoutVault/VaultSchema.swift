internal import SQLiteKit

/// The vault store's schema, as named migrations. Shipped migrations are never edited.
enum VaultSchema {
    /// Every migration of the vault store, in order.
    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("2026-11-vault-v1") { database in
            try database.execute("""
                CREATE TABLE payment_instrument (
                    merchant_id TEXT NOT NULL,
                    customer_id TEXT NOT NULL,
                    token TEXT NOT NULL,
                    payment_method_type TEXT NOT NULL,
                    instrument_type TEXT NOT NULL,
                    network TEXT,
                    first6 TEXT CHECK (first6 IS NULL OR length(first6) <= 6),
                    last4 TEXT CHECK (last4 IS NULL OR length(last4) <= 4),
                    exp_month INTEGER,
                    exp_year INTEGER,
                    cardholder_name TEXT,
                    bin_networks TEXT,
                    bin_country TEXT,
                    bin_funding TEXT,
                    analytics_id TEXT NOT NULL,
                    is_default INTEGER NOT NULL DEFAULT 0 CHECK (is_default IN (0, 1)),
                    version INTEGER NOT NULL DEFAULT 0,
                    deleted INTEGER NOT NULL DEFAULT 0 CHECK (deleted IN (0, 1)),
                    last_used INTEGER NOT NULL DEFAULT 0,
                    updated INTEGER NOT NULL,
                    PRIMARY KEY (merchant_id, customer_id, token)
                ) WITHOUT ROWID;
                CREATE UNIQUE INDEX payment_instrument_one_default
                    ON payment_instrument (merchant_id, customer_id) WHERE is_default = 1 AND deleted = 0;
                CREATE TABLE outbox (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    op_id TEXT NOT NULL UNIQUE,
                    merchant_id TEXT NOT NULL,
                    customer_id TEXT NOT NULL,
                    kind TEXT NOT NULL CHECK (kind IN ('upsert', 'delete', 'setDefault')),
                    token TEXT NOT NULL,
                    payload TEXT,
                    base_version INTEGER NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    last_error TEXT,
                    created INTEGER NOT NULL
                );
                CREATE INDEX outbox_scope ON outbox (merchant_id, customer_id, token);
                CREATE TABLE sync_state (
                    merchant_id TEXT NOT NULL,
                    customer_id TEXT NOT NULL,
                    cursor TEXT,
                    last_synced INTEGER,
                    PRIMARY KEY (merchant_id, customer_id)
                ) WITHOUT ROWID;
                """)
        }
        // The server's default as this device last learned it (VaultStore+ServerDefault.swift).
        migrator.registerMigration("2026-12-vault-server-default") { database in
            try database.execute("""
                ALTER TABLE sync_state ADD COLUMN server_default TEXT;
                ALTER TABLE sync_state ADD COLUMN server_default_known INTEGER NOT NULL DEFAULT 0;
                """)
        }
        // Each customer's highest last-used stamp, so a save takes the next one by primary key
        // instead of `max(last_used)` over the customer's rows (VaultStore.reserveTicks).
        migrator.registerMigration("2026-12-vault-customer-last-used") { database in
            try database.execute("""
                CREATE TABLE customer_last_used (
                    merchant_id TEXT NOT NULL,
                    customer_id TEXT NOT NULL,
                    last_used INTEGER NOT NULL,
                    PRIMARY KEY (merchant_id, customer_id)
                ) WITHOUT ROWID;
                INSERT INTO customer_last_used (merchant_id, customer_id, last_used)
                    SELECT merchant_id, customer_id, max(last_used) FROM payment_instrument
                    GROUP BY merchant_id, customer_id HAVING max(last_used) > 0;
                """)
        }
        // Set when a push applied ops after the last complete pull: the default the device knows
        // may predate its own writes until a pull reaches the end of the feed again.
        migrator.registerMigration("2026-12-vault-server-default-stale") { database in
            try database.execute("ALTER TABLE sync_state ADD COLUMN server_default_stale INTEGER NOT NULL DEFAULT 0")
        }
        // The newest server state of instruments the pull had to set aside because local
        // operations on them were still queued (VaultStore+PulledAside.swift).
        migrator.registerMigration("2026-12-vault-pulled-aside") { database in
            try database.execute("""
                CREATE TABLE pulled_aside (
                    merchant_id TEXT NOT NULL,
                    customer_id TEXT NOT NULL,
                    token TEXT NOT NULL,
                    version INTEGER NOT NULL,
                    payload TEXT NOT NULL,
                    PRIMARY KEY (merchant_id, customer_id, token)
                ) WITHOUT ROWID;
                """)
        }
        // Rows a reset kept for their queued ops that the server once held, until the pull from the
        // start shows them (VaultStore+Sync.swift, resetSynced).
        migrator.registerMigration("2026-12-vault-reset-unconfirmed") { database in
            try database.execute("""
                CREATE TABLE reset_unconfirmed (
                    merchant_id TEXT NOT NULL,
                    customer_id TEXT NOT NULL,
                    token TEXT NOT NULL,
                    PRIMARY KEY (merchant_id, customer_id, token)
                ) WITHOUT ROWID;
                """)
        }
        // Who holds an external wallet account behind a saved agreement (PaymentInstrumentData.externalPayerInfo).
        migrator.registerMigration("2026-12-vault-external-payer") { database in
            try database.execute("""
                ALTER TABLE payment_instrument ADD COLUMN payer_id TEXT;
                ALTER TABLE payment_instrument ADD COLUMN payer_email TEXT;
                ALTER TABLE payment_instrument ADD COLUMN payer_first_name TEXT;
                ALTER TABLE payment_instrument ADD COLUMN payer_last_name TEXT;
                """)
        }
        // Clearing a customer's default looks at its default rows only (deleted or not), not at
        // every row of the customer: a pull clears it once per page.
        migrator.registerMigration("2026-12-vault-default-rows") { database in
            try database.execute("""
                CREATE INDEX payment_instrument_defaults ON payment_instrument (merchant_id, customer_id) WHERE is_default = 1;
                """)
        }
        return migrator
    }()
}
