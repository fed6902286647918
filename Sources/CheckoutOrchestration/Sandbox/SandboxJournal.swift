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
        /// Authorized only (capture manual), and the money: authorized, captured, refunded, voided.
        public var manual = false
        public var authorized = 0
        public var captured = 0
        public var refunded = 0
        public var voided = false
    }

    /// One stored capture, void or refund.
    public struct OperationRow: Sendable, Equatable {
        public var key: String
        public var request: OperationRequest
        public var response: OperationResponse
        public var failsLater: Bool
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
              status TEXT NOT NULL, reason TEXT, charged INTEGER NOT NULL);
            CREATE TABLE IF NOT EXISTS sandbox_money (payment_id TEXT PRIMARY KEY, manual INTEGER NOT NULL,
              authorized INTEGER NOT NULL, captured INTEGER NOT NULL, refunded INTEGER NOT NULL, voided INTEGER NOT NULL);
            CREATE TABLE IF NOT EXISTS sandbox_operation (key TEXT PRIMARY KEY, kind TEXT NOT NULL, payment_id TEXT NOT NULL,
              amount INTEGER NOT NULL, currency TEXT NOT NULL, status TEXT NOT NULL, operation_id TEXT, raw_code TEXT,
              fails_later INTEGER NOT NULL)
            """)
        connection = Locked(Connection(database))
    }

    /// Every stored payment.
    public func rows() throws -> [Row] {
        try connection.withLock { connection in
            try connection.database.withStatement("""
                SELECT p.key, p.payment_id, p.status, p.reason, p.charged, coalesce(m.manual, 0) AS manual,
                  coalesce(m.authorized, 0) AS authorized, coalesce(m.captured, 0) AS captured,
                  coalesce(m.refunded, 0) AS refunded, coalesce(m.voided, 0) AS voided
                FROM sandbox_payment p LEFT JOIN sandbox_money m ON m.payment_id = p.payment_id ORDER BY p.key
                """) { statement in
                var rows: [Row] = []
                while try statement.step() {
                    rows.append(try Row(key: statement.string("key"), paymentId: statement.string("payment_id"),
                                        status: PaymentResponse.Status(rawValue: statement.string("status")) ?? .failed,
                                        reason: statement.optionalString("reason"), charged: statement.bool("charged"),
                                        manual: statement.bool("manual"), authorized: statement.int("authorized"),
                                        captured: statement.int("captured"), refunded: statement.int("refunded"),
                                        voided: statement.bool("voided")))
                }
                return rows
            }
        }
    }

    /// Every stored capture, void or refund.
    public func operationRows() throws -> [OperationRow] {
        try connection.withLock { connection in
            try connection.database.withStatement("""
                SELECT key, kind, payment_id, amount, currency, status, operation_id, raw_code, fails_later FROM sandbox_operation
                """) { statement in
                var rows: [OperationRow] = []
                while try statement.step() {
                    guard let kind = OperationKind(rawValue: try statement.string("kind")),
                          let status = OperationStatus(rawValue: try statement.string("status")) else { continue }
                    let request = try OperationRequest(kind: kind, paymentId: statement.string("payment_id"),
                                                       amount: statement.int("amount"), currency: statement.string("currency"),
                                                       idempotencyKey: statement.string("key"))
                    rows.append(try OperationRow(key: statement.string("key"), request: request,
                                                 response: OperationResponse(status: status,
                                                                             operationId: statement.optionalString("operation_id"),
                                                                             rawCode: statement.optionalString("raw_code")),
                                                 failsLater: statement.bool("fails_later")))
                }
                return rows
            }
        }
    }

    /// Inserts or replaces one operation and its payment's money, in one transaction.
    func save(_ operation: OperationRow, money row: Row?) throws {
        try connection.withLock { connection in
            try connection.database.transaction(.immediate) {
                try connection.database.run("""
                    INSERT INTO sandbox_operation (key, kind, payment_id, amount, currency, status, operation_id, raw_code, fails_later)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(key) DO UPDATE SET status = excluded.status, raw_code = excluded.raw_code, fails_later = excluded.fails_later
                    """) { statement in
                    try statement.bind(operation.key, at: 1)
                    try statement.bind(operation.request.kind.rawValue, at: 2)
                    try statement.bind(operation.request.paymentId, at: 3)
                    try statement.bind(operation.request.amount, at: 4)
                    try statement.bind(operation.request.currency, at: 5)
                    try statement.bind(operation.response.status.rawValue, at: 6)
                    try statement.bind(operation.response.operationId, at: 7)
                    try statement.bind(operation.response.rawCode, at: 8)
                    try statement.bind(operation.failsLater, at: 9)
                }
                if let row { try Self.saveMoney(row, connection.database) }
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
            try Self.saveMoney(row, connection.database)
        }
    }

    private static func saveMoney(_ row: Row, _ database: Database) throws {
        try database.run("""
            INSERT INTO sandbox_money (payment_id, manual, authorized, captured, refunded, voided) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT(payment_id) DO UPDATE SET manual = excluded.manual, authorized = excluded.authorized,
              captured = excluded.captured, refunded = excluded.refunded, voided = excluded.voided
            """) { statement in
            try statement.bind(row.paymentId, at: 1)
            try statement.bind(row.manual, at: 2)
            try statement.bind(row.authorized, at: 3)
            try statement.bind(row.captured, at: 4)
            try statement.bind(row.refunded, at: 5)
            try statement.bind(row.voided, at: 6)
        }
    }
}
