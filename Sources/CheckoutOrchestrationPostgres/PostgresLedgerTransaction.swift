import CheckoutOrchestration
import Foundation
import PostgresKit

/// The ledger's SQL on one PostgreSQL connection inside a transaction (values as `$n` text
/// parameters; the SQL text is constant, so errors can name it).
struct PostgresLedgerTransaction: LedgerTransaction {
    let connection: PostgresConnection
    let writes: Bool

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

    private static func statement(_ name: String, _ sql: String) -> PostgresStatement {
        PostgresStatement(name: "ledger_" + name, sql: sql)
    }

    private static let intentById = statement("intent_id", "SELECT \(intentColumns) FROM payment_intent WHERE id = $1")
    private static let intentByIdForUpdate = statement("intent_id_lock", "SELECT \(intentColumns) FROM payment_intent WHERE id = $1 FOR UPDATE")
    private static let intentByKey = statement("intent_key", "SELECT \(intentColumns) FROM payment_intent WHERE stable_key = $1")
    private static let intentInsert = statement("intent_insert", "INSERT INTO payment_intent (\(intentColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)")
    private static let intentUpdate = statement("intent_update", "UPDATE payment_intent SET state = $1, updated_at = $2 WHERE id = $3")
    private static let intentList = statement("intent_list", "SELECT \(intentColumns) FROM payment_intent ORDER BY created_at DESC, id DESC LIMIT $1")
    private static let intentOpen = statement("intent_open", "SELECT id FROM payment_intent WHERE state IN ('processing', 'requires_action', 'unknown') ORDER BY created_at, id")
    private static let balanceRead = statement("balance_read", "SELECT authorized, captured, refunded FROM payment_balance WHERE intent_id = $1")
    private static let balanceSave = statement("balance_save", """
        INSERT INTO payment_balance (intent_id, authorized, captured, refunded) VALUES ($1, $2, $3, $4)
        ON CONFLICT (intent_id) DO UPDATE SET authorized = excluded.authorized, captured = excluded.captured, refunded = excluded.refunded
        """)
    private static let operationList = statement("operation_list", "SELECT \(operationColumns) FROM payment_operation WHERE intent_id = $1 ORDER BY sequence")
    private static let operationByKey = statement("operation_key", "SELECT \(operationColumns) FROM payment_operation WHERE operation_key = $1")
    private static let operationInsert = statement("operation_insert", "INSERT INTO payment_operation (\(operationColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)")
    private static let operationUpdate = statement("operation_update", """
        UPDATE payment_operation SET kind = $3, amount = $4, status = $5, operation_key = $6, processor = $7, processor_key = $8,
          processor_operation_id = $9, raw_code = $10, created_at = $11, updated_at = $12
        WHERE intent_id = $1 AND sequence = $2
        """)
    private static let operationOpen = statement("operation_open", """
        SELECT intent_id FROM payment_operation WHERE status IN ('pending', 'unknown') GROUP BY intent_id ORDER BY min(created_at), intent_id
        """)
    private static let attemptList = statement("attempt_list", "SELECT \(attemptColumns) FROM payment_attempt WHERE intent_id = $1 ORDER BY sequence")
    private static let attemptInsert = statement("attempt_insert", "INSERT INTO payment_attempt (\(attemptColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)")
    private static let attemptUpdate = statement("attempt_update", """
        UPDATE payment_attempt SET processor = $3, idempotency_key = $4, status = $5, category = $6, raw_code = $7,
          processor_payment_id = $8, authentication = $9, note = $10, started_at = $11, updated_at = $12
        WHERE intent_id = $1 AND sequence = $2
        """)
    private static let attemptRecent = statement("attempt_recent", """
        SELECT \(attemptColumns) FROM payment_attempt WHERE processor = $1 AND status <> 'skipped'
        ORDER BY started_at DESC, intent_id DESC, sequence DESC LIMIT $2
        """)
    private static let eventInsert = statement("event_insert", """
        INSERT INTO outbox_event (id, type, payment_id, created_at, body, next_attempt_at) VALUES ($1, $2, $3, $4, $5, $6)
        """)
    private static let eventDue = statement("event_due", """
        SELECT id, type, payment_id, created_at, body, attempts, next_attempt_at FROM outbox_event
        WHERE delivered_at IS NULL AND abandoned_at IS NULL AND next_attempt_at <= $1 ORDER BY next_attempt_at, seq LIMIT $2
        """)
    private static let eventList = statement("event_list", """
        SELECT id, type, payment_id, created_at, body, attempts, next_attempt_at FROM outbox_event WHERE payment_id = $1 ORDER BY seq
        """)
    private static let eventUpdate = statement("event_update", """
        UPDATE outbox_event SET attempts = coalesce($1::integer, attempts), next_attempt_at = coalesce($2::bigint, next_attempt_at),
          delivered_at = coalesce($3::bigint, delivered_at), abandoned_at = coalesce($4::bigint, abandoned_at),
          last_error = coalesce($5, last_error)
        WHERE id = $6 AND delivered_at IS NULL AND abandoned_at IS NULL RETURNING id
        """)

    private func intents(_ statement: PostgresStatement, _ parameters: [String?]) throws -> [IntentRecord] {
        let result = try connection.execute(statement, parameters)
        return try (0..<result.rowCount).map { row in
            let id = result.string(row, 0)
            return IntentRecord(
                id: id, stableKey: result.string(row, 1), route: result.string(row, 2),
                state: try LedgerRowCoding.intentState(result.string(row, 3)), methodType: result.string(row, 4),
                amount: Int(try result.int64(row, 5)), currency: result.string(row, 6), card: result.optionalString(row, 7),
                merchant: result.optionalString(row, 10), captureMode: try LedgerRowCoding.captureMode(result.string(row, 11)),
                createdAt: Date(ledgerMillis: try result.int64(row, 8)), updatedAt: Date(ledgerMillis: try result.int64(row, 9)),
                attempts: try attempts(intentId: id), balance: try balance(intentId: id), operations: try operations(intentId: id))
        }
    }

    func intent(id: String) throws -> IntentRecord? {
        try intents(writes ? Self.intentByIdForUpdate : Self.intentById, [id]).first
    }

    func intent(stableKey: String) throws -> IntentRecord? { try intents(Self.intentByKey, [stableKey]).first }

    func insertIntent(_ intent: IntentRecord) throws {
        try connection.execute(Self.intentInsert, [
            intent.id, intent.stableKey, intent.route, intent.state.rawValue, intent.methodType, String(intent.amount),
            intent.currency, intent.card, String(intent.createdAt.ledgerMillis), String(intent.updatedAt.ledgerMillis),
            intent.merchant, intent.captureMode.rawValue,
        ])
    }

    func updateIntent(id: String, state: IntentState, updatedAt: Date) throws {
        try connection.execute(Self.intentUpdate, [state.rawValue, String(updatedAt.ledgerMillis), id])
    }

    private func attemptRows(_ statement: PostgresStatement, _ parameters: [String?]) throws -> [AttemptRecord] {
        let result = try connection.execute(statement, parameters)
        return try (0..<result.rowCount).map { row in
            AttemptRecord(
                intentId: result.string(row, 0), sequence: Int(try result.int64(row, 1)), processor: result.string(row, 2),
                idempotencyKey: result.string(row, 3), status: try LedgerRowCoding.attemptStatus(result.string(row, 4)),
                category: try LedgerRowCoding.category(result.optionalString(row, 5)), rawCode: result.optionalString(row, 6),
                processorPaymentId: result.optionalString(row, 7),
                authentication: try LedgerRowCoding.authentication(result.optionalString(row, 8)), note: result.optionalString(row, 9),
                startedAt: Date(ledgerMillis: try result.int64(row, 10)), updatedAt: Date(ledgerMillis: try result.int64(row, 11)))
        }
    }

    func attempts(intentId: String) throws -> [AttemptRecord] { try attemptRows(Self.attemptList, [intentId]) }

    private func attemptParameters(_ attempt: AttemptRecord) throws -> [String?] {
        [attempt.intentId, String(attempt.sequence), attempt.processor, attempt.idempotencyKey, attempt.status.rawValue,
         attempt.category?.rawValue, attempt.rawCode, attempt.processorPaymentId,
         try LedgerRowCoding.authenticationText(attempt.authentication), attempt.note, String(attempt.startedAt.ledgerMillis),
         String(attempt.updatedAt.ledgerMillis)]
    }

    func insertAttempt(_ attempt: AttemptRecord) throws { try connection.execute(Self.attemptInsert, try attemptParameters(attempt)) }

    func updateAttempt(_ attempt: AttemptRecord) throws { try connection.execute(Self.attemptUpdate, try attemptParameters(attempt)) }

    func intents(limit: Int) throws -> [IntentRecord] { try intents(Self.intentList, [String(limit)]) }

    func openIntentIds() throws -> [String] {
        let result = try connection.execute(Self.intentOpen, [])
        return (0..<result.rowCount).map { result.string($0, 0) }
    }

    func balance(intentId: String) throws -> PaymentBalance? {
        let result = try connection.execute(Self.balanceRead, [intentId])
        guard result.rowCount > 0 else { return nil }
        return PaymentBalance(authorized: Int(try result.int64(0, 0)), captured: Int(try result.int64(0, 1)),
                              refunded: Int(try result.int64(0, 2)))
    }

    func saveBalance(intentId: String, _ balance: PaymentBalance) throws {
        do {
            try connection.execute(Self.balanceSave, [intentId, String(balance.authorized), String(balance.captured),
                                                      String(balance.refunded)])
        } catch where error.sqlState == "23514" { // check_violation
            throw LedgerError(.amountExceedsCaptured, "the payment's balance would break its constraint "
                              + "(refunds above the captured amount, or a capture above the authorized one)")
        }
    }

    func operations(intentId: String) throws -> [OperationRecord] { try operationRows(Self.operationList, [intentId]) }

    func operation(key: String) throws -> OperationRecord? { try operationRows(Self.operationByKey, [key]).first }

    private func operationRows(_ statement: PostgresStatement, _ parameters: [String?]) throws -> [OperationRecord] {
        let result = try connection.execute(statement, parameters)
        return try (0..<result.rowCount).map { row in
            OperationRecord(
                intentId: result.string(row, 0), sequence: Int(try result.int64(row, 1)),
                kind: try LedgerRowCoding.operationKind(result.string(row, 2)), amount: Int(try result.int64(row, 3)),
                status: try LedgerRowCoding.operationStatus(result.string(row, 4)), key: result.string(row, 5),
                processor: result.string(row, 6), processorKey: result.string(row, 7),
                processorOperationId: result.optionalString(row, 8), rawCode: result.optionalString(row, 9),
                createdAt: Date(ledgerMillis: try result.int64(row, 10)), updatedAt: Date(ledgerMillis: try result.int64(row, 11)))
        }
    }

    private func operationParameters(_ operation: OperationRecord) -> [String?] {
        [operation.intentId, String(operation.sequence), operation.kind.rawValue, String(operation.amount), operation.status.rawValue,
         operation.key, operation.processor, operation.processorKey, operation.processorOperationId, operation.rawCode,
         String(operation.createdAt.ledgerMillis), String(operation.updatedAt.ledgerMillis)]
    }

    func insertOperation(_ operation: OperationRecord) throws {
        try connection.execute(Self.operationInsert, operationParameters(operation))
    }

    func updateOperation(_ operation: OperationRecord) throws {
        try connection.execute(Self.operationUpdate, operationParameters(operation))
    }

    func openOperationIntentIds() throws -> [String] {
        let result = try connection.execute(Self.operationOpen, [])
        return (0..<result.rowCount).map { result.string($0, 0) }
    }

    func recentAttempts(processor: String, limit: Int) throws -> [AttemptRecord] {
        try attemptRows(Self.attemptRecent, [processor, String(limit)]).reversed()
    }

    func insertEvent(_ event: WebhookEvent, nextAttemptAt: Date) throws {
        try connection.execute(Self.eventInsert, [
            event.id, event.type, event.paymentId, String(event.createdAt.ledgerMillis), String(decoding: event.body, as: UTF8.self),
            String(nextAttemptAt.ledgerMillis),
        ])
    }

    private func entries(_ statement: PostgresStatement, _ parameters: [String?]) throws -> [OutboxEntry] {
        let result = try connection.execute(statement, parameters)
        return try (0..<result.rowCount).map { row in
            let event = WebhookEvent(id: result.string(row, 0), type: result.string(row, 1), paymentId: result.string(row, 2),
                                     createdAt: Date(ledgerMillis: try result.int64(row, 3)), body: Data(result.string(row, 4).utf8))
            return OutboxEntry(event: event, attempts: Int(try result.int64(row, 5)),
                               nextAttemptAt: Date(ledgerMillis: try result.int64(row, 6)))
        }
    }

    func dueEvents(now: Date, limit: Int) throws -> [OutboxEntry] {
        try entries(Self.eventDue, [String(now.ledgerMillis), String(limit)])
    }

    func events(paymentId: String) throws -> [WebhookEvent] { try entries(Self.eventList, [paymentId]).map(\.event) }

    func updateEvent(id: String, attempts: Int?, nextAttemptAt: Date?, deliveredAt: Date?, abandonedAt: Date?,
                     lastError: String?) throws -> Bool {
        let result = try connection.execute(Self.eventUpdate, [
            attempts.map(String.init), nextAttemptAt.map { String($0.ledgerMillis) }, deliveredAt.map { String($0.ledgerMillis) },
            abandonedAt.map { String($0.ledgerMillis) }, lastError, id,
        ])
        return result.rowCount > 0
    }
}
