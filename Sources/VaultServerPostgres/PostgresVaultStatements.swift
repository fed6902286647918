import PostgresKit
import VaultServer

/// Every statement the PostgreSQL vault storage runs, prepared once per connection.
///
/// All values are `$n` parameters sent as text; PostgreSQL casts them to the column types.
enum PostgresVaultStatements {
    private static let columns = "id, version, seq, deleted, is_default, method_json, deleted_at"

    /// Serialises the writers of one customer until commit (see `PostgresVaultServerStorage`).
    /// The two-key form keeps customer locks apart from the one-key migration lock.
    static let lockCustomer = PostgresStatement(
        name: "vault_lock_customer", sql: "SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))")

    static let instrument = PostgresStatement(
        name: "vault_instrument", sql: """
            SELECT \(columns) FROM vault_instrument WHERE merchant = $1 AND customer = $2 AND id = $3
            """)

    /// The rows of several ids at once (`$3` a text array literal), for a large customer's batch.
    static let instrumentsById = PostgresStatement(
        name: "vault_instruments_by_id", sql: """
            SELECT \(columns) FROM vault_instrument WHERE merchant = $1 AND customer = $2 AND id = ANY($3::text[])
            """)

    /// Every row of a customer, tombstones included, up to `$3` of them (the transaction's cache).
    static let customerRows = PostgresStatement(
        name: "vault_customer_rows", sql: """
            SELECT \(columns) FROM vault_instrument WHERE merchant = $1 AND customer = $2 LIMIT $3
            """)

    static let liveInstruments = PostgresStatement(
        name: "vault_live_instruments", sql: """
            SELECT \(columns) FROM vault_instrument WHERE merchant = $1 AND customer = $2 AND NOT deleted
            ORDER BY is_default DESC, id COLLATE "C"
            """)

    /// A customer's changes after `$3` in feed order, at most `$4`, cut in the database after the row that brings the running total of
    /// `InstrumentRecord.feedBytes` (64 + 6 × id bytes + method JSON bytes) over `$5`: the
    /// window sum streams in feed order, so the result never holds much more than the bound.
    static let changesWithinBytes = PostgresStatement(
        name: "vault_changes_within_bytes", sql: """
            SELECT \(columns) FROM (
                SELECT \(columns),
                       sum(\(InstrumentRecord.feedOverheadBytes) + 6 * octet_length(id) + coalesce(octet_length(method_json), 0))
                           OVER (ORDER BY seq ROWS UNBOUNDED PRECEDING)
                       - (\(InstrumentRecord.feedOverheadBytes) + 6 * octet_length(id) + coalesce(octet_length(method_json), 0))
                           AS before_row
                FROM vault_instrument WHERE merchant = $1 AND customer = $2 AND seq > $3
                ORDER BY seq LIMIT $4
            ) page WHERE before_row <= $5::bigint ORDER BY seq
            """)

    static let put = PostgresStatement(
        name: "vault_put", sql: """
            INSERT INTO vault_instrument (merchant, customer, id, version, seq, deleted, is_default, method_json, deleted_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
            ON CONFLICT (merchant, customer, id) DO UPDATE SET
                version = excluded.version, seq = excluded.seq, deleted = excluded.deleted,
                is_default = excluded.is_default, method_json = excluded.method_json, deleted_at = excluded.deleted_at
            """)

    /// `$1` fresh sequence values. The sequence must keep `CACHE 1` (the default): a per-session
    /// cache would let one session hand out a number below one another session already committed.
    static let nextSequences = PostgresStatement(
        name: "vault_next_sequences", sql: "SELECT nextval('vault_change_seq') FROM generate_series(1, $1::integer)")

    static let hasTombstones = PostgresStatement(
        name: "vault_has_tombstones", sql: """
            SELECT 1 FROM vault_instrument WHERE merchant = $1 AND customer = $2 AND deleted AND deleted_at <= $3 LIMIT 1
            """)

    static let cursorSecret = PostgresStatement(
        name: "vault_cursor_secret", sql: "SELECT secret FROM vault_cursor_secret WHERE id = 1")

    static let purgeHorizon = PostgresStatement(
        name: "vault_purge_horizon", sql: "SELECT seq FROM vault_purge_horizon WHERE merchant = $1 AND customer = $2")

    /// Deletes the expired tombstones and raises the horizon to the highest purged sequence in one
    /// statement (a no-op on the horizon when nothing was purged).
    static let purgeTombstones = PostgresStatement(
        name: "vault_purge_tombstones", sql: """
            WITH purged AS (
                DELETE FROM vault_instrument
                WHERE merchant = $1 AND customer = $2 AND deleted AND deleted_at <= $3
                RETURNING seq
            )
            INSERT INTO vault_purge_horizon (merchant, customer, seq)
            SELECT $1, $2, max(seq) FROM purged HAVING count(*) > 0
            ON CONFLICT (merchant, customer) DO UPDATE SET seq = greatest(vault_purge_horizon.seq, excluded.seq)
            """)

    /// The background purge of every customer's expired tombstones: deleted rows and raised
    /// horizons in one statement. Purged rows are never rewritten (a tombstone only ever meets
    /// conflicts), so no customer lock is needed.
    static let purgeExpiredTombstones = PostgresStatement(
        name: "vault_purge_expired_tombstones", sql: """
            WITH purged AS (
                DELETE FROM vault_instrument WHERE deleted AND deleted_at <= $1 RETURNING merchant, customer, seq
            )
            INSERT INTO vault_purge_horizon (merchant, customer, seq)
            SELECT merchant, customer, max(seq) FROM purged GROUP BY merchant, customer
            ON CONFLICT (merchant, customer) DO UPDATE SET seq = greatest(vault_purge_horizon.seq, excluded.seq)
            """)

    /// The background purge of idempotency records past retention.
    static let purgeExpiredOps = PostgresStatement(
        name: "vault_purge_expired_ops", sql: "DELETE FROM vault_op_log WHERE created_at <= $1")

    static let tombstoneCutoff = PostgresStatement(
        name: "vault_tombstone_cutoff", sql: """
            SELECT deleted_at FROM vault_instrument WHERE merchant = $1 AND customer = $2 AND deleted
            ORDER BY deleted_at DESC LIMIT 1 OFFSET $3
            """)

    static let opRecordCutoff = PostgresStatement(
        name: "vault_op_record_cutoff", sql: """
            SELECT created_at FROM vault_op_log WHERE merchant = $1 AND customer = $2 ORDER BY created_at DESC LIMIT 1 OFFSET $3
            """)

    static let purgeOpRecords = PostgresStatement(
        name: "vault_purge_op_records", sql: "DELETE FROM vault_op_log WHERE merchant = $1 AND customer = $2 AND created_at <= $3")

    static let opRecord = PostgresStatement(
        name: "vault_op_record", sql: """
            SELECT body_hash, result_json, created_at FROM vault_op_log WHERE merchant = $1 AND customer = $2 AND op_id = $3
            """)

    /// The records of several op ids at once (`$3` a text array literal), for a batch's lookups.
    static let opRecords = PostgresStatement(
        name: "vault_op_records", sql: """
            SELECT op_id, body_hash, result_json, created_at FROM vault_op_log
            WHERE merchant = $1 AND customer = $2 AND op_id = ANY($3::text[])
            """)

    static let putOpRecord = PostgresStatement(
        name: "vault_put_op_record", sql: """
            INSERT INTO vault_op_log (merchant, customer, op_id, body_hash, result_json, created_at)
            VALUES ($1, $2, $3, $4, $5, $6)
            """)

    static let insertEphemeralKey = PostgresStatement(
        name: "vault_insert_ephemeral_key", sql: """
            INSERT INTO vault_ephemeral_key (id, merchant, customer, secret_hash, scope, created_at, expires_at, revoked_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
            """)

    /// The authentication lookup: by the secret's hash (unique index), any merchant.
    static let ephemeralKey = PostgresStatement(
        name: "vault_ephemeral_key", sql: """
            SELECT id, merchant, customer, scope, created_at, expires_at, revoked_at FROM vault_ephemeral_key
            WHERE secret_hash = $1
            """)

    /// Keeps the first revocation time; returns the id when the merchant has the key.
    static let revokeEphemeralKey = PostgresStatement(
        name: "vault_revoke_ephemeral_key", sql: """
            UPDATE vault_ephemeral_key SET revoked_at = coalesce(revoked_at, $3) WHERE merchant = $1 AND id = $2 RETURNING id
            """)

    static let purgeEphemeralKeys = PostgresStatement(
        name: "vault_purge_ephemeral_keys", sql: "DELETE FROM vault_ephemeral_key WHERE merchant = $1 AND expires_at <= $2")
}
