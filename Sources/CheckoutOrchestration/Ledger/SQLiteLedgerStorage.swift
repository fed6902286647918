import Foundation
import SQLiteKit

/// The ledger in a SQLite file (the embedded default), on `SQLiteKit`'s WAL pool with full
/// synchronous commits (a committed state change survives a crash and a power cut). Work runs on
/// the pool's own queues (its `async` read and write), never on a task thread.
public final class SQLiteLedgerStorage: LedgerStorage {
    private let pool: DatabasePool

    /// The migrations, named and never edited once shipped.
    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("ledger-1") { database in
            try database.execute("""
                CREATE TABLE payment_intent (
                  id TEXT PRIMARY KEY, stable_key TEXT NOT NULL UNIQUE, route TEXT NOT NULL, state TEXT NOT NULL,
                  method_type TEXT NOT NULL, amount INTEGER NOT NULL, currency TEXT NOT NULL, card TEXT,
                  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
                CREATE INDEX payment_intent_state ON payment_intent(state, created_at);
                CREATE INDEX payment_intent_created ON payment_intent(created_at);
                CREATE TABLE payment_attempt (
                  intent_id TEXT NOT NULL REFERENCES payment_intent(id), sequence INTEGER NOT NULL,
                  processor TEXT NOT NULL, idempotency_key TEXT NOT NULL, status TEXT NOT NULL, category TEXT,
                  raw_code TEXT, processor_payment_id TEXT, authentication TEXT, note TEXT,
                  started_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY (intent_id, sequence));
                CREATE INDEX payment_attempt_processor ON payment_attempt(processor, started_at);
                CREATE TABLE outbox_event (
                  seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, type TEXT NOT NULL,
                  payment_id TEXT NOT NULL, created_at INTEGER NOT NULL, body BLOB NOT NULL,
                  attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at INTEGER NOT NULL,
                  delivered_at INTEGER, abandoned_at INTEGER, last_error TEXT);
                CREATE INDEX outbox_event_due ON outbox_event(next_attempt_at) WHERE delivered_at IS NULL AND abandoned_at IS NULL;
                CREATE INDEX outbox_event_payment ON outbox_event(payment_id, seq);
                """)
        }
        // The merchant of each payment, so a key reused by another merchant is refused.
        migrator.registerMigration("ledger-2-merchant") { database in
            try database.execute("ALTER TABLE payment_intent ADD COLUMN merchant TEXT")
        }
        // Capture, void and refund; the money's rules are a constraint of the storage.
        migrator.registerMigration("ledger-3-operations") { database in
            try database.execute("""
                ALTER TABLE payment_intent ADD COLUMN capture_mode TEXT NOT NULL DEFAULT 'automatic';
                CREATE TABLE payment_balance (
                  intent_id TEXT PRIMARY KEY REFERENCES payment_intent(id), authorized INTEGER NOT NULL,
                  captured INTEGER NOT NULL, refunded INTEGER NOT NULL,
                  CHECK (authorized >= 0 AND captured >= 0 AND captured <= authorized AND refunded >= 0 AND refunded <= captured));
                CREATE TABLE payment_operation (
                  intent_id TEXT NOT NULL REFERENCES payment_intent(id), sequence INTEGER NOT NULL, kind TEXT NOT NULL,
                  amount INTEGER NOT NULL, status TEXT NOT NULL, operation_key TEXT NOT NULL UNIQUE, processor TEXT NOT NULL,
                  processor_key TEXT NOT NULL, processor_operation_id TEXT, raw_code TEXT, created_at INTEGER NOT NULL,
                  updated_at INTEGER NOT NULL, PRIMARY KEY (intent_id, sequence));
                CREATE INDEX payment_operation_open ON payment_operation(created_at) WHERE status IN ('pending', 'unknown');
                """)
        }
        return migrator
    }()

    /// How a commit reaches the disk.
    public enum Durability: Sendable {
        /// `synchronous=FULL`: a committed change survives a power cut (the default).
        case full
        /// `synchronous=NORMAL` in WAL: survives a process crash, not a power cut (tests, benchmarks).
        case processCrash
    }

    /// Opens (creating and migrating) the ledger at `path`.
    public init(path: String, durability: Durability = .full) throws {
        var configuration = DatabaseConfiguration()
        configuration.fullSynchronous = durability == .full
        pool = try DatabasePool(path: path, configuration: configuration)
        try pool.writeWithoutTransaction { database in try Self.migrator.migrate(database) }
    }

    public func write<T: Sendable>(_ body: @escaping @Sendable (any LedgerTransaction) throws -> T) async throws -> T {
        try await pool.write { database in try body(SQLiteLedgerTransaction(database: database)) }
    }

    public func read<T: Sendable>(_ body: @escaping @Sendable (any LedgerTransaction) throws -> T) async throws -> T {
        try await pool.read { database in
            try database.transaction(.deferred) { try body(SQLiteLedgerTransaction(database: database)) }
        }
    }
}

/// The ledger's SQL on one SQLite connection inside a transaction.
struct SQLiteLedgerTransaction: LedgerTransaction {
    let database: Database

    private static let intentColumns = """
        id, stable_key, route, state, method_type, amount, currency, card, created_at, updated_at, merchant, capture_mode
        """
    private static let operationColumns = """
        intent_id, sequence, kind, amount, status, operation_key, processor, processor_key, processor_operation_id, raw_code, \
        created_at, updated_at
        """
    private static let attemptColumns = """
        intent_id, sequence, processor, idempotency_key, status, category, raw_code, processor_payment_id, \
        authentication, note, started_at, updated_at
        """

    private func intents(_ sql: String, _ bind: (Statement) throws -> Void) throws -> [IntentRecord] {
        var records: [IntentRecord] = []
        try database.withStatement(sql) { statement in
            try bind(statement)
            while try statement.step() {
                records.append(try IntentRecord(
                    id: statement.string("id"), stableKey: statement.string("stable_key"),
                    route: statement.string("route"), state: LedgerRowCoding.intentState(statement.string("state")),
                    methodType: statement.string("method_type"), amount: statement.int("amount"),
                    currency: statement.string("currency"), card: statement.optionalString("card"),
                    merchant: statement.optionalString("merchant"),
                    captureMode: LedgerRowCoding.captureMode(statement.string("capture_mode")),
                    createdAt: Date(ledgerMillis: statement.int64("created_at")),
                    updatedAt: Date(ledgerMillis: statement.int64("updated_at"))))
            }
        }
        return try records.map { record in
            var record = record
            record.attempts = try attempts(intentId: record.id)
            record.balance = try balance(intentId: record.id)
            record.operations = try operations(intentId: record.id)
            return record
        }
    }

    func intent(id: String) throws -> IntentRecord? {
        try intents("SELECT \(Self.intentColumns) FROM payment_intent WHERE id = ?") { try $0.bind(id, at: 1) }.first
    }

    func intent(stableKey: String) throws -> IntentRecord? {
        try intents("SELECT \(Self.intentColumns) FROM payment_intent WHERE stable_key = ?") { try $0.bind(stableKey, at: 1) }.first
    }

    func insertIntent(_ intent: IntentRecord) throws {
        try database.run("INSERT INTO payment_intent (\(Self.intentColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)") { statement in
            try statement.bind(intent.id, at: 1)
            try statement.bind(intent.stableKey, at: 2)
            try statement.bind(intent.route, at: 3)
            try statement.bind(intent.state.rawValue, at: 4)
            try statement.bind(intent.methodType, at: 5)
            try statement.bind(intent.amount, at: 6)
            try statement.bind(intent.currency, at: 7)
            try statement.bind(intent.card, at: 8)
            try statement.bind(intent.createdAt.ledgerMillis, at: 9)
            try statement.bind(intent.updatedAt.ledgerMillis, at: 10)
            try statement.bind(intent.merchant, at: 11)
            try statement.bind(intent.captureMode.rawValue, at: 12)
        }
    }

    func updateIntent(id: String, state: IntentState, updatedAt: Date) throws {
        try database.run("UPDATE payment_intent SET state = ?, updated_at = ? WHERE id = ?") { statement in
            try statement.bind(state.rawValue, at: 1)
            try statement.bind(updatedAt.ledgerMillis, at: 2)
            try statement.bind(id, at: 3)
        }
    }

    private func attemptRows(_ sql: String, _ bind: (Statement) throws -> Void) throws -> [AttemptRecord] {
        try database.withStatement(sql) { statement in
            try bind(statement)
            var records: [AttemptRecord] = []
            while try statement.step() {
                records.append(try AttemptRecord(
                    intentId: statement.string("intent_id"), sequence: statement.int("sequence"),
                    processor: statement.string("processor"), idempotencyKey: statement.string("idempotency_key"),
                    status: LedgerRowCoding.attemptStatus(statement.string("status")),
                    category: LedgerRowCoding.category(statement.optionalString("category")),
                    rawCode: statement.optionalString("raw_code"), processorPaymentId: statement.optionalString("processor_payment_id"),
                    authentication: LedgerRowCoding.authentication(statement.optionalString("authentication")),
                    note: statement.optionalString("note"), startedAt: Date(ledgerMillis: statement.int64("started_at")),
                    updatedAt: Date(ledgerMillis: statement.int64("updated_at"))))
            }
            return records
        }
    }

    func attempts(intentId: String) throws -> [AttemptRecord] {
        try attemptRows("SELECT \(Self.attemptColumns) FROM payment_attempt WHERE intent_id = ? ORDER BY sequence") {
            try $0.bind(intentId, at: 1)
        }
    }

    func insertAttempt(_ attempt: AttemptRecord) throws {
        try database.run("INSERT INTO payment_attempt (\(Self.attemptColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)") {
            try bindAttempt(attempt, $0)
        }
    }

    func updateAttempt(_ attempt: AttemptRecord) throws {
        try database.run("""
            UPDATE payment_attempt SET intent_id = ?1, sequence = ?2, processor = ?3, idempotency_key = ?4, status = ?5,
              category = ?6, raw_code = ?7, processor_payment_id = ?8, authentication = ?9, note = ?10, started_at = ?11,
              updated_at = ?12 WHERE intent_id = ?1 AND sequence = ?2
            """) { try bindAttempt(attempt, $0) }
    }

    private func bindAttempt(_ attempt: AttemptRecord, _ statement: Statement) throws {
        try statement.bind(attempt.intentId, at: 1)
        try statement.bind(attempt.sequence, at: 2)
        try statement.bind(attempt.processor, at: 3)
        try statement.bind(attempt.idempotencyKey, at: 4)
        try statement.bind(attempt.status.rawValue, at: 5)
        try statement.bind(attempt.category?.rawValue, at: 6)
        try statement.bind(attempt.rawCode, at: 7)
        try statement.bind(attempt.processorPaymentId, at: 8)
        try statement.bind(try LedgerRowCoding.authenticationText(attempt.authentication), at: 9)
        try statement.bind(attempt.note, at: 10)
        try statement.bind(attempt.startedAt.ledgerMillis, at: 11)
        try statement.bind(attempt.updatedAt.ledgerMillis, at: 12)
    }

    func intents(limit: Int) throws -> [IntentRecord] {
        try intents("SELECT \(Self.intentColumns) FROM payment_intent ORDER BY created_at DESC, id DESC LIMIT ?") {
            try $0.bind(limit, at: 1)
        }
    }

    func openIntentIds() throws -> [String] {
        try database.withStatement("""
            SELECT id FROM payment_intent WHERE state IN ('processing', 'requires_action', 'unknown') ORDER BY created_at, id
            """) { statement in
            var ids: [String] = []
            while try statement.step() { ids.append(try statement.string("id")) }
            return ids
        }
    }

    func recentAttempts(processor: String, limit: Int) throws -> [AttemptRecord] {
        try attemptRows("""
            SELECT \(Self.attemptColumns) FROM payment_attempt WHERE processor = ? AND status <> 'skipped'
            ORDER BY started_at DESC, intent_id DESC, sequence DESC LIMIT ?
            """) { statement in
            try statement.bind(processor, at: 1)
            try statement.bind(limit, at: 2)
        }.reversed()
    }

    func balance(intentId: String) throws -> PaymentBalance? {
        try database.withStatement("SELECT authorized, captured, refunded FROM payment_balance WHERE intent_id = ?") { statement in
            try statement.bind(intentId, at: 1)
            guard try statement.step() else { return nil }
            return try PaymentBalance(authorized: statement.int("authorized"), captured: statement.int("captured"),
                                      refunded: statement.int("refunded"))
        }
    }

    func saveBalance(intentId: String, _ balance: PaymentBalance) throws {
        do {
            try database.run("""
                INSERT INTO payment_balance (intent_id, authorized, captured, refunded) VALUES (?, ?, ?, ?)
                ON CONFLICT (intent_id) DO UPDATE SET authorized = excluded.authorized, captured = excluded.captured,
                  refunded = excluded.refunded
                """) { statement in
                try statement.bind(intentId, at: 1)
                try statement.bind(balance.authorized, at: 2)
                try statement.bind(balance.captured, at: 3)
                try statement.bind(balance.refunded, at: 4)
            }
        } catch let error as SQLiteError where error.extendedResultCode == 275 { // SQLITE_CONSTRAINT_CHECK
            throw LedgerError(.amountExceedsCaptured, "the payment's balance would break its constraint "
                              + "(refunds above the captured amount, or a capture above the authorized one)")
        }
    }

    private func operationRows(_ sql: String, _ bind: (Statement) throws -> Void) throws -> [OperationRecord] {
        try database.withStatement(sql) { statement in
            try bind(statement)
            var records: [OperationRecord] = []
            while try statement.step() {
                records.append(try OperationRecord(
                    intentId: statement.string("intent_id"), sequence: statement.int("sequence"),
                    kind: LedgerRowCoding.operationKind(statement.string("kind")), amount: statement.int("amount"),
                    status: LedgerRowCoding.operationStatus(statement.string("status")),
                    key: statement.string("operation_key"), processor: statement.string("processor"),
                    processorKey: statement.string("processor_key"),
                    processorOperationId: statement.optionalString("processor_operation_id"),
                    rawCode: statement.optionalString("raw_code"), createdAt: Date(ledgerMillis: statement.int64("created_at")),
                    updatedAt: Date(ledgerMillis: statement.int64("updated_at"))))
            }
            return records
        }
    }

    func operations(intentId: String) throws -> [OperationRecord] {
        try operationRows("SELECT \(Self.operationColumns) FROM payment_operation WHERE intent_id = ? ORDER BY sequence") {
            try $0.bind(intentId, at: 1)
        }
    }

    func operation(key: String) throws -> OperationRecord? {
        try operationRows("SELECT \(Self.operationColumns) FROM payment_operation WHERE operation_key = ?") {
            try $0.bind(key, at: 1)
        }.first
    }

    func insertOperation(_ operation: OperationRecord) throws {
        try database.run("INSERT INTO payment_operation (\(Self.operationColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)") {
            try bindOperation(operation, $0)
        }
    }

    func updateOperation(_ operation: OperationRecord) throws {
        try database.run("""
            UPDATE payment_operation SET intent_id = ?1, sequence = ?2, kind = ?3, amount = ?4, status = ?5, operation_key = ?6,
              processor = ?7, processor_key = ?8, processor_operation_id = ?9, raw_code = ?10, created_at = ?11, updated_at = ?12
            WHERE intent_id = ?1 AND sequence = ?2
            """) { try bindOperation(operation, $0) }
    }

    private func bindOperation(_ operation: OperationRecord, _ statement: Statement) throws {
        try statement.bind(operation.intentId, at: 1)
        try statement.bind(operation.sequence, at: 2)
        try statement.bind(operation.kind.rawValue, at: 3)
        try statement.bind(operation.amount, at: 4)
        try statement.bind(operation.status.rawValue, at: 5)
        try statement.bind(operation.key, at: 6)
        try statement.bind(operation.processor, at: 7)
        try statement.bind(operation.processorKey, at: 8)
        try statement.bind(operation.processorOperationId, at: 9)
        try statement.bind(operation.rawCode, at: 10)
        try statement.bind(operation.createdAt.ledgerMillis, at: 11)
        try statement.bind(operation.updatedAt.ledgerMillis, at: 12)
    }

    func openOperationIntentIds() throws -> [String] {
        try database.withStatement("""
            SELECT intent_id FROM payment_operation WHERE status IN ('pending', 'unknown') GROUP BY intent_id
            ORDER BY min(created_at), intent_id
            """) { statement in
            var ids: [String] = []
            while try statement.step() { ids.append(try statement.string("intent_id")) }
            return ids
        }
    }

    func insertEvent(_ event: WebhookEvent, nextAttemptAt: Date) throws {
        try database.run("""
            INSERT INTO outbox_event (id, type, payment_id, created_at, body, next_attempt_at) VALUES (?, ?, ?, ?, ?, ?)
            """) { statement in
            try statement.bind(event.id, at: 1)
            try statement.bind(event.type, at: 2)
            try statement.bind(event.paymentId, at: 3)
            try statement.bind(event.createdAt.ledgerMillis, at: 4)
            try statement.bind(event.body, at: 5)
            try statement.bind(nextAttemptAt.ledgerMillis, at: 6)
        }
    }

    private func eventRows(_ sql: String, _ bind: (Statement) throws -> Void) throws -> [OutboxEntry] {
        try database.withStatement(sql) { statement in
            try bind(statement)
            var entries: [OutboxEntry] = []
            while try statement.step() {
                let event = try WebhookEvent(id: statement.string("id"), type: statement.string("type"),
                                             paymentId: statement.string("payment_id"),
                                             createdAt: Date(ledgerMillis: statement.int64("created_at")), body: statement.data("body"))
                entries.append(try OutboxEntry(event: event, attempts: statement.int("attempts"),
                                               nextAttemptAt: Date(ledgerMillis: statement.int64("next_attempt_at"))))
            }
            return entries
        }
    }

    func dueEvents(now: Date, limit: Int) throws -> [OutboxEntry] {
        try eventRows("""
            SELECT id, type, payment_id, created_at, body, attempts, next_attempt_at FROM outbox_event
            WHERE delivered_at IS NULL AND abandoned_at IS NULL AND next_attempt_at <= ? ORDER BY next_attempt_at, seq LIMIT ?
            """) { statement in
            try statement.bind(now.ledgerMillis, at: 1)
            try statement.bind(limit, at: 2)
        }
    }

    func events(paymentId: String) throws -> [WebhookEvent] {
        try eventRows("""
            SELECT id, type, payment_id, created_at, body, attempts, next_attempt_at FROM outbox_event
            WHERE payment_id = ? ORDER BY seq
            """) { try $0.bind(paymentId, at: 1) }.map(\.event)
    }

    func updateEvent(id: String, attempts: Int?, nextAttemptAt: Date?, deliveredAt: Date?, abandonedAt: Date?,
                     lastError: String?) throws -> Bool {
        try database.run("""
            UPDATE outbox_event SET attempts = coalesce(?, attempts), next_attempt_at = coalesce(?, next_attempt_at),
              delivered_at = coalesce(?, delivered_at), abandoned_at = coalesce(?, abandoned_at),
              last_error = coalesce(?, last_error)
            WHERE id = ? AND delivered_at IS NULL AND abandoned_at IS NULL
            """) { statement in
            try statement.bind(attempts, at: 1)
            try statement.bind(nextAttemptAt?.ledgerMillis, at: 2)
            try statement.bind(deliveredAt?.ledgerMillis, at: 3)
            try statement.bind(abandonedAt?.ledgerMillis, at: 4)
            try statement.bind(lastError, at: 5)
            try statement.bind(id, at: 6)
        }
        return database.changes > 0
    }
}
