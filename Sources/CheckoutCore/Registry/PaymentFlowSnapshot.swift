/// What a flow's steps see of the flow after each change (`PaymentSteps.flowChanged(_:)`): its
/// state, and whether a resume or a poll is completing the pending payment right now.
///
/// A method that publishes a richer state of its own keeps it in step with the flow from these:
/// the card form shows `isLoading` while `processing` or while a challenge result or a return is
/// being resumed.
public struct PaymentFlowSnapshot: Sendable, Equatable {
    /// The flow's state.
    public let state: PaymentFlowState
    /// Whether the pending payment is claimed by a `resume(with:)` or a status poll.
    public let isCompletingPending: Bool

    /// A snapshot of `state`, with the pending payment being completed or not.
    public init(state: PaymentFlowState, isCompletingPending: Bool) {
        self.state = state
        self.isCompletingPending = isCompletingPending
    }
}
