import CheckoutCore
import Foundation

extension PaymentRouter {
    /// Captures all (`amount` nil) or part of a `manual` payment's authorization at the processor
    /// that holds it. A partial capture releases the rest. The same `idempotencyKey` again reports
    /// the same capture.
    public func capture(paymentId: String, amount: Int? = nil, idempotencyKey: String) async throws -> OperationResult {
        try await operate(.capture, paymentId: paymentId, amount: amount, idempotencyKey: idempotencyKey)
    }

    /// Releases a `manual` payment's authorization before any capture.
    public func void(paymentId: String, idempotencyKey: String) async throws -> OperationResult {
        try await operate(.void, paymentId: paymentId, amount: nil, idempotencyKey: idempotencyKey)
    }

    /// Refunds all that is left (`amount` nil) or part of what was captured. Several partial refunds
    /// add up to at most the captured amount: the ledger's storage refuses more, even when refunds
    /// run at once.
    public func refund(paymentId: String, amount: Int? = nil, idempotencyKey: String) async throws -> OperationResult {
        try await operate(.refund, paymentId: paymentId, amount: amount, idempotencyKey: idempotencyKey)
    }

    /// Checks and records the operation in the ledger, sends it to the processor that holds the
    /// payment, and records the answer. A refusal (by the ledger or the processor) is a `failed`
    /// result with its code; only a storage failure throws.
    func operate(_ kind: OperationKind, paymentId: String, amount: Int?, idempotencyKey: String) async throws -> OperationResult {
        guard let intent = try await ledger.intent(id: paymentId) else {
            return Self.refused(kind, paymentId: paymentId, amount: amount, currency: "", code: "not-found", message: "no payment \(paymentId)")
        }
        guard let attempt = intent.authorizingAttempt, let processor = processors[attempt.processor],
              let processorPaymentId = attempt.processorPaymentId else {
            let code: LedgerError.Code = kind == .capture ? .notCapturable : kind == .void ? .notVoidable : .notRefundable
            return Self.refused(kind, intent: intent, amount: amount, code: code.rawValue,
                                message: "the payment is \(intent.state.rawValue): no processor holds it")
        }
        let start: OperationStart
        do {
            start = try await ledger.beginOperation(intentId: intent.id, kind: kind, amount: amount, idempotencyKey: idempotencyKey,
                                                    processor: processor.name)
        } catch let error as LedgerError where error.code != .corrupt {
            return Self.refused(kind, intent: intent, amount: amount, code: error.code.rawValue, message: error.message)
        }
        switch start {
        case .existing(let operation, let current) where operation.status.isFinal:
            return Self.result(operation, intent: current)
        case .existing(let operation, _):
            let settled = try await settleByStatus(operation, processor: processor, reconciled: false)
            return Self.result(settled.operation, intent: settled.intent)
        case .started(let operation, _):
            let request = OperationRequest(kind: kind, paymentId: processorPaymentId, amount: operation.amount,
                                           currency: intent.currency, idempotencyKey: operation.processorKey)
            let answer: OperationResponse?
            do {
                answer = try await processor.perform(request)
            } catch let failure as AttemptFailure where !failure.sent {
                answer = OperationResponse(status: .failed, rawCode: failure.rawCode)
            } catch {
                answer = nil
            }
            guard let answer else {
                let settled = try await settleByStatus(operation, processor: processor, reconciled: false)
                return Self.result(settled.operation, intent: settled.intent)
            }
            let updated = try await ledger.settleOperation(intentId: intent.id, sequence: operation.sequence, answer)
            return Self.result(updated.operations.first { $0.sequence == operation.sequence } ?? operation, intent: updated)
        }
    }

    /// Asks the processor what it holds under an open operation's key and records it: found is its
    /// answer; not found once `notFoundGrace` has passed is `failed` (never processed); anything
    /// else leaves it `unknown` for a later `reconcile()`.
    func settleByStatus(_ operation: OperationRecord, processor: any RoutableProcessor,
                        reconciled: Bool) async throws -> (operation: OperationRecord, intent: IntentRecord) {
        let answer: OperationResponse
        do {
            switch try await processor.operationStatus(idempotencyKey: operation.processorKey) {
            case .found(let found): answer = found
            case .notFound where clock.now.timeIntervalSince(operation.createdAt) >= notFoundGrace:
                answer = OperationResponse(status: .failed, rawCode: "not-found")
            case .notFound: answer = OperationResponse(status: .unknown)
            }
        } catch {
            answer = OperationResponse(status: .unknown)
        }
        let intent: IntentRecord
        if answer.status == operation.status && (answer.status == .unknown || answer.status == .pending) {
            guard let current = try await ledger.intent(id: operation.intentId) else {
                throw LedgerError(.notFound, "no payment \(operation.intentId)")
            }
            intent = current
        } else {
            intent = try await ledger.settleOperation(intentId: operation.intentId, sequence: operation.sequence, answer,
                                                      reconciled: reconciled)
        }
        return (intent.operations.first { $0.sequence == operation.sequence } ?? operation, intent)
    }

    static func result(_ operation: OperationRecord, intent: IntentRecord) -> OperationResult {
        var result = OperationResult(paymentId: intent.id, operation: operation.kind, status: operation.status, amount: operation.amount,
                                     currency: intent.currency, captured: intent.balance?.captured ?? 0, refunded: intent.refundedAmount)
        switch operation.status {
        case .failed:
            result.errorCode = operation.rawCode ?? "operation-failed"
            result.errorMessage = "the processor refused the \(operation.kind.rawValue)"
        case .unknown:
            result.errorCode = "outcome-unknown"
            result.errorMessage = "no answer from the processor; `ledger reconcile` settles it"
        case .pending, .succeeded:
            break
        }
        return result
    }

    static func refused(_ kind: OperationKind, intent: IntentRecord, amount: Int?, code: String, message: String) -> OperationResult {
        var result = refused(kind, paymentId: intent.id, amount: amount, currency: intent.currency, code: code, message: message)
        result.captured = intent.balance?.captured ?? 0
        result.refunded = intent.refundedAmount
        return result
    }

    static func refused(_ kind: OperationKind, paymentId: String, amount: Int?, currency: String, code: String,
                        message: String) -> OperationResult {
        OperationResult(paymentId: paymentId, operation: kind, status: .failed, amount: amount ?? 0, currency: currency, captured: 0,
                        refunded: 0, errorCode: code, errorMessage: message)
    }
}
