/// Where a payment intent stands in the ledger (`canMove(to:)` is checked inside every ledger
/// transaction). Once `isTerminal`, no attempt is made any more; only the operations on a payment
/// that was authorized (capture, void, refund) move it further.
///
/// ```
/// processing ──> requires_action ──> processing (resumed) / succeeded / requires-capture / failed / unknown
///     │──> unknown ──> succeeded / requires-capture / failed / requires_action   (status call or reconcile)
///     │──> succeeded, requires-capture, failed
/// requires-capture ──> captured / partially-captured / voided            (capture, void)
/// succeeded, captured, partially-captured ──> partially-refunded / refunded   (refunds)
/// ```
public enum IntentState: String, Sendable, CaseIterable, Codable {
    /// Attempts are being made.
    case processing
    /// The shopper must complete a challenge or redirect.
    case requiresAction = "requires_action"
    /// An attempt's outcome is unknown (no answer after sending); never sent elsewhere until settled.
    case unknown
    /// Paid (authorized and captured at once). Terminal; refunds may follow.
    case succeeded
    /// Not paid. Terminal.
    case failed
    /// Authorized only (`CaptureMode.manual`): waits for a capture or a void. Terminal for attempts.
    case requiresCapture = "requires-capture"
    /// The whole authorized amount was captured.
    case captured
    /// Part of the authorized amount was captured; the rest was released.
    case partiallyCaptured = "partially-captured"
    /// The authorization was released before any capture. Final.
    case voided
    /// Everything captured was refunded. Final.
    case refunded
    /// Part of what was captured was refunded; more refunds may follow.
    case partiallyRefunded = "partially-refunded"

    /// Whether the payment's attempts are over (no attempt is made, nothing is reconciled).
    public var isTerminal: Bool {
        switch self {
        case .processing, .requiresAction, .unknown: false
        default: true
        }
    }

    /// Whether money was taken, so a refund may follow.
    public var isRefundable: Bool {
        [.succeeded, .captured, .partiallyCaptured, .partiallyRefunded].contains(self)
    }

    /// Whether the ledger accepts a move from `self` to `next`.
    public func canMove(to next: IntentState) -> Bool {
        switch (self, next) {
        case (.processing, .requiresAction), (.processing, .unknown), (.processing, .succeeded), (.processing, .failed),
             (.processing, .requiresCapture):
            true
        case (.requiresAction, .processing), (.requiresAction, .unknown), (.requiresAction, .succeeded), (.requiresAction, .failed),
             (.requiresAction, .requiresCapture):
            true
        case (.unknown, .succeeded), (.unknown, .failed), (.unknown, .requiresAction), (.unknown, .processing),
             (.unknown, .requiresCapture):
            true
        case (.requiresCapture, .captured), (.requiresCapture, .partiallyCaptured), (.requiresCapture, .voided):
            true
        case (.succeeded, .partiallyRefunded), (.succeeded, .refunded), (.captured, .partiallyRefunded), (.captured, .refunded),
             (.partiallyCaptured, .partiallyRefunded), (.partiallyCaptured, .refunded), (.partiallyRefunded, .refunded):
            true
        default:
            false
        }
    }

    /// The event written with a move into this state.
    public var eventType: String {
        switch self {
        case .processing: "payment.processing"
        case .requiresAction: "payment.requires_action"
        case .unknown: "payment.unknown"
        case .succeeded: "payment.succeeded"
        case .failed: "payment.failed"
        case .requiresCapture: "payment.requires_capture"
        case .captured, .partiallyCaptured: "payment.captured"
        case .voided: "payment.voided"
        case .refunded, .partiallyRefunded: "refund.succeeded"
        }
    }
}
