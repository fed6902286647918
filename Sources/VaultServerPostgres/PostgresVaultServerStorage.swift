import PostgresKit
import VaultServer

/// A `VaultServerStorage` on PostgreSQL, so that any number of `vault-server` instances serve
/// one vault consistently.
///
/// **Isolation: READ COMMITTED plus an explicit per-customer lock, not SERIALIZABLE.** Every write
/// transaction takes `pg_advisory_xact_lock(hashtext(merchant), hashtext(customer))` on its first
/// call naming the customer, before it reads anything of that customer, and holds it to commit.
/// All writers of one customer therefore run one after the other, on any instance, and each
/// statement of the next one sees what the previous one committed (READ COMMITTED takes a fresh
/// snapshot per statement). That gives the op batch exactly what the rules need: an op id is
/// looked up after the previous batch's record is visible (each op applied once, even when the
/// same batch reaches two instances), versions are compared with the current row, and
/// `clearOtherDefaults` sees every default (exactly one default). SERIALIZABLE alone would not
/// do: it orders transactions logically but not `nextval()`, a non-transactional counter, so the
/// feed could still see sequence 12 committed before sequence 11 — and its retries would make a
/// contended customer's batches abort and re-run rather than wait in line. A hash collision
/// between two customers only makes them share a lock (more waiting, never a wrong answer).
///
/// **The change feed never skips a change.** Sequences come from the PostgreSQL sequence
/// `vault_change_seq`, but only while the customer's lock is held (`nextSequence()` refuses to run
/// before it). A customer's writers hold the lock from before their first `nextval` until after
/// their commit is visible, so within a customer a later commit always carries larger numbers:
/// when a reader's snapshot shows a change with sequence N, every change of that customer with a
/// smaller number is already committed and visible in the same snapshot. A reader that pages with
/// `seq > cursor` can therefore never jump over a change that commits later with a smaller number
/// (the classic bug of a bare sequence: T1 takes 11, T2 takes 12 and commits, a reader reads up
/// to 12, T1 commits 11 — lost). Numbers skipped by rolled-back transactions leave harmless gaps.
///
/// **Reads** (`read`) run in `REPEATABLE READ READ ONLY` transactions: one consistent snapshot
/// across the feed's several statements, no locks, never waiting for writers; a write inside one
/// is refused by the server (SQLSTATE 25006), as the protocol asks.
///
/// Transient failures (serialization failure 40001, deadlock 40P01) roll back and re-run the
/// whole body, up to `maxTransactionAttempts` times; the body must touch storage only through the
/// transaction (as `VaultService` does). A body touching two customers takes both locks in the
/// order it touches them (two such bodies may deadlock; PostgreSQL breaks it and the retry runs
/// again), and a row stored with a sequence drawn before its customer's lock is refused.
///
/// **Round trips.** Statements are prepared once per pooled connection and always take their
/// values as `$n` text parameters. What returns nothing (BEGIN, the lock, writes) is queued and
/// sent in one libpq pipeline with the next statement that needs an answer, and sequences are
/// fetched a few at a time under the lock, and a write transaction reads a small customer's rows
/// once, so an upsert costs about one round trip (its op-log lookup) instead of five; the
/// `COMMIT` of a read-only transaction is sent without waiting for its answer. Migrations are applied at start under an advisory lock
/// (see `PostgresMigrations`).
///
/// ```swift
/// let storage = try PostgresVaultServerStorage(url: "postgres://vault@db.internal/vault")
/// let server = VaultServer(configuration: configuration, storage: storage)
/// ```
public final class PostgresVaultServerStorage: VaultServerStorage {
    /// Pool and retry settings.
    public struct Options: Sendable, Equatable {
        /// The most connections this instance opens; size it to the server's worker threads.
        public var poolSize: Int
        /// How long a call waits for a free connection before failing with `poolExhausted`.
        public var acquireTimeout: Duration
        /// How many times a transaction runs when it keeps failing with a transient error.
        public var maxTransactionAttempts: Int

        /// Creates options; the defaults suit a server with up to 8 worker threads.
        public init(poolSize: Int = 8, acquireTimeout: Duration = .seconds(10), maxTransactionAttempts: Int = 5) {
            self.poolSize = poolSize
            self.acquireTimeout = acquireTimeout
            self.maxTransactionAttempts = maxTransactionAttempts
        }
    }

    private let pool: PostgresConnectionPool
    private let options: Options

    /// Connects to `url` (`postgres://` or `postgresql://`, any libpq URI parameter allowed) and
    /// applies the missing migrations. Throws `PostgresError` when the URL is not a PostgreSQL URL,
    /// the server cannot be reached or a migration fails; the error never contains the URL.
    public init(url: String, options: Options = Options()) throws(PostgresError) {
        guard Self.isPostgresURL(url) else {
            throw PostgresError(.invalidURL, message: "the storage URL must start with postgres:// or postgresql://")
        }
        guard options.poolSize > 0, options.maxTransactionAttempts > 0, options.acquireTimeout > .zero else {
            throw PostgresError(.misuse, message: "poolSize, maxTransactionAttempts and acquireTimeout must be positive")
        }
        self.options = options
        pool = PostgresConnectionPool(url: url, capacity: options.poolSize, acquireTimeout: options.acquireTimeout,
                                      applicationName: "checkoutkit-vault-server")
        do {
            try pool.withConnection { connection in _ = try PostgresMigrations.migrate(connection) }
        } catch let error as PostgresError {
            throw error
        } catch {
            throw PostgresError(.unexpectedResult, message: "migration failed: \(error)")
        }
    }

    /// True when `text` names a PostgreSQL database (`postgres://` or `postgresql://`).
    public static func isPostgresURL(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://")
    }

    /// Runs `body` in a READ COMMITTED transaction under the customer locks it takes; re-runs it
    /// on a transient failure (see the type's documentation).
    public func transaction<T: Sendable>(_ body: (any VaultStorageTransaction) throws -> T) throws -> T {
        try attempt("BEGIN ISOLATION LEVEL READ COMMITTED", writes: true, body)
    }

    /// Runs `body` on one REPEATABLE READ, read-only snapshot; takes no lock and never waits.
    public func read<T: Sendable>(_ body: (any VaultStorageTransaction) throws -> T) throws -> T {
        try attempt("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", writes: false, body)
    }

    /// Closes the idle pooled connections (busy ones close as they come back); later calls open
    /// new ones. Useful before dropping the last reference in long-running tests.
    public func closeIdleConnections() {
        pool.closeIdle()
    }

    /// A connection lost before `COMMIT` was sent: nothing was committed, so a fresh connection
    /// may run the body again (a pooled connection the server closed while idle looks like this).
    private struct LostBeforeCommit: Error {
        let underlying: PostgresError
    }

    /// Runs the body, again after a transient failure or a connection lost before the commit, up
    /// to `maxTransactionAttempts` times in all.
    private func attempt<T>(_ begin: String, writes: Bool, _ body: (any VaultStorageTransaction) throws -> T) throws -> T {
        var attempt = 1
        while true {
            do {
                return try run(begin, writes: writes, body)
            } catch let lost as LostBeforeCommit {
                guard attempt < options.maxTransactionAttempts else { throw lost.underlying }
            } catch let error as PostgresError where error.isTransient && attempt < options.maxTransactionAttempts {
            }
            attempt += 1
        }
    }

    private func run<T>(_ begin: String, writes: Bool, _ body: (any VaultStorageTransaction) throws -> T) throws -> T {
        try pool.withConnection { connection in
            // BEGIN travels with the transaction's first statement (one round trip fewer).
            connection.executeLater(begin)
            let result: T
            do {
                result = try body(PostgresStorageTransaction(connection: connection, writes: writes))
            } catch {
                connection.discardDeferred()
                if let error = error as? PostgresError, error.code == .connectionLost {
                    throw LostBeforeCommit(underlying: error)
                }
                // A failed ROLLBACK leaves the connection inside a transaction or broken: the pool
                // sees that (`isReusable`) and closes it instead of reusing it.
                _ = try? connection.execute("ROLLBACK")
                throw error
            }
            do {
                if writes {
                    try connection.execute("COMMIT")
                } else {
                    // A read-only COMMIT cannot change what was read: its answer is read later.
                    try connection.finishWithoutWaiting("COMMIT")
                }
            } catch {
                // A lost connection here leaves the outcome unknown: reported, never retried.
                connection.discardDeferred()
                _ = try? connection.execute("ROLLBACK")
                throw error
            }
            return result
        }
    }
}
