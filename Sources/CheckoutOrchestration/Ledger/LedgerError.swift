import CheckoutPlatform

/// Why the ledger refused a change. Nothing of a refused change is written.
public struct LedgerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, as an extensible code.
    public typealias Code = ErrorCode<LedgerError>

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "ledger \(code): \(message)" }
}

extension ErrorCode where Domain == LedgerError {
    /// No intent or attempt with that id.
    public static let notFound = Self("not-found")
    /// The state machine does not allow the move (e.g. out of a terminal state).
    public static let illegalMove = Self("illegal-move")
    /// Another attempt of the intent is still open (pending, unknown, requires action):
    /// the payment may not go to another processor.
    public static let attemptOpen = Self("attempt-open")
    /// The stable key already names an intent for a different payment (another amount, currency,
    /// card or merchant).
    public static let idempotencyKeyReused = Self("idempotency-key-reused")
    /// A refund (or refunds together) would give back more than was captured, or a capture would
    /// take more than was authorized: refused by the storage's constraint.
    public static let amountExceedsCaptured = Self("amount-exceeds-captured")
    /// A capture of a payment that is not waiting for one (automatic, already captured, failed).
    public static let notCapturable = Self("not-capturable")
    /// A capture or void of a payment whose authorization was already released.
    public static let alreadyVoided = Self("already-voided")
    /// A void of a payment that was captured (refund it instead), or is not waiting for a capture.
    public static let notVoidable = Self("not-voidable")
    /// A refund of a payment that took no money (failed, voided, not captured yet, fully refunded).
    public static let notRefundable = Self("not-refundable")
    /// An amount that is not 1 or more minor units.
    public static let invalidAmount = Self("invalid-amount")
    /// Another capture or void of the payment is still open.
    public static let operationOpen = Self("operation-open")
    /// A value would have stored a card number.
    public static let cardDataRefused = Self("card-data-refused")
    /// The stored data is not what this version wrote.
    public static let corrupt = Self("corrupt")
}
