/// Where one processor attempt stands. `succeeded`, `declined`, `failed` and `skipped` are terminal.
///
/// An attempt is written as `pending` BEFORE it is sent, so a crash mid-attempt leaves a row that
/// `reconcile()` settles through the processor's status call.
public enum AttemptStatus: String, Sendable, CaseIterable, Codable {
    /// Written before sending; the answer has not been recorded yet.
    case pending
    /// The processor asks for a challenge or redirect.
    case requiresAction = "requires_action"
    /// Sent, and no answer: the status call could not settle it yet.
    case unknown
    /// Charged. Terminal.
    case succeeded
    /// Refused by the issuer or processor. Terminal.
    case declined
    /// Failed without a charge (processor error, not sent, not found). Terminal.
    case failed
    /// Not sent because the processor's circuit was open. Terminal.
    case skipped

    /// Whether no move leaves this status.
    public var isTerminal: Bool {
        switch self {
        case .succeeded, .declined, .failed, .skipped: true
        case .pending, .requiresAction, .unknown: false
        }
    }

    /// Whether the ledger accepts a move from `self` to `next`.
    public func canMove(to next: AttemptStatus) -> Bool {
        guard !isTerminal, next != .pending, next != .skipped else { return false }
        return next != self
    }
}
