import CheckoutOrchestration
import Dispatch
import Foundation
import PostgresKit

/// The ledger in PostgreSQL, for several router instances on one ledger, on the vault server's
/// libpq pieces (`PostgresConnectionPool`, prepared statements with `$n` text parameters).
///
/// Writes run in READ COMMITTED transactions that lock the intent row (`SELECT ... FOR UPDATE`)
/// before checking a move, so two instances cannot both start an attempt of one payment; a unique
/// violation (two instances opening one stable key) or a serialization failure re-runs the whole
/// transaction (at most 5 times). Work runs on the storage's own dispatch queue.
public final class PostgresLedgerStorage: LedgerStorage {
    private let pool: PostgresConnectionPool
    private let queue = DispatchQueue(label: "checkoutkit.ledger.postgres", attributes: .concurrent)
    static let maxAttempts = 5

    /// Connects to `url` (a `postgres://` URL; never put in an error) and migrates the schema.
    public init(url: String, poolSize: Int = 4) throws {
        pool = PostgresConnectionPool(url: url, capacity: max(1, poolSize), acquireTimeout: .seconds(10),
                                      applicationName: "checkoutkit-ledger")
        try pool.withConnection { connection in try PostgresLedgerSchema.migrate(connection) }
    }

    public func write<T: Sendable>(_ body: @escaping @Sendable (any LedgerTransaction) throws -> T) async throws -> T {
        try await run { try self.transaction("BEGIN ISOLATION LEVEL READ COMMITTED", writes: true, body) }
    }

    public func read<T: Sendable>(_ body: @escaping @Sendable (any LedgerTransaction) throws -> T) async throws -> T {
        try await run { try self.transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", writes: false, body) }
    }

    private func transaction<T>(_ begin: String, writes: Bool, _ body: (any LedgerTransaction) throws -> T) throws -> T {
        var attempt = 1
        while true {
            do {
                return try pool.withConnection { connection in
                    try connection.execute(begin)
                    do {
                        let result = try body(PostgresLedgerTransaction(connection: connection, writes: writes))
                        try connection.execute("COMMIT")
                        return result
                    } catch {
                        connection.discardDeferred()
                        _ = try? connection.execute("ROLLBACK")
                        throw error
                    }
                }
            } catch let error as PostgresError where Self.retryable(error) && attempt < Self.maxAttempts {
                attempt += 1
            }
        }
    }

    private static func retryable(_ error: PostgresError) -> Bool {
        error.isTransient || error.sqlState == "23505"
    }

    private func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }
}
