import CheckoutCore
import Foundation

/// What `PaymentLedger.beginOperation` found or wrote.
public enum OperationStart: Sendable, Equatable {
    /// A new operation, `pending`, to be sent now.
    case started(OperationRecord, IntentRecord)
    /// The operation already made under the same key (a retry): settled, or still open.
    case existing(OperationRecord, IntentRecord)
}

extension PaymentLedger {
    /// The digest stored for an operation's idempotency key (`ok_` and letters; the key is never stored).
    public static func operationKeyDigest(_ key: String) -> String {
        "ok_" + LedgerText.stableKeyDigest("operation:" + key).dropFirst(3)
    }

    /// Starts a capture, void or refund of a payment, checked and recorded in one transaction
    /// before anything is sent: the same key again returns the operation it made (a different
    /// operation under it is refused); a refund reserves its amount in the payment's balance, whose
    /// storage constraint refuses refunds above the captured amount even when they run at once.
    /// - Parameters:
    ///   - amount: minor units; nil means all that is left (the authorized amount for a capture, the
    ///     captured amount not yet refunded for a refund). Ignored for a void.
    /// - Throws: `LedgerError`: `.idempotencyKeyReused`, `.notCapturable`, `.alreadyVoided`,
    ///   `.notVoidable`, `.notRefundable`, `.invalidAmount`, `.amountExceedsCaptured`, `.operationOpen`,
    ///   `.notFound`.
    public func beginOperation(intentId: String, kind: OperationKind, amount: Int?, idempotencyKey: String,
                               processor: String) async throws -> OperationStart {
        let date = clock.now
        let key = Self.operationKeyDigest(idempotencyKey)
        let processorKey = AttemptKey.derive(paymentKey: key, processor: processor)
        return try await storage.write { transaction in
            guard var intent = try transaction.intent(id: intentId) else { throw LedgerError(.notFound, "no payment \(intentId)") }
            if let existing = try transaction.operation(key: key) {
                guard existing.intentId == intentId, existing.kind == kind, amount == nil || amount == existing.amount else {
                    throw LedgerError(.idempotencyKeyReused, "the idempotency key was already used for another operation; "
                                      + "use a new key for a new operation")
                }
                return .existing(existing, intent)
            }
            let open = intent.operations.first { !$0.status.isFinal && $0.kind != .refund }
            var balance = intent.balance ?? Self.balanceBeforeOperations(intent)
            let value: Int
            switch kind {
            case .capture, .void:
                guard intent.state == .requiresCapture else {
                    if intent.state == .voided { throw LedgerError(.alreadyVoided, "the payment's authorization was voided") }
                    if kind == .void && intent.state.isRefundable {
                        throw LedgerError(.notVoidable, "the payment was captured; refund it instead")
                    }
                    throw LedgerError(kind == .capture ? .notCapturable : .notVoidable,
                                      "the payment is \(intent.state.rawValue), not waiting for a capture")
                }
                if let open {
                    throw LedgerError(.operationOpen, "a \(open.kind.rawValue) of the payment is still \(open.status.rawValue)")
                }
                value = kind == .void ? 0 : (amount ?? balance.authorized)
                if kind == .capture {
                    guard value >= 1 else { throw LedgerError(.invalidAmount, "a capture takes 1 or more minor units") }
                    guard value <= balance.authorized else {
                        throw LedgerError(.amountExceedsCaptured, "a capture of \(value) exceeds the authorized \(balance.authorized)")
                    }
                }
            case .refund:
                if intent.state == .refunded {
                    throw LedgerError(.amountExceedsCaptured, "everything captured was refunded")
                }
                guard intent.state.isRefundable, balance.captured > 0 else {
                    throw LedgerError(.notRefundable, "the payment is \(intent.state.rawValue): nothing was captured to refund")
                }
                value = amount ?? (balance.captured - balance.refunded)
                guard value >= 1 else {
                    throw LedgerError(value == 0 ? .amountExceedsCaptured : .invalidAmount,
                                      value == 0 ? "everything captured is refunded or being refunded" : "a refund takes 1 or more minor units")
                }
                balance.refunded += value
                try transaction.saveBalance(intentId: intentId, balance)
                intent.balance = balance
            }
            let operation = OperationRecord(intentId: intentId, sequence: (intent.operations.last?.sequence ?? 0) + 1, kind: kind,
                                            amount: value, status: .pending, key: key, processor: LedgerText.clean(processor),
                                            processorKey: processorKey, createdAt: date, updatedAt: date)
            try transaction.insertOperation(operation)
            intent.operations.append(operation)
            return .started(operation, intent)
        }
    }

    /// Settles an operation with the processor's answer, in one transaction with what follows from
    /// it: a succeeded capture sets the captured amount (`captured` / `partially-captured`), a void
    /// moves the payment to `voided`, a refund to `partially-refunded` / `refunded`; a failed refund
    /// releases its reservation. The events `payment.captured`, `payment.voided`,
    /// `refund.succeeded` and `refund.failed` are written in the same transaction.
    /// - Throws: `LedgerError` `.illegalMove` when the operation is already final with another status.
    @discardableResult
    public func settleOperation(intentId: String, sequence: Int, _ answer: OperationResponse,
                                reconciled: Bool = false) async throws -> IntentRecord {
        let date = clock.now
        let eventId = SafeIdentifier.random(prefix: "evt_")
        return try await storage.write { transaction in
            guard var intent = try transaction.intent(id: intentId) else { throw LedgerError(.notFound, "no payment \(intentId)") }
            guard let index = intent.operations.firstIndex(where: { $0.sequence == sequence }) else {
                throw LedgerError(.notFound, "no operation \(sequence) of \(intentId)")
            }
            var operation = intent.operations[index]
            if operation.status.isFinal {
                guard operation.status == answer.status else {
                    throw LedgerError(.illegalMove, "operation \(sequence) of \(intentId) is already \(operation.status.rawValue)")
                }
                return intent
            }
            operation.status = answer.status
            operation.processorOperationId = LedgerText.clean(answer.operationId) ?? operation.processorOperationId
            operation.rawCode = LedgerText.clean(answer.rawCode)
            operation.updatedAt = date
            try transaction.updateOperation(operation)
            intent.operations[index] = operation
            guard answer.status.isFinal else { return intent }
            var balance = intent.balance ?? Self.balanceBeforeOperations(intent)
            var next: IntentState?
            var event: String?
            switch (operation.kind, answer.status) {
            case (.capture, .succeeded):
                balance.captured = operation.amount
                next = operation.amount == balance.authorized ? .captured : .partiallyCaptured
                event = "payment.captured"
            case (.void, .succeeded):
                next = .voided
                event = "payment.voided"
            case (.refund, .succeeded):
                let refunded = intent.refundedAmount
                next = refunded >= balance.captured ? .refunded : .partiallyRefunded
                event = "refund.succeeded"
            case (.refund, _):
                balance.refunded -= operation.amount
                event = "refund.failed"
            default:
                break
            }
            if balance != intent.balance {
                try transaction.saveBalance(intentId: intentId, balance)
                intent.balance = balance
            }
            if let next, next != intent.state {
                guard intent.state.canMove(to: next) else {
                    throw LedgerError(.illegalMove, "payment \(intentId) cannot move from \(intent.state.rawValue) to \(next.rawValue)")
                }
                intent.state = next
                intent.updatedAt = date
                try transaction.updateIntent(id: intentId, state: next, updatedAt: date)
            }
            if let event {
                let body = try LedgerText.operationEventBody(id: eventId, type: event, intent: intent, operation: operation,
                                                             reconciled: reconciled, at: date)
                try transaction.insertEvent(WebhookEvent(id: eventId, type: event, paymentId: intentId, createdAt: date, body: body),
                                            nextAttemptAt: date)
            }
            return intent
        }
    }

    /// The money of a payment written before the ledger kept balances (an automatic payment that
    /// succeeded then had taken its whole amount).
    static func balanceBeforeOperations(_ intent: IntentRecord) -> PaymentBalance {
        PaymentBalance(authorized: intent.amount, captured: intent.state == .succeeded ? intent.amount : 0, refunded: 0)
    }

    /// The payments with a capture, void or refund still `pending` or `unknown` (what `reconcile()` settles).
    public func intentsWithOpenOperations() async throws -> [IntentRecord] {
        try await storage.read { transaction in
            try transaction.openOperationIntentIds().compactMap { try transaction.intent(id: $0) }
        }
    }
}
