import CheckoutCore
import CheckoutLocking
import Foundation
import SQLiteKit

/// A sandbox processor's records in a SQLite file, so its charges outlive the process that made
/// them: the crash tests SIGKILL a child mid-attempt and reconcile against the same journal from
/// the parent, and count the charges per idempotency key there.
///
/// A test double: each write is one small row, committed and synced under the sandbox's lock, on a
/// thread of its own (`ScriptedSandboxProcessor` never writes it on a task's thread).
public final class SandboxJournal: Sendable {
    /// One stored payment.
    public struct Row: Sendable, Equatable {
        public var key: String
        public var paymentId: String
        public var status: PaymentResponse.Status
        public var reason: String?
        public var charged: Bool
    }

    /// `@unchecked Sendable`: the connection is only used inside `connection.withLock`.
    private final class Connection: @unchecked Sendable {
        let database: Database
        init(_ database: Database) { self.database = database }
    }

    private let connection: Locked<Connection>

    /// Opens (creating) the journal at `path`. A write waits up to `busyTimeoutMilliseconds` for
    /// another connection's lock before the attempt fails with the sandbox's `JOURNAL` code.
    public init(path: String, busyTimeoutMilliseconds: Int32 = 5_000) throws {
        var configuration = DatabaseConfiguration()
        configuration.fullSynchronous = true
        configuration.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        let database = try Database(path: path, configuration: configuration)
        try database.execute("""
            CREATE TABLE IF NOT EXISTS sandbox_payment (key TEXT PRIMARY KEY, payment_id TEXT NOT NULL UNIQUE,
              status TEXT NOT NULL, reason TEXT, charged INTEGER NOT NULL)
            """)
        connection = Locked(Connection(database))
    }

    /// Every stored payment.
    public func rows() throws -> [Row] {
        try connection.withLock { connection in
            try connection.database.withStatement("SELECT key, payment_id, status, reason, charged FROM sandbox_payment ORDER BY key") { statement in
                var rows: [Row] = []
                while try statement.step() {
                    rows.append(Row(key: statement.string(at: 0), paymentId: statement.string(at: 1),
                                    status: PaymentResponse.Status(rawValue: statement.string(at: 2)) ?? .failed,
                                    reason: statement.optionalString(at: 3), charged: statement.bool(at: 4)))
                }
                return rows
            }
        }
    }

    /// Inserts or replaces one payment (the key is unique: a second charge under it cannot be written).
    func save(_ row: Row) throws {
        try connection.withLock { connection in
            try connection.database.run("""
                INSERT INTO sandbox_payment (key, payment_id, status, reason, charged) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT(key) DO UPDATE SET status = excluded.status, reason = excluded.reason, charged = excluded.charged
                """) { statement in
                try statement.bind(row.key, at: 1)
                try statement.bind(row.paymentId, at: 2)
                try statement.bind(row.status.rawValue, at: 3)
                try statement.bind(row.reason, at: 4)
                try statement.bind(row.charged, at: 5)
            }
        }
    }
}
