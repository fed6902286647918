import Foundation

/// A payment intent as the ledger holds it, with its attempts in order.
public struct IntentRecord: Sendable, Equatable {
    /// The ledger's id (`pi_...`), also the payment id the router reports.
    public var id: String
    /// The digest (`sk_...`) of the payment's stable key (the session's idempotency key): one intent
    /// per key. The key itself is never stored.
    public var stableKey: String
    /// The route chosen.
    public var route: String
    public var state: IntentState
    public var methodType: String
    public var amount: Int
    public var currency: String
    /// The masked card (first 6 and last 4 digits at most), when a card.
    public var card: String?
    /// The merchant the payment was made for (nil in intents written before the ledger kept it).
    public var merchant: String?
    /// When the money is taken.
    public var captureMode: CaptureMode
    public var createdAt: Date
    public var updatedAt: Date
    /// The attempts, in order (skips included).
    public var attempts: [AttemptRecord]
    /// The money, once the authorization succeeded.
    public var balance: PaymentBalance?
    /// Captures, voids and refunds, in order.
    public var operations: [OperationRecord]

    public init(id: String, stableKey: String, route: String, state: IntentState, methodType: String, amount: Int,
                currency: String, card: String?, merchant: String? = nil, captureMode: CaptureMode = .automatic,
                createdAt: Date, updatedAt: Date, attempts: [AttemptRecord] = [], balance: PaymentBalance? = nil,
                operations: [OperationRecord] = []) {
        self.id = id
        self.stableKey = stableKey
        self.route = route
        self.state = state
        self.methodType = methodType
        self.amount = amount
        self.currency = currency
        self.card = card
        self.merchant = merchant
        self.captureMode = captureMode
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.attempts = attempts
        self.balance = balance
        self.operations = operations
    }

    /// The attempt that took the payment (its processor holds it), if one did.
    public var authorizingAttempt: AttemptRecord? { attempts.last { $0.status == .succeeded } }
    /// What succeeded refunds gave back.
    public var refundedAmount: Int {
        operations.filter { $0.kind == .refund && $0.status == .succeeded }.reduce(0) { $0 + $1.amount }
    }
}

/// One attempt at one processor.
public struct AttemptRecord: Sendable, Equatable {
    public var intentId: String
    /// 1, 2, ... within the intent.
    public var sequence: Int
    public var processor: String
    /// The attempt's idempotency key (`AttemptKey.derive`).
    public var idempotencyKey: String
    public var status: AttemptStatus
    public var category: DeclineCategory?
    public var rawCode: String?
    /// The processor's payment id, once known.
    public var processorPaymentId: String?
    /// A 3-D Secure result this attempt completed or carried.
    public var authentication: AuthenticationResult?
    /// Why it was skipped or how it was settled (`circuit-open`, `reconciled`, ...).
    public var note: String?
    public var startedAt: Date
    public var updatedAt: Date

    public init(intentId: String, sequence: Int, processor: String, idempotencyKey: String, status: AttemptStatus,
                category: DeclineCategory? = nil, rawCode: String? = nil, processorPaymentId: String? = nil,
                authentication: AuthenticationResult? = nil, note: String? = nil, startedAt: Date, updatedAt: Date) {
        self.intentId = intentId
        self.sequence = sequence
        self.processor = processor
        self.idempotencyKey = idempotencyKey
        self.status = status
        self.category = category
        self.rawCode = rawCode
        self.processorPaymentId = processorPaymentId
        self.authentication = authentication
        self.note = note
        self.startedAt = startedAt
        self.updatedAt = updatedAt
    }
}

/// What the router knows when it opens an intent.
public struct NewIntent: Sendable, Equatable {
    public var stableKey: String
    public var route: String
    public var methodType: String
    public var amount: Int
    public var currency: String
    /// Masked card data only.
    public var card: String?
    /// The merchant the payment is for.
    public var merchant: String?
    /// When the money is taken.
    public var captureMode: CaptureMode

    public init(stableKey: String, route: String, methodType: String, amount: Int, currency: String, card: String?,
                merchant: String? = nil, captureMode: CaptureMode = .automatic) {
        self.stableKey = stableKey
        self.route = route
        self.methodType = methodType
        self.amount = amount
        self.currency = currency
        self.card = card
        self.merchant = merchant
        self.captureMode = captureMode
    }

    /// What differs between this payment and `existing`, opened earlier under the same stable key:
    /// the names of the differing fields (method, amount, currency, card, merchant, capture), empty when it is
    /// the same payment. An intent written before the ledger kept the merchant matches any merchant.
    public func differences(from existing: IntentRecord) -> [String] {
        var fields: [String] = []
        if LedgerText.clean(methodType) != existing.methodType { fields.append("method") }
        if amount != existing.amount { fields.append("amount") }
        if LedgerText.clean(currency) != existing.currency { fields.append("currency") }
        if LedgerText.clean(card) != existing.card { fields.append("card") }
        if let stored = existing.merchant, LedgerText.clean(merchant) != stored { fields.append("merchant") }
        if captureMode != existing.captureMode { fields.append("capture") }
        return fields
    }
}

/// How an attempt is settled (`PaymentLedger.settle`).
public struct AttemptSettlement: Sendable, Equatable {
    public var status: AttemptStatus
    public var category: DeclineCategory?
    public var rawCode: String?
    public var processorPaymentId: String?
    public var authentication: AuthenticationResult?
    public var note: String?

    public init(status: AttemptStatus, category: DeclineCategory? = nil, rawCode: String? = nil,
                processorPaymentId: String? = nil, authentication: AuthenticationResult? = nil, note: String? = nil) {
        self.status = status
        self.category = category
        self.rawCode = rawCode
        self.processorPaymentId = processorPaymentId
        self.authentication = authentication
        self.note = note
    }
}
