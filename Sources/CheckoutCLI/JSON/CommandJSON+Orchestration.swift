import CheckoutOrchestration
import Foundation

extension CommandJSON {
    /// One processor attempt, as `pay --routing`, `ledger show` and `ledger reconcile` print it.
    struct Attempt: Encodable {
        let processor: String
        let category: JSONNullable<String>
        let rawCode: JSONNullable<String>
        let status: String
        let idempotencyKey: String
        let note: JSONNullable<String>
        let authenticated: Bool

        init(_ attempt: AttemptRecord) {
            processor = attempt.processor
            category = JSONNullable(attempt.category?.rawValue)
            rawCode = JSONNullable(attempt.rawCode)
            status = attempt.status.rawValue
            idempotencyKey = attempt.idempotencyKey
            note = JSONNullable(attempt.note)
            authenticated = attempt.authentication != nil
        }
    }

    /// `pay --routing --json`.
    struct RoutedPayment: Encodable {
        let route: JSONNullable<String>
        let outcome: String
        let paymentId: JSONNullable<String>
        /// The payment's amount in minor units and its currency (the ledger's, else the request's).
        let amount: Int
        let currency: String
        let attempts: [Attempt]
        let error: JSONNullable<Failure.Detail>
    }

    /// `webhooks deliver --json`.
    struct WebhookDelivery: Encodable {
        let delivered: Int
        let retried: Int
        let abandoned: Int
        let deferred: Int
    }

    /// `capture|void|refund --json`.
    struct Operation: Encodable {
        let paymentId: String
        let operation: String
        let status: String
        let amount: Int
        let currency: String
        let captured: Int
        let refunded: Int
        let error: JSONNullable<Failure.Detail>
    }

    /// An invalid routing file with `--json`: `{"errors":[{"path","message"}]}`.
    struct RoutingErrors: Encodable {
        /// One problem, at its JSON path.
        struct Issue: Encodable {
            let path: String
            let message: String
        }

        let errors: [Issue]
    }

    /// One intent of `ledger list --json` (`attempts` is their number), and the fields `ledger show`
    /// shares with it.
    struct IntentSummary: Encodable {
        let id: String
        let state: String
        let route: String
        let amount: Int
        let currency: String
        let methodType: String
        let card: JSONNullable<String>
        let attempts: Int
        let createdAt: String
        let updatedAt: String

        init(_ intent: IntentRecord) {
            let formatter = ISO8601DateFormatter()
            id = intent.id
            state = intent.state.rawValue
            route = intent.route
            amount = intent.amount
            currency = intent.currency
            methodType = intent.methodType
            card = JSONNullable(intent.card)
            attempts = intent.attempts.count
            createdAt = formatter.string(from: intent.createdAt)
            updatedAt = formatter.string(from: intent.updatedAt)
        }
    }

    /// `ledger list --json`.
    struct IntentList: Encodable {
        let intents: [IntentSummary]
    }

    /// `ledger show --json`: the summary's fields with every attempt and event instead of their count.
    struct IntentDetail: Encodable {
        /// One event of the intent.
        struct Event: Encodable {
            let id: String
            let type: String
        }

        /// One capture, void or refund.
        struct Operation: Encodable {
            let sequence: Int
            let kind: String
            let amount: Int
            let status: String
            let processor: String
            let rawCode: JSONNullable<String>
            let createdAt: String

            init(_ operation: OperationRecord) {
                sequence = operation.sequence
                kind = operation.kind.rawValue
                amount = operation.amount
                status = operation.status.rawValue
                processor = operation.processor
                rawCode = JSONNullable(operation.rawCode)
                createdAt = ISO8601DateFormatter().string(from: operation.createdAt)
            }
        }

        let summary: IntentSummary
        let attempts: [Attempt]
        let events: [Event]
        let intent: IntentRecord

        private enum CodingKeys: String, CodingKey {
            case id, state, route, amount, currency, methodType, card, attempts, createdAt, updatedAt, events
            case captureMode, captured, refunded, operations
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(summary.id, forKey: .id)
            try container.encode(summary.state, forKey: .state)
            try container.encode(summary.route, forKey: .route)
            try container.encode(summary.amount, forKey: .amount)
            try container.encode(summary.currency, forKey: .currency)
            try container.encode(summary.methodType, forKey: .methodType)
            try container.encode(summary.card, forKey: .card)
            try container.encode(attempts, forKey: .attempts)
            try container.encode(summary.createdAt, forKey: .createdAt)
            try container.encode(summary.updatedAt, forKey: .updatedAt)
            try container.encode(events, forKey: .events)
            try container.encode(intent.captureMode.rawValue, forKey: .captureMode)
            try container.encode(intent.balance?.captured ?? 0, forKey: .captured)
            try container.encode(intent.refundedAmount, forKey: .refunded)
            try container.encode(intent.operations.map(Operation.init), forKey: .operations)
        }
    }

    /// `ledger reconcile --json`.
    struct Reconciliation: Encodable {
        /// One intent moved to a terminal state.
        struct Entry: Encodable {
            let paymentId: String
            let from: String
            let to: String
        }

        /// One capture, void or refund looked at.
        struct OperationEntry: Encodable {
            let paymentId: String
            let sequence: Int
            let operation: String
            let from: String
            let to: String
        }

        let reconciled: [Entry]
        let operations: [OperationEntry]
        let stillOpen: Int
    }

    /// `route explain --json`.
    struct Explanation: Encodable {
        /// One route's verdict.
        struct Verdict: Encodable {
            let name: String
            let matched: Bool
            let reasons: [String]
        }

        /// One processor of the chosen route.
        struct Processor: Encodable {
            let name: String
            let weight: JSONNullable<Int>
            let skipped: Bool
            let skippedUntil: JSONNullable<String>
            /// Why it would be skipped: `circuit-open`, `currency` (it does not take the payment's), or null.
            let skippedFor: JSONNullable<String>
            /// On an auth-rate route: the learned authorization rate (with --ledger), else null.
            let authRate: JSONNullable<Double>
        }

        /// The facts the routes were matched against.
        struct Facts: Encodable {
            let methodType: String
            let cardNetwork: JSONNullable<String>
            let bin: JSONNullable<String>
            let issuerCountry: JSONNullable<String>
            let currency: String
            let amount: Int
            let merchant: [String: String]
            let customer: [String: String]
        }

        let route: JSONNullable<String>
        let reasons: [String]
        let routes: [Verdict]
        let processors: [Processor]
        let fallbackOn: [String]
        let neverFallBack: [String]
        let weighted: Bool
        let facts: Facts
    }
}
