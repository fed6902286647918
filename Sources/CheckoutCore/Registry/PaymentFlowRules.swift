/// The attempt and state rules every payment flow shares, as a value: an event goes in through
/// `handle(_:)`, the new state and the actions to perform come out.
///
/// It has no lock, no stream and no task: its owner (`PaymentFlowStateKeeper`) keeps it behind a
/// lock, calls `handle` there, and performs the returned actions after unlocking. That way every
/// rule sits in one pure function whose table of states and events is tested cell by cell. The
/// rules:
/// - `.beginAttempt` is refused while `processing`, awaiting an action or `succeeded` (and, for a
///   machine whose `cancelIsFinal`, once `cancelled`); from `idle`, `failed` or `cancelled` it
///   starts a new attempt and moves to `processing`.
/// - `.rejectAttempt(_:)` is a submit whose input the method refused before any work: where
///   `.beginAttempt` would start an attempt, it starts one and fails it at once, so observers see
///   `failed` with no `processing` before it.
/// - `.step(_:attempt:token:)` maps a pipeline step to `succeeded`, `failed`,
///   `awaitingRedirect(url)` or `awaitingChallenge(id)` (keeping the pending payment), but only for
///   the current attempt of a flow that is not cancelled; an action without a token (nothing to
///   resume with) changes nothing.
/// - `.claimChallenge` and `.claimPending(_:)` hand the pending payment to exactly one caller,
///   until `.releaseClaim(_:attempt:)` gives it back.
/// - `.cancel` ends the current attempt from any state but `succeeded` (and `cancelled`);
///   `.cancelAttempt(_:)` does so only while that attempt is current.
/// ```swift
/// var machine = PaymentFlowRules()
/// let transition = machine.handle(.beginAttempt)
/// // transition.state == .processing
/// // transition.actions == [.publish(.processing), .startAttempt(Attempt(number: 1))]
/// ```
public struct PaymentFlowRules: Sendable, Equatable {
    /// One submitted attempt of a flow; results are applied only while it is the current one.
    public struct Attempt: Sendable, Hashable, CustomStringConvertible {
        /// 1 for the first attempt, then counting every new attempt and every cancellation.
        public let number: Int

        /// The attempt numbered `number`.
        public init(number: Int) { self.number = number }

        /// `attempt N`.
        public var description: String { "attempt \(number)" }
    }

    /// Who is completing the pending payment right now, so that only one caller does.
    public enum Claim: Sendable, Equatable {
        /// A `resume(with:)` call (a return URL or a challenge result).
        case resume
        /// A status poll.
        case poll
    }

    /// The payment waiting for the shopper: kept from the step that asked for an action until the
    /// attempt ends.
    public struct PendingAction: Sendable, Equatable {
        /// The processor's payment id.
        public let paymentId: String
        /// The token the payment was created with; resuming needs it again.
        public let token: PaymentMethodToken
        /// What the shopper must do (the redirect's `returnURL` is the one to expect back).
        public let action: RequiredAction
        /// Who is completing it; nil while nobody is.
        public internal(set) var claim: Claim?

        /// A pending payment, claimed by `claim` (nil: by nobody).
        public init(paymentId: String, token: PaymentMethodToken, action: RequiredAction, claim: Claim? = nil) {
            self.paymentId = paymentId
            self.token = token
            self.action = action
            self.claim = claim
        }
    }

    /// What can happen to a flow.
    public enum Event: Sendable, Equatable {
        /// `submit()`: start a new attempt.
        case beginAttempt
        /// `submit()` with input the method refused (`PaymentSteps.inputError()`): start a new
        /// attempt and fail it at once with `error`. Nothing was sent anywhere, so the owner
        /// reports no outcome.
        case rejectAttempt(CheckoutError)
        /// The pipeline's step for `attempt`; `token` is the one the payment was created with
        /// (nil when there was none, e.g. the attempt failed before tokenizing).
        case step(PaymentPipeline.Step, attempt: Attempt, token: PaymentMethodToken?)
        /// A `resume` wants to finish the pending challenge.
        case claimChallenge
        /// `claim` wants to finish the pending payment, whatever its action.
        case claimPending(Claim)
        /// `claim` gives the pending payment of `attempt` back (it could not finish it).
        case releaseClaim(Claim, attempt: Attempt)
        /// `cancel()`: end the current attempt.
        case cancel
        /// End the flow only if `attempt` is still the current one.
        case cancelAttempt(Attempt)
    }

    /// What the owner does after a transition, outside its lock, in this order.
    public enum Action: Sendable, Equatable {
        /// Publish the flow's new state to its observers.
        case publish(PaymentFlowState)
        /// The new attempt may run: the owner prepares its own data and tokenizes.
        case startAttempt(Attempt)
        /// The claimant now holds `pending` of `attempt` and completes it.
        case completePending(PendingAction, attempt: Attempt)
        /// An attempt was cancelled: the owner releases what it kept for it (e.g. a polling task).
        case releaseAttempt
    }

    /// The outcome of one event: the state reached and what to do about it. A refused or stale
    /// event changes nothing and has no actions.
    public struct Transition: Sendable, Equatable {
        /// The flow's state after the event.
        public let state: PaymentFlowState
        /// What the owner performs, in order.
        public let actions: [Action]

        /// A transition to `state` with `actions`.
        public init(state: PaymentFlowState, actions: [Action]) {
            self.state = state
            self.actions = actions
        }
    }

    /// The flow's state.
    public private(set) var state: PaymentFlowState
    /// The current attempt (number 0 before the first `.beginAttempt`).
    public private(set) var attempt: Attempt
    /// The payment waiting for a redirect or challenge, if any.
    public private(set) var pending: PendingAction?
    /// The processor's id of the payment the current attempt ended with, once it has ended.
    public private(set) var lastPaymentId: String?
    /// Whether a cancelled flow stays cancelled: no new attempt starts after `cancelled` (the card
    /// form forgets its card when cancelled, so it has nothing to pay with). False by default.
    public let cancelIsFinal: Bool

    /// A machine in exactly this situation; `idle` before any attempt by default.
    public init(state: PaymentFlowState = .idle, attempt: Attempt = Attempt(number: 0),
                pending: PendingAction? = nil, lastPaymentId: String? = nil, cancelIsFinal: Bool = false) {
        self.state = state
        self.attempt = attempt
        self.pending = pending
        self.lastPaymentId = lastPaymentId
        self.cancelIsFinal = cancelIsFinal
    }

    /// Whether a `.beginAttempt` (or `.rejectAttempt`) would start a new attempt now: from `idle`,
    /// `failed`, or `cancelled` unless `cancelIsFinal`.
    public var takesAttempt: Bool {
        switch state {
        case .processing, .awaitingRedirect, .awaitingChallenge, .succeeded: false
        case .cancelled: !cancelIsFinal
        case .idle, .failed: true
        }
    }

    /// The processor's id of the current attempt's payment once created: the pending one, else
    /// the one the attempt ended with.
    public var paymentId: String? { pending?.paymentId ?? lastPaymentId }

    /// Applies `event` and returns the state reached and the actions to perform.
    public mutating func handle(_ event: Event) -> Transition {
        var actions: [Action] = []
        switch event {
        case .beginAttempt:
            guard takesAttempt else { break }
            startAttempt()
            move(to: .processing, &actions)
            actions.append(.startAttempt(attempt))
        case .rejectAttempt(let error):
            guard takesAttempt else { break }
            startAttempt()
            move(to: .failed(error), &actions)
        case .step(let step, let stepAttempt, let token):
            guard stepAttempt == attempt, state != .cancelled else { break }
            apply(step, token: token, &actions)
        case .claimChallenge:
            guard case .awaitingChallenge = state else { break }
            claim(.resume, &actions)
        case .claimPending(let claimant):
            claim(claimant, &actions)
        case .releaseClaim(let claimant, let claimAttempt):
            if claimAttempt == attempt, pending?.claim == claimant { pending?.claim = nil }
        case .cancel:
            cancel(&actions)
        case .cancelAttempt(let cancelled):
            if cancelled == attempt { cancel(&actions) }
        }
        return Transition(state: state, actions: actions)
    }

    // MARK: Private

    private mutating func startAttempt() {
        attempt = Attempt(number: attempt.number + 1)
        pending = nil
        lastPaymentId = nil
    }

    private mutating func apply(_ step: PaymentPipeline.Step, token: PaymentMethodToken?, _ actions: inout [Action]) {
        switch step {
        case .succeeded(let result):
            lastPaymentId = result.paymentId
            pending = nil
            move(to: .succeeded(result), &actions)
        case .failed(let error):
            endPending()
            move(to: .failed(error), &actions)
        case .actionRequired(let paymentId, let action):
            guard let token else { return }
            pending = PendingAction(paymentId: paymentId, token: token, action: action)
            switch action {
            case .redirect(let url, _):
                move(to: .awaitingRedirect(url), &actions)
            case .challenge(let challengeId):
                move(to: .awaitingChallenge(challengeId: challengeId), &actions)
            }
        }
    }

    private mutating func claim(_ claimant: Claim, _ actions: inout [Action]) {
        guard var claimed = pending, claimed.claim == nil else { return }
        claimed.claim = claimant
        pending = claimed
        actions.append(.completePending(claimed, attempt: attempt))
    }

    private mutating func cancel(_ actions: inout [Action]) {
        switch state {
        case .succeeded, .cancelled:
            return
        default:
            attempt = Attempt(number: attempt.number + 1)
            endPending()
            actions.append(.releaseAttempt)
            move(to: .cancelled, &actions)
        }
    }

    /// Drops the pending payment, remembering its id as the attempt's payment.
    private mutating func endPending() {
        if let pending { lastPaymentId = pending.paymentId }
        pending = nil
    }

    /// Sets the state, asking for it to be published when it changed.
    private mutating func move(to next: PaymentFlowState, _ actions: inout [Action]) {
        guard state != next else { return }
        state = next
        actions.append(.publish(next))
    }
}
