import CheckoutLocking

/// The attempt and state rules every `PaymentFlow` shares: the core's `CorePaymentFlow` runs a
/// plugin's steps on it, feeding it the steps of the `PaymentPipeline` (which only the core reaches).
///
/// It owns the flow's `PaymentFlowState` (published in order through a `StateBroadcaster`),
/// numbers attempts so that a result arriving after `cancel()` or a restart changes nothing,
/// remembers the payment waiting for a redirect or challenge and lets exactly one caller claim
/// it. The rules themselves are the value-type `PaymentFlowRules`; this class keeps it
/// behind a lock, feeds it events and publishes the states after unlocking (through an
/// `ActionQueue`, so subscribers see states in transition order; only the `observer` runs inside
/// the lock). The rules:
/// - `beginAttempt()` refuses while `processing`, awaiting an action or `succeeded` (and once
///   `cancelled` when `cancelIsFinal`); from `idle`, `failed` or `cancelled` it starts a new
///   attempt and moves to `processing`, or to `failed` at once when the input check refuses it.
/// - `apply(_:attempt:token:)` maps a pipeline step to `succeeded`, `failed`,
///   `awaitingRedirect(url)` or `awaitingChallenge(id)` (keeping the pending payment), but only for
///   the current attempt of a flow that is not cancelled.
/// - `cancel()` ends the current attempt from any state but `succeeded` (and `cancelled`).
///
/// An `observer` sees a `PaymentFlowSnapshot` at every change of the state or of the pending
/// payment's claim, inside the lock, as part of the transition: a flow with a richer state of its
/// own (the card form) changes it together with the flow's, before any call returns the new state
/// and before `states()` subscribers see it. It must not call back into the machine or wait.
///
/// `Extra` is flow-specific data guarded by the same lock (e.g. the redirect flow's used resume
/// tokens and polling task, the wallet's last request); use `Void` when there is none. Read or
/// change it, together with the state, in `withCurrent(_:)`.
public final class PaymentFlowStateKeeper<Extra: Sendable>: Sendable {
    /// One submitted attempt of a flow; results are applied only while it is the current one.
    public typealias Attempt = PaymentFlowRules.Attempt

    /// Who is completing the pending payment right now, so that only one caller does.
    public typealias Claim = PaymentFlowRules.Claim

    /// The payment waiting for the shopper: kept from `apply` until the attempt ends.
    public typealias PendingAction = PaymentFlowRules.PendingAction

    /// The guarded state as a flow sees it inside `withCurrent(_:)`: read-only except `extra`
    /// and the pending payment's claim.
    public struct Current: Sendable {
        /// The rules and their state.
        fileprivate var machine: PaymentFlowRules
        /// Flow-specific data.
        public var extra: Extra

        fileprivate init(extra: Extra, cancelIsFinal: Bool) {
            machine = PaymentFlowRules(cancelIsFinal: cancelIsFinal)
            self.extra = extra
        }

        /// What the observer is shown of this state.
        fileprivate var snapshot: PaymentFlowSnapshot {
            PaymentFlowSnapshot(state: machine.state, isCompletingPending: machine.pending?.claim != nil)
        }

        /// The flow's state.
        public var state: PaymentFlowState { machine.state }
        /// The current attempt (number 0 before the first `beginAttempt()`).
        public var attempt: Attempt { machine.attempt }
        /// The payment waiting for a redirect or challenge, if any.
        public var pending: PendingAction? { machine.pending }

        /// Claims the pending payment for `claim` when nobody has; returns it, or nil when there
        /// is none or it is already claimed.
        public mutating func claimPending(_ claim: Claim) -> PendingAction? {
            Self.claimed(machine.handle(.claimPending(claim)))
        }

        /// Gives the pending payment back when `claim` holds it (the claimant could not finish it).
        public mutating func releaseClaim(_ claim: Claim) {
            _ = machine.handle(.releaseClaim(claim, attempt: machine.attempt))
        }

        /// The pending payment a claim transition handed over, if it did.
        fileprivate static func claimed(_ transition: PaymentFlowRules.Transition) -> PendingAction? {
            for case .completePending(let pending, _) in transition.actions { return pending }
            return nil
        }
    }

    private let storage: Locked<Current>
    private let broadcaster = StateBroadcaster(PaymentFlowState.idle)
    private let publications = ActionQueue<PaymentFlowState>()
    private let observer: (@Sendable (PaymentFlowSnapshot) -> Void)?

    /// Creates an `idle` machine holding `extra`.
    /// - Parameters:
    ///   - cancelIsFinal: whether a cancelled flow takes no new attempt (see
    ///     `PaymentFlowRules.cancelIsFinal`).
    ///   - observer: sees every change, inside the machine's lock; it must not call back into the
    ///     machine or wait.
    public init(extra: Extra, cancelIsFinal: Bool = false,
                observer: (@Sendable (PaymentFlowSnapshot) -> Void)? = nil) {
        storage = Locked(Current(extra: extra, cancelIsFinal: cancelIsFinal))
        self.observer = observer
    }

    // MARK: Observation

    /// The current state.
    public var state: PaymentFlowState { storage.withLock { $0.state } }

    /// The current state, then every change.
    public func states() -> AsyncStream<PaymentFlowState> { broadcaster.stream() }

    /// The payment waiting for a redirect or challenge, if any.
    public var pending: PendingAction? { storage.withLock { $0.pending } }

    /// The processor's id of the current attempt's payment once created: the pending one, else
    /// the one the attempt ended with. Nil again when a new attempt starts.
    public var paymentId: String? { storage.withLock { $0.machine.paymentId } }

    /// Whether `attempt` is still the current one (not cancelled, not superseded).
    public func isCurrent(_ attempt: Attempt) -> Bool { storage.withLock { $0.attempt == attempt } }

    /// Runs `body` with the guarded state, atomically with every other call of this machine.
    /// `body` must not call back into the machine. A claim it changes is shown to the observer.
    public func withCurrent<Result>(_ body: (inout Current) throws -> sending Result) rethrows -> sending Result {
        try storage.withLock { current in
            let before = current.snapshot
            defer { observe(from: before, current) }
            return try body(&current)
        }
    }

    // MARK: Transitions

    /// Starts a new attempt and moves to `processing`, or returns nil (changing nothing) while an
    /// attempt is in progress, after success, or after a final cancel. `reset` prepares `extra`
    /// for the new attempt.
    ///
    /// `inputError` runs inside the lock, only when an attempt would start: an error it returns
    /// fails that attempt at once (`failed`, with no `processing` before it, and no outcome), and
    /// nil is returned. It must not call back into the machine.
    public func beginAttempt(checkingInput inputError: () -> CheckoutError? = { nil },
                             resetting reset: (inout Extra) -> Void = { _ in }) -> Attempt? {
        let started = storage.withLock { current -> Attempt? in
            guard current.machine.takesAttempt else { return nil }
            reset(&current.extra)
            if let error = inputError() {
                _ = handle(.rejectAttempt(error), &current)
                return nil
            }
            for case .startAttempt(let attempt) in handle(.beginAttempt, &current).actions { return attempt }
            return nil
        }
        publish()
        return started
    }

    /// Applies a pipeline step to the attempt it belongs to and returns the state reached.
    ///
    /// A stale step (the flow was cancelled or restarted meanwhile) changes nothing. An action
    /// becomes the pending payment and `awaitingRedirect` / `awaitingChallenge`; without a `token`
    /// there is nothing to resume with, so an action then changes nothing either.
    @discardableResult
    public func apply(_ step: PaymentPipeline.Step, attempt: Attempt, token: PaymentMethodToken?) -> PaymentFlowState {
        let state = storage.withLock { handle(.step(step, attempt: attempt, token: token), &$0).state }
        publish()
        return state
    }

    /// Tokenizes with `tokenize`, then creates the payment of `attempt` through `pipeline` and
    /// applies the step: the usual body of a `submit()` after `beginAttempt()`.
    ///
    /// When `tokenize` throws, the attempt fails with its `CheckoutError` (anything else becomes
    /// `.paymentFailed` with `tokenizeFailure`). Once the attempt is no longer current nothing more
    /// is created or reported and the current state is returned.
    /// - Parameter unsupported: the failure message for an action this flow cannot complete (the
    ///   attempt then fails with `.paymentFailed`); nil accepts the action.
    func pay(_ attempt: Attempt, surcharge: Int, through pipeline: PaymentPipeline, tokenizeFailure: String,
                    unsupported: (RequiredAction) -> String?,
                    tokenize: () async throws -> PaymentMethodToken) async -> PaymentFlowState {
        let token: PaymentMethodToken
        do {
            token = try await tokenize()
        } catch {
            let failure = error as? CheckoutError ?? CheckoutError(.paymentFailed, tokenizeFailure, underlying: error)
            return fail(failure, attempt: attempt, through: pipeline)
        }
        return await create(attempt, token: token, through: pipeline, unsupported: unsupported) {
            await pipeline.createPayment(token: token, surcharge: surcharge)
        }
    }

    /// Creates the payment of `attempt` with `create`, unless the attempt is no longer current
    /// (then nothing is created and the current state is returned), fails it when it asks for an
    /// action `unsupported` names, and applies the step.
    func create(_ attempt: Attempt, token: PaymentMethodToken, through pipeline: PaymentPipeline,
                unsupported: (RequiredAction) -> String?,
                create: () async -> PaymentPipeline.Step) async -> PaymentFlowState {
        guard isCurrent(attempt) else { return state }
        var step = await create()
        if case .actionRequired(_, let action) = step, let message = unsupported(action) {
            step = pipeline.fail(CheckoutError(.paymentFailed, message))
        }
        return apply(step, attempt: attempt, token: token)
    }

    /// Fails `attempt` with `error` through `pipeline` (which reports the outcome), unless the
    /// attempt is no longer current: then nothing is reported and the current state is returned.
    @discardableResult
    func fail(_ error: CheckoutError, attempt: Attempt, through pipeline: PaymentPipeline) -> PaymentFlowState {
        guard isCurrent(attempt) else { return state }
        return apply(pipeline.fail(error), attempt: attempt, token: nil)
    }

    /// Claims the pending challenge for a `resume`.
    /// - Returns: the attempt it belongs to and the pending payment.
    /// - Throws: `CheckoutError` `.invalidReturn` when no challenge is waiting or another resume
    ///   already claimed it; nothing changes then.
    public func claimChallenge() throws -> (Attempt, PendingAction) {
        let claimed = storage.withLock { current -> (Attempt, PendingAction)? in
            for case .completePending(let pending, let attempt) in handle(.claimChallenge, &current).actions {
                return (attempt, pending)
            }
            return nil
        }
        guard let claimed else { throw CheckoutError(.invalidReturn, "no challenge is waiting for a result") }
        return claimed
    }

    /// Finishes the pending challenge with the shopper's result through `pipeline`: the whole
    /// `resume(with:)` of a flow whose only action is a challenge.
    @available(*, deprecated, message: "write the method as PaymentSteps: CorePaymentFlow resumes a challenge by default")
    /// - Parameter wrongInput: the message for a return URL, which such a flow cannot take.
    /// - Throws: `CheckoutError` `.invalidReturn` for a return URL or when no challenge is
    ///   waiting (or it is already being resumed); nothing changes then.
    @discardableResult
    func resumeChallenge(with input: PaymentResumeInput, through pipeline: PaymentPipeline,
                                wrongInput: String) async throws -> PaymentFlowState {
        guard case .challengeResult(let result) = input else { throw CheckoutError(.invalidReturn, wrongInput) }
        let (attempt, pending) = try claimChallenge()
        let step = await pipeline.resume(paymentId: pending.paymentId, resumeToken: result, token: pending.token)
        return apply(step, attempt: attempt, token: pending.token)
    }

    /// Gives the pending payment of `attempt` back when `claim` still holds it.
    public func releaseClaim(_ claim: Claim, attempt: Attempt) {
        storage.withLock { current in _ = handle(.releaseClaim(claim, attempt: attempt), &current) }
    }

    /// Cancels the flow: ends the current attempt (its late results are ignored) and moves to
    /// `cancelled`. No-op after success or when already cancelled.
    /// - Parameter cleanup: runs on `extra` inside the lock only when the flow was cancelled, e.g.
    ///   to take a task to stop.
    /// - Returns: what `cleanup` returned, or nil when nothing was cancelled.
    @discardableResult
    public func cancel<Result: Sendable>(cleanup: (inout Extra) -> Result) -> Result? {
        let result = storage.withLock { current in cancel(.cancel, &current, cleanup: cleanup) }
        publish()
        return result
    }

    /// Cancels the flow; see `cancel(cleanup:)`. Returns whether it was cancelled now.
    @discardableResult
    public func cancel() -> Bool { cancel(cleanup: { _ in true }) ?? false }

    /// Cancels the flow only while `attempt` is current (e.g. the shopper dismissed a sheet that
    /// attempt opened) and returns the state reached.
    @discardableResult
    public func cancel(_ attempt: Attempt) -> PaymentFlowState {
        let state = storage.withLock { current in
            _ = cancel(.cancelAttempt(attempt), &current, cleanup: { _ in () })
            return current.state
        }
        publish()
        return state
    }

    // MARK: Private

    /// Feeds `event` to the rules, shows the observer what changed and queues the states to
    /// publish (inside the lock, so the queue's order is the transitions' order).
    private func handle(_ event: PaymentFlowRules.Event, _ current: inout Current)
        -> PaymentFlowRules.Transition {
        let before = current.snapshot
        let transition = current.machine.handle(event)
        observe(from: before, current)
        var states: [PaymentFlowState] = []
        for case .publish(let state) in transition.actions { states.append(state) }
        publications.enqueue(states)
        return transition
    }

    /// Shows the observer `current` when it differs from `before` (inside the lock).
    private func observe(from before: PaymentFlowSnapshot, _ current: Current) {
        let after = current.snapshot
        if after != before { observer?(after) }
    }

    /// Handles a cancelling event, running `cleanup` on `extra` when it released an attempt.
    private func cancel<Result: Sendable>(_ event: PaymentFlowRules.Event, _ current: inout Current,
                                          cleanup: (inout Extra) -> Result) -> Result? {
        let transition = handle(event, &current)
        guard transition.actions.contains(.releaseAttempt) else { return nil }
        return cleanup(&current.extra)
    }

    /// Publishes the queued states, outside the lock, in order.
    private func publish() {
        publications.drain { broadcaster.send($0) }
    }
}

extension PaymentFlowStateKeeper where Extra == Void {
    /// Creates an `idle` machine with no flow-specific data.
    public convenience init() { self.init(extra: ()) }
}
