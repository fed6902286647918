import Foundation

/// The ledger's database, behind one small protocol so SQLite (embedded default) and PostgreSQL
/// share every rule in `PaymentLedger`: a backend only runs SQL inside a transaction.
///
/// `write` runs its body in ONE transaction (all or nothing) off the cooperative pool; `read`
/// runs it on a consistent snapshot.
public protocol LedgerStorage: Sendable {
    func write<T: Sendable>(_ body: @escaping @Sendable (any LedgerTransaction) throws -> T) async throws -> T
    func read<T: Sendable>(_ body: @escaping @Sendable (any LedgerTransaction) throws -> T) async throws -> T
}

/// The SQL a backend runs inside a transaction. Times are epoch milliseconds.
public protocol LedgerTransaction {
    func intent(id: String) throws -> IntentRecord?
    func intent(stableKey: String) throws -> IntentRecord?
    func insertIntent(_ intent: IntentRecord) throws
    func updateIntent(id: String, state: IntentState, updatedAt: Date) throws
    /// The intent's attempts in sequence order.
    func attempts(intentId: String) throws -> [AttemptRecord]
    func insertAttempt(_ attempt: AttemptRecord) throws
    func updateAttempt(_ attempt: AttemptRecord) throws
    /// Newest first.
    func intents(limit: Int) throws -> [IntentRecord]
    /// Ids of intents that are not terminal, oldest first.
    func openIntentIds() throws -> [String]
    /// The last `limit` attempts at `processor` that were sent, oldest first.
    func recentAttempts(processor: String, limit: Int) throws -> [AttemptRecord]
    func insertEvent(_ event: WebhookEvent, nextAttemptAt: Date) throws
    func dueEvents(now: Date, limit: Int) throws -> [OutboxEntry]
    /// Every event of a payment, oldest first (for `ledger show` and tests).
    func events(paymentId: String) throws -> [WebhookEvent]
    /// The money of a payment, once its authorization succeeded.
    func balance(intentId: String) throws -> PaymentBalance?
    /// Writes the money of a payment (insert or update).
    /// - Throws: `LedgerError` `.amountExceedsCaptured` when the storage's constraint refuses it
    ///   (`captured > authorized` or `refunded > captured`); the transaction is then rolled back.
    func saveBalance(intentId: String, _ balance: PaymentBalance) throws
    /// The payment's operations in sequence order.
    func operations(intentId: String) throws -> [OperationRecord]
    /// The operation under a key digest.
    func operation(key: String) throws -> OperationRecord?
    func insertOperation(_ operation: OperationRecord) throws
    func updateOperation(_ operation: OperationRecord) throws
    /// Ids of payments with an operation still `pending` or `unknown`, oldest first.
    func openOperationIntentIds() throws -> [String]
    /// Sets the delivery columns of an event; false when there is no such undelivered event.
    func updateEvent(id: String, attempts: Int?, nextAttemptAt: Date?, deliveredAt: Date?, abandonedAt: Date?,
                     lastError: String?) throws -> Bool
}

extension Date {
    /// Epoch milliseconds, as the ledger stores times.
    public var ledgerMillis: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }
    /// A date from epoch milliseconds.
    public init(ledgerMillis: Int64) { self.init(timeIntervalSince1970: TimeInterval(ledgerMillis) / 1000) }
}
