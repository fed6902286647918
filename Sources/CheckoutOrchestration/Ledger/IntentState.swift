/// Where a payment intent stands in the ledger. `succeeded` and `failed` are terminal: nothing
/// moves out of them (`canMove(to:)` is checked inside every ledger transaction).
///
/// ```
/// processing ──> requires_action ──> processing (resumed) / succeeded / failed / unknown
///     │──> unknown ──> succeeded / failed / requires_action   (status call or reconcile)
///     │──> succeeded, failed
/// ```
public enum IntentState: String, Sendable, CaseIterable, Codable {
    /// Attempts are being made.
    case processing
    /// The shopper must complete a challenge or redirect.
    case requiresAction = "requires_action"
    /// An attempt's outcome is unknown (no answer after sending); never sent elsewhere until settled.
    case unknown
    /// Paid. Terminal.
    case succeeded
    /// Not paid. Terminal.
    case failed

    /// Whether no move leaves this state.
    public var isTerminal: Bool { self == .succeeded || self == .failed }

    /// Whether the ledger accepts a move from `self` to `next`.
    public func canMove(to next: IntentState) -> Bool {
        switch (self, next) {
        case (.processing, .requiresAction), (.processing, .unknown), (.processing, .succeeded), (.processing, .failed):
            true
        case (.requiresAction, .processing), (.requiresAction, .unknown), (.requiresAction, .succeeded), (.requiresAction, .failed):
            true
        case (.unknown, .succeeded), (.unknown, .failed), (.unknown, .requiresAction), (.unknown, .processing):
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
        }
    }
}
