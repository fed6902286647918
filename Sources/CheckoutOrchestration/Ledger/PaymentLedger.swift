import CheckoutCore
import Foundation

/// The durable record of every payment intent and each of its attempts, with the outbox of the
/// events they produce. Every change is ONE transaction: the checked state move(s) and the
/// event rows written for them commit together or not at all.
///
/// Rules enforced here, whatever the backend:
/// - one intent per stable key (`open` returns the existing one, and refuses a different payment
///   under the same key);
/// - moves follow `IntentState.canMove` / `AttemptStatus.canMove` (nothing leaves a terminal state);
/// - a new attempt is refused while another attempt of the same intent is open (pending, unknown,
///   requires action), so an unknown outcome can never be sent to a second processor;
/// - every stored string passes `LedgerText.clean` (card numbers masked), event bodies are refused
///   if they would hold one.
public final class PaymentLedger: WebhookOutbox, Sendable {
    /// The backend.
    public let storage: any LedgerStorage
    let clock: WallClock

    /// A ledger over `storage`; `clock` stamps attempts and events (tests fix or move it).
    public init(storage: any LedgerStorage, clock: WallClock = .system) {
        self.storage = storage
        self.clock = clock
    }

    /// The embedded default: a SQLite file at `path` (created and migrated when new).
    public static func sqlite(path: String, clock: WallClock = .system) throws -> PaymentLedger {
        PaymentLedger(storage: try SQLiteLedgerStorage(path: path), clock: clock)
    }

    // MARK: Changes

    /// Opens the intent of a payment, or returns the one already open under `stableKey`.
    /// - Throws: `LedgerError` `.idempotencyKeyReused` when that intent is for a different payment
    ///   (`NewIntent.differences(from:)`); the message names the fields, never the other payment.
    public func open(_ new: NewIntent) async throws -> IntentRecord {
        let date = clock.now
        let id = SafeIdentifier.random(prefix: "pi_")
        let digest = LedgerText.stableKeyDigest(new.stableKey)
        return try await storage.write { transaction in
            if let existing = try transaction.intent(stableKey: digest) {
                let differences = new.differences(from: existing)
                guard differences.isEmpty else {
                    throw LedgerError(.idempotencyKeyReused, "the idempotency key was already used for a different payment "
                                      + "(\(differences.joined(separator: ", ")) differ); use a new key for a new payment")
                }
                return existing
            }
            let record = IntentRecord(id: id, stableKey: digest, route: LedgerText.clean(new.route),
                                      state: .processing, methodType: LedgerText.clean(new.methodType), amount: new.amount,
                                      currency: LedgerText.clean(new.currency), card: LedgerText.clean(new.card),
                                      merchant: LedgerText.clean(new.merchant), captureMode: new.captureMode,
                                      createdAt: date, updatedAt: date)
            try transaction.insertIntent(record)
            return record
        }
    }

    /// Records an attempt as `pending` BEFORE it is sent.
    /// - Throws: `LedgerError` `.attemptOpen` while another attempt is open, `.illegalMove` when the
    ///   intent is terminal, `.notFound`.
    public func startAttempt(intentId: String, processor: String, idempotencyKey: String) async throws -> AttemptRecord {
        try await addAttempt(intentId: intentId, processor: processor, idempotencyKey: idempotencyKey, status: .pending, note: nil)
    }

    /// Records that `processor` was skipped (its circuit is open): visible in `ledger show`.
    public func recordSkip(intentId: String, processor: String, idempotencyKey: String, note: String) async throws -> AttemptRecord {
        try await addAttempt(intentId: intentId, processor: processor, idempotencyKey: idempotencyKey, status: .skipped, note: note)
    }

    private func addAttempt(intentId: String, processor: String, idempotencyKey: String, status: AttemptStatus,
                            note: String?) async throws -> AttemptRecord {
        let date = clock.now
        return try await storage.write { transaction in
            guard let intent = try transaction.intent(id: intentId) else {
                throw LedgerError(.notFound, "no intent \(intentId)")
            }
            guard !intent.state.isTerminal else {
                throw LedgerError(.illegalMove, "intent \(intentId) is \(intent.state.rawValue): no further attempts")
            }
            if let open = intent.attempts.first(where: { !$0.status.isTerminal }) {
                throw LedgerError(.attemptOpen, "attempt \(open.sequence) at \(open.processor) is \(open.status.rawValue); "
                                  + "the payment cannot go to another processor until it is settled")
            }
            let attempt = AttemptRecord(intentId: intentId, sequence: (intent.attempts.last?.sequence ?? 0) + 1,
                                        processor: LedgerText.clean(processor), idempotencyKey: LedgerText.clean(idempotencyKey),
                                        status: status, note: LedgerText.clean(note), startedAt: date, updatedAt: date)
            try transaction.insertAttempt(attempt)
            return attempt
        }
    }

    /// Settles an attempt and, when `intentState` is given, moves the intent, writing the event(s)
    /// of that move in the same transaction (`payment.reconciled` first when `reconciled`).
    /// - Throws: `LedgerError` `.illegalMove` for a move the state machines refuse (nothing is written).
    @discardableResult
    public func settle(intentId: String, sequence: Int, _ settlement: AttemptSettlement, intentState: IntentState?,
                       reconciled: Bool = false) async throws -> IntentRecord {
        let date = clock.now
        let eventIds = (0..<2).map { _ in SafeIdentifier.random(prefix: "evt_") }
        return try await storage.write { transaction in
            guard var intent = try transaction.intent(id: intentId) else { throw LedgerError(.notFound, "no intent \(intentId)") }
            guard let index = intent.attempts.firstIndex(where: { $0.sequence == sequence }) else {
                throw LedgerError(.notFound, "no attempt \(sequence) of \(intentId)")
            }
            var attempt = intent.attempts[index]
            let stays = attempt.status == settlement.status && !attempt.status.isTerminal
            guard stays || attempt.status.canMove(to: settlement.status) else {
                throw LedgerError(.illegalMove, "attempt \(sequence) of \(intentId) cannot move from "
                                  + "\(attempt.status.rawValue) to \(settlement.status.rawValue)")
            }
            attempt.status = settlement.status
            attempt.category = settlement.category
            attempt.rawCode = LedgerText.clean(settlement.rawCode)
            attempt.processorPaymentId = LedgerText.clean(settlement.processorPaymentId) ?? attempt.processorPaymentId
            attempt.authentication = settlement.authentication ?? attempt.authentication
            attempt.note = LedgerText.clean(settlement.note) ?? attempt.note
            attempt.updatedAt = date
            try transaction.updateAttempt(attempt)
            intent.attempts[index] = attempt
            if let intentState {
                intent = try Self.move(intent, to: intentState, reconciled: reconciled, at: date, eventIds: eventIds, transaction)
            }
            return intent
        }
    }

    /// Moves an intent (checked) and writes its event(s).
    @discardableResult
    public func move(intentId: String, to state: IntentState, reconciled: Bool = false) async throws -> IntentRecord {
        let date = clock.now
        let eventIds = (0..<2).map { _ in SafeIdentifier.random(prefix: "evt_") }
        return try await storage.write { transaction in
            guard let intent = try transaction.intent(id: intentId) else { throw LedgerError(.notFound, "no intent \(intentId)") }
            return try Self.move(intent, to: state, reconciled: reconciled, at: date, eventIds: eventIds, transaction)
        }
    }

    private static func move(_ intent: IntentRecord, to state: IntentState, reconciled: Bool, at date: Date, eventIds: [String],
                             _ transaction: any LedgerTransaction) throws -> IntentRecord {
        var intent = intent
        if intent.state == state && !reconciled { return intent }
        guard intent.state == state || intent.state.canMove(to: state) else {
            throw LedgerError(.illegalMove, "intent \(intent.id) cannot move from \(intent.state.rawValue) to \(state.rawValue)")
        }
        intent.state = state
        intent.updatedAt = date
        try transaction.updateIntent(id: intent.id, state: state, updatedAt: date)
        // The authorization succeeded: its money, taken at once or held for a capture.
        if state == .succeeded || state == .requiresCapture, intent.balance == nil {
            let balance = PaymentBalance(authorized: intent.amount, captured: state == .succeeded ? intent.amount : 0, refunded: 0)
            try transaction.saveBalance(intentId: intent.id, balance)
            intent.balance = balance
        }
        var types: [String] = []
        if reconciled { types.append("payment.reconciled") }
        if state != .processing { types.append(state.eventType) }
        for (id, type) in zip(eventIds, types) {
            let body = try LedgerText.eventBody(id: id, type: type, intent: intent, at: date)
            try transaction.insertEvent(WebhookEvent(id: id, type: type, paymentId: intent.id, createdAt: date, body: body),
                                        nextAttemptAt: date)
        }
        return intent
    }

    /// Writes an event that is not a payment's state change to the outbox (the hosted checkout's `checkout.completed`
    /// and `checkout.cancelled`), delivered, signed and retried like the others. `subject` is what it is about (a
    /// checkout id, kept as the event's `paymentId`); the body is `{"id", "type", "createdAt", "data"}`.
    /// - Throws: `LedgerError` `.cardDataRefused` when the body would hold a card number; a storage error.
    @discardableResult
    public func recordEvent(type: String, subject: String, data: JSONObject) async throws -> WebhookEvent {
        let id = SafeIdentifier.random(prefix: "evt_"), date = clock.now
        let event = WebhookEvent(id: id, type: type, paymentId: subject, createdAt: date,
                                 body: try LedgerText.eventBody(id: id, type: type, data: data, at: date))
        try await storage.write { transaction in try transaction.insertEvent(event, nextAttemptAt: date) }
        return event
    }

    // MARK: Reading

    /// The intent with its attempts.
    public func intent(id: String) async throws -> IntentRecord? {
        try await storage.read { try $0.intent(id: id) }
    }

    /// The intent of a stable key (the ledger stores only the key's digest).
    public func intent(stableKey: String) async throws -> IntentRecord? {
        let digest = LedgerText.stableKeyDigest(stableKey)
        return try await storage.read { try $0.intent(stableKey: digest) }
    }

    /// The newest intents first.
    public func intents(limit: Int = 100) async throws -> [IntentRecord] {
        try await storage.read { try $0.intents(limit: max(1, min(limit, 10_000))) }
    }

    /// The intents that are not terminal (what `reconcile()` looks at), oldest first.
    public func openIntents() async throws -> [IntentRecord] {
        try await storage.read { transaction in try transaction.openIntentIds().compactMap { try transaction.intent(id: $0) } }
    }

    /// The last attempts sent to `processor`, oldest first (to rebuild its circuit).
    public func recentAttempts(processor: String, limit: Int) async throws -> [AttemptRecord] {
        try await storage.read { try $0.recentAttempts(processor: processor, limit: limit) }
    }

    /// Every event written for a payment, oldest first.
    public func events(paymentId: String) async throws -> [WebhookEvent] {
        try await storage.read { try $0.events(paymentId: paymentId) }
    }

    // MARK: WebhookOutbox

    public func dueEvents(now: Date, limit: Int) async throws -> [OutboxEntry] {
        try await storage.read { try $0.dueEvents(now: now, limit: max(1, min(limit, 1000))) }
    }

    public func markDelivered(eventId: String, at: Date) async throws {
        try await updateEvent(eventId) { try $0.updateEvent(id: eventId, attempts: nil, nextAttemptAt: nil, deliveredAt: at,
                                                             abandonedAt: nil, lastError: nil) }
    }

    public func scheduleRetry(eventId: String, attempts: Int, nextAttemptAt: Date, lastError: String) async throws {
        let error = LedgerText.clean(lastError)
        try await updateEvent(eventId) { try $0.updateEvent(id: eventId, attempts: attempts, nextAttemptAt: nextAttemptAt,
                                                             deliveredAt: nil, abandonedAt: nil, lastError: error) }
    }

    public func markAbandoned(eventId: String, at: Date, lastError: String) async throws {
        let error = LedgerText.clean(lastError)
        try await updateEvent(eventId) { try $0.updateEvent(id: eventId, attempts: nil, nextAttemptAt: nil, deliveredAt: nil,
                                                             abandonedAt: at, lastError: error) }
    }

    private func updateEvent(_ id: String, _ body: @escaping @Sendable (any LedgerTransaction) throws -> Bool) async throws {
        guard try await storage.write(body) else {
            throw LedgerError(.notFound, "no undelivered event \(id)")
        }
    }
}
