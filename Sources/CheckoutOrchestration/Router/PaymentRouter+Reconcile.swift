import CheckoutCore
import Foundation

/// What `PaymentRouter.reconcile()` did.
public struct ReconcileReport: Sendable, Equatable {
    /// One intent looked at.
    public struct Entry: Sendable, Equatable {
        public var intentId: String
        public var from: IntentState
        public var to: IntentState
    }

    /// One capture, void or refund looked at.
    public struct OperationEntry: Sendable, Equatable {
        public var intentId: String
        public var sequence: Int
        public var kind: OperationKind
        public var from: OperationStatus
        public var to: OperationStatus
    }

    /// Every non-terminal intent found, with where it ended.
    public var entries: [Entry]
    /// Every capture, void or refund left `pending` or `unknown`, with where it ended.
    public var operations: [OperationEntry] = []
    /// How many are still open: intents not terminal (an unknown outcome whose status call failed,
    /// a pending challenge) and operations not final (no answer yet, a refund the bank has not settled).
    public var stillOpen: Int { entries.filter { !$0.to.isTerminal }.count + operations.filter { !$0.to.isFinal }.count }
}

extension PaymentRouter {
    /// After a crash: finds every intent that is not terminal and settles it through the processors'
    /// status calls. An open attempt found charged becomes `succeeded`, declined becomes `failed`, not
    /// found becomes `failed` once it was sent longer ago than `notFoundGrace` (nothing was charged, and
    /// nothing still on its way can land; sooner, it stays `unknown` for a later reconcile); an intent with no open attempt left (the crash came
    /// between attempts) becomes `failed` (a reconcile never sends a payment anywhere). Each settled
    /// intent gets a `payment.reconciled` event with its final event, in the same transaction.
    /// Captures, voids and refunds left `pending` or `unknown` are settled the same way through the
    /// processor's operation status (a refund the bank failed after accepting it gets `refund.failed`).
    public func reconcile() async throws -> ReconcileReport {
        var entries: [ReconcileReport.Entry] = []
        for intent in try await ledger.openIntents() {
            let settled = try await reconcile(intent)
            entries.append(.init(intentId: intent.id, from: intent.state, to: settled.intent.state))
        }
        var operations: [ReconcileReport.OperationEntry] = []
        for intent in try await ledger.intentsWithOpenOperations() {
            for operation in intent.operations where !operation.status.isFinal {
                guard let processor = processors[operation.processor] else { continue }
                let settled = try await settleByStatus(operation, processor: processor, reconciled: true)
                operations.append(.init(intentId: intent.id, sequence: operation.sequence, kind: operation.kind,
                                        from: operation.status, to: settled.operation.status))
            }
        }
        return ReconcileReport(entries: entries, operations: operations)
    }

    /// Settles one intent. With `live` (a retry of a running payment), a not-found attempt may fall back
    /// to the next processor instead of failing the intent.
    func reconcile(_ intent: IntentRecord, live: Bool = false) async throws -> Settled {
        guard let open = intent.attempts.last(where: { !$0.status.isTerminal }) else {
            if live && intent.state == .processing { return Settled(intent: intent, response: nil, continueRouting: true) }
            let moved = intent.state.isTerminal ? intent : try await ledger.move(intentId: intent.id, to: .failed, reconciled: true)
            return Settled(intent: moved, response: nil, continueRouting: false)
        }
        if open.status == .requiresAction { return Settled(intent: intent, response: nil, continueRouting: false) }
        guard let processor = processors[open.processor] else {
            return Settled(intent: intent, response: nil, continueRouting: false)
        }
        let outcome = await statusCall(processor, key: open.idempotencyKey, rawCode: open.rawCode)
        let route = file.routes.first { $0.name == intent.route } ?? Route(name: intent.route, processors: [])
        let stillUnknown: Bool
        switch outcome {
        case .unknown: stillUnknown = true
        case .notFound: stillUnknown = tooSoonToTrustNotFound(open)
        default: stillUnknown = false
        }
        if stillUnknown && intent.state == .unknown && open.status == .unknown {
            return Settled(intent: intent, response: nil, continueRouting: false)
        }
        return try await settle(intent, attempt: open, processor: processor, outcome: outcome, route: route,
                                authentication: nil, canContinue: live, reconciled: !live)
    }
}
