import Foundation

/// When the money of an authorized payment is taken: at once (`automatic`, the default) or by a
/// later `capture` (`manual`: the payment waits in `requires-capture`, and may be voided instead).
public enum CaptureMode: String, Sendable, CaseIterable, Codable {
    case automatic
    case manual
}

/// What is done to a payment after its authorization: each is a row of the ledger with its own
/// idempotency key and status, sent to the processor that holds the payment.
public enum OperationKind: String, Sendable, CaseIterable, Codable {
    /// Takes all or part of a `manual` payment's authorized amount (once: the rest is released).
    case capture
    /// Releases a `manual` payment's authorization before any capture.
    case void
    /// Gives back all or part of the captured amount; several partial refunds add up to at most it.
    case refund
}

/// Where one operation stands. `succeeded` and `failed` are final.
public enum OperationStatus: String, Sendable, CaseIterable, Codable {
    /// Written before it is sent, or accepted by the processor with its outcome to come (a refund
    /// the bank has not settled yet).
    case pending
    /// Sent, and no answer: `reconcile()` asks the processor what it holds under the key.
    case unknown
    case succeeded
    case failed

    public var isFinal: Bool { self == .succeeded || self == .failed }
}

/// The money of a payment whose authorization succeeded. The storage itself refuses a row where
/// `captured > authorized` or `refunded > captured` (a CHECK constraint), so concurrent refunds
/// can never give back more than was taken, whatever the code above it does.
public struct PaymentBalance: Sendable, Equatable {
    /// What the authorization holds (the payment's amount).
    public var authorized: Int
    /// What was captured (the whole amount at once for `automatic`).
    public var captured: Int
    /// What refunds have taken or are taking: succeeded refunds plus those still pending or unknown
    /// (reserved when a refund starts, released when it fails).
    public var refunded: Int

    public init(authorized: Int, captured: Int, refunded: Int) {
        self.authorized = authorized
        self.captured = captured
        self.refunded = refunded
    }
}

/// One capture, void or refund of a payment.
public struct OperationRecord: Sendable, Equatable {
    public var intentId: String
    /// 1, 2, ... within the payment.
    public var sequence: Int
    public var kind: OperationKind
    /// Minor units (0 for a void).
    public var amount: Int
    public var status: OperationStatus
    /// The digest (`ok_...`) of the caller's idempotency key: one operation per key.
    public var key: String
    /// The processor holding the payment.
    public var processor: String
    /// The idempotency key sent to the processor (derived from the operation's key).
    public var processorKey: String
    /// The processor's id of the operation, once known.
    public var processorOperationId: String?
    /// The processor's raw code of a failure.
    public var rawCode: String?
    public var createdAt: Date
    public var updatedAt: Date

    public init(intentId: String, sequence: Int, kind: OperationKind, amount: Int, status: OperationStatus, key: String,
                processor: String, processorKey: String, processorOperationId: String? = nil, rawCode: String? = nil,
                createdAt: Date, updatedAt: Date) {
        self.intentId = intentId
        self.sequence = sequence
        self.kind = kind
        self.amount = amount
        self.status = status
        self.key = key
        self.processor = processor
        self.processorKey = processorKey
        self.processorOperationId = processorOperationId
        self.rawCode = rawCode
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// An operation as a processor receives it.
public struct OperationRequest: Sendable, Equatable {
    public var kind: OperationKind
    /// The processor's own payment id.
    public var paymentId: String
    /// Minor units (ignored for a void).
    public var amount: Int
    public var currency: String
    /// The processor-side idempotency key: a retry under it is the same operation.
    public var idempotencyKey: String

    public init(kind: OperationKind, paymentId: String, amount: Int, currency: String, idempotencyKey: String) {
        self.kind = kind
        self.paymentId = paymentId
        self.amount = amount
        self.currency = currency
        self.idempotencyKey = idempotencyKey
    }
}

/// A processor's answer about an operation.
public struct OperationResponse: Sendable, Equatable, Codable {
    /// `pending` (accepted; the outcome comes later), `succeeded` or `failed`.
    public var status: OperationStatus
    /// The processor's id of the operation.
    public var operationId: String?
    /// The raw code of a failure (`amount-exceeds-captured`, a bank's code, ...).
    public var rawCode: String?

    public init(status: OperationStatus, operationId: String? = nil, rawCode: String? = nil) {
        self.status = status
        self.operationId = operationId
        self.rawCode = rawCode
    }
}

/// What a processor holds under an operation's idempotency key.
public enum OperationLookup: Sendable, Equatable {
    case notFound
    case found(OperationResponse)
}

/// What `PaymentRouter.capture`, `void` and `refund` report.
public struct OperationResult: Sendable, Equatable {
    public var paymentId: String
    public var operation: OperationKind
    /// The operation's status; `failed` with `errorCode` when the ledger or the processor refused it.
    public var status: OperationStatus
    public var amount: Int
    public var currency: String
    /// The payment's captured amount after the operation, and what succeeded refunds gave back.
    public var captured: Int
    public var refunded: Int
    /// Why it was refused or failed (`amount-exceeds-captured`, `not-capturable`, `already-voided`,
    /// the processor's raw code, ...), nil when accepted.
    public var errorCode: String?
    public var errorMessage: String?
}
