import CheckoutLocking

/// The attempt and state rules every `PaymentFlow` shares, so that a plugin's flow only
/// tokenizes, calls the `PaymentPipeline` and hands each step back here.
///
/// It owns the flow's `PaymentFlowState` (published in order through a `StateBroadcaster`),
/// numbers attempts so that a result arriving after `cancel()` or a restart changes nothing,
/// remembers the payment waiting for a redirect or challenge and lets exactly one caller claim
/// it. The rules:
/// - `beginAttempt()` refuses while `processing`, awaiting an action or `succeeded`; from `idle`,
///   `failed` or `cancelled` it starts a new attempt and moves to `processing`.
/// - `apply(_:attempt:token:)` maps a pipeline step to `succeeded`, `failed`,
///   `awaitingRedirect(url)` or `awaitingChallenge(id)` (keeping the pending payment), but only for
///   the current attempt of a flow that is not cancelled.
/// - `cancel()` ends the current attempt from any state but `succeeded` (and `cancelled`).
///
/// `Extra` is flow-specific data guarded by the same lock (e.g. the redirect flow's used resume
/// tokens and polling task, the wallet's last request); use `Void` when there is none. Read or
/// change it, together with the state, in `withCurrent(_:)`.
/// ```swift
/// let machine = PaymentFlowMachine()
/// guard let attempt = machine.beginAttempt() else { return machine.state }
/// return await machine.pay(attempt, surcharge: 0, through: context.pipeline,
///                          tokenizeFailure: "the gift card could not be tokenized",
///                          unsupported: { _ in "a gift card cannot follow a redirect or challenge" }) {
///     try await context.processor.tokenize(request, session: context.session)
/// }
/// ```
public final class PaymentFlowMachine<Extra: Sendable>: Sendable {
    /// One submitted attempt of a flow; results are applied only while it is the current one.
    public struct Attempt: Sendable, Hashable, CustomStringConvertible {
        /// 1 for the first attempt, then counting every new attempt and every cancellation.
        public let number: Int

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

    /// The payment waiting for the shopper: kept from `apply` until the attempt ends.
    public struct PendingAction: Sendable, Equatable {
        /// The processor's payment id.
        public let paymentId: String
        /// The token the payment was created with; resuming needs it again.
        public let token: PaymentMethodToken
        /// What the shopper must do (the redirect's `returnURL` is the one to expect back).
        public let action: RequiredAction
        /// Who is completing it; nil while nobody is.
        public fileprivate(set) var claim: Claim?
    }

    /// The guarded state as a flow sees it inside `withCurrent(_:)`: read-only except `extra`
    /// and the pending payment's claim.
    public struct Current: Sendable {
        /// The flow's state.
        public fileprivate(set) var state = PaymentFlowState.idle
        /// The current attempt (number 0 before the first `beginAttempt()`).
        public fileprivate(set) var attempt = Attempt(number: 0)
        /// The payment waiting for a redirect or challenge, if any.
        public fileprivate(set) var pending: PendingAction?
        /// Flow-specific data.
        public var extra: Extra
        fileprivate var lastPaymentId: String?

        fileprivate init(extra: Extra) { self.extra = extra }

        /// Claims the pending payment for `claim` when nobody has; returns it, or nil when there
        /// is none or it is already claimed.
        public mutating func claimPending(_ claim: Claim) -> PendingAction? {
            guard var pending, pending.claim == nil else { return nil }
            pending.claim = claim
            self.pending = pending
            return pending
        }

        /// Gives the pending payment back when `claim` holds it (the claimant could not finish it).
        public mutating func releaseClaim(_ claim: Claim) {
            if pending?.claim == claim { pending?.claim = nil }
        }
    }

    private let storage: Locked<Current>
    private let broadcaster = StateBroadcaster(PaymentFlowState.idle)

    /// Creates an `idle` machine holding `extra`.
    public init(extra: Extra) { storage = Locked(Current(extra: extra)) }

    // MARK: Observation

    /// The current state.
    public var state: PaymentFlowState { storage.withLock { $0.state } }

    /// The current state, then every change.
    public func states() -> AsyncStream<PaymentFlowState> { broadcaster.stream() }

    /// The payment waiting for a redirect or challenge, if any.
    public var pending: PendingAction? { storage.withLock { $0.pending } }

    /// The processor's id of the current attempt's payment once created: the pending one, else
    /// the one the attempt ended with. Nil again when a new attempt starts.
    public var paymentId: String? { storage.withLock { $0.pending?.paymentId ?? $0.lastPaymentId } }

    /// Whether `attempt` is still the current one (not cancelled, not superseded).
    public func isCurrent(_ attempt: Attempt) -> Bool { storage.withLock { $0.attempt == attempt } }

    /// Runs `body` with the guarded state, atomically with every other call of this machine.
    /// `body` must not call back into the machine.
    public func withCurrent<Result>(_ body: (inout Current) throws -> sending Result) rethrows -> sending Result {
        try storage.withLock { try body(&$0) }
    }

    // MARK: Transitions

    /// Starts a new attempt and moves to `processing`, or returns nil (changing nothing) while an
    /// attempt is in progress or after success. `reset` prepares `extra` for the new attempt.
    public func beginAttempt(resetting reset: (inout Extra) -> Void = { _ in }) -> Attempt? {
        storage.withLock { current in
            switch current.state {
            case .processing, .awaitingRedirect, .awaitingChallenge, .succeeded:
                return nil
            case .idle, .failed, .cancelled:
                current.attempt = Attempt(number: current.attempt.number + 1)
                current.pending = nil
                current.lastPaymentId = nil
                reset(&current.extra)
                transition(&current, to: .processing)
                return current.attempt
            }
        }
    }

    /// Applies a pipeline step to the attempt it belongs to and returns the state reached.
    ///
    /// A stale step (the flow was cancelled or restarted meanwhile) changes nothing. An action
    /// becomes the pending payment and `awaitingRedirect` / `awaitingChallenge`; without a `token`
    /// there is nothing to resume with, so an action then changes nothing either.
    @discardableResult
    public func apply(_ step: PaymentPipeline.Step, attempt: Attempt, token: PaymentMethodToken?) -> PaymentFlowState {
        storage.withLock { current in
            guard current.attempt == attempt, current.state != .cancelled else { return current.state }
            switch step {
            case .succeeded(let result):
                current.lastPaymentId = result.paymentId
                current.pending = nil
                transition(&current, to: .succeeded(result))
            case .failed(let error):
                endPending(&current)
                transition(&current, to: .failed(error))
            case .actionRequired(let paymentId, let action):
                guard let token else { break }
                current.pending = PendingAction(paymentId: paymentId, token: token, action: action)
                switch action {
                case .redirect(let url, _):
                    transition(&current, to: .awaitingRedirect(url))
                case .challenge(let challengeId):
                    transition(&current, to: .awaitingChallenge(challengeId: challengeId))
                }
            }
            return current.state
        }
    }

    /// Tokenizes with `tokenize`, then creates the payment of `attempt` through `pipeline` and
    /// applies the step: the usual body of a `submit()` after `beginAttempt()`.
    ///
    /// When `tokenize` throws, the attempt fails with its `CheckoutError` (anything else becomes
    /// `.paymentFailed` with `tokenizeFailure`). Once the attempt is no longer current nothing more
    /// is created or reported and the current state is returned.
    /// - Parameter unsupported: the failure message for an action this flow cannot complete (the
    ///   attempt then fails with `.paymentFailed`); nil accepts the action.
    public func pay(_ attempt: Attempt, surcharge: Int, through pipeline: PaymentPipeline, tokenizeFailure: String,
                    unsupported: (RequiredAction) -> String?,
                    tokenize: () async throws -> PaymentMethodToken) async -> PaymentFlowState {
        let token: PaymentMethodToken
        do {
            token = try await tokenize()
        } catch {
            let failure = error as? CheckoutError ?? CheckoutError(.paymentFailed, tokenizeFailure, underlying: error)
            return fail(failure, attempt: attempt, through: pipeline)
        }
        guard isCurrent(attempt) else { return state }
        var step = await pipeline.createPayment(token: token, surcharge: surcharge)
        if case .actionRequired(_, let action) = step, let message = unsupported(action) {
            step = pipeline.fail(CheckoutError(.paymentFailed, message))
        }
        return apply(step, attempt: attempt, token: token)
    }

    /// Fails `attempt` with `error` through `pipeline` (which reports the outcome), unless the
    /// attempt is no longer current: then nothing is reported and the current state is returned.
    @discardableResult
    public func fail(_ error: CheckoutError, attempt: Attempt, through pipeline: PaymentPipeline) -> PaymentFlowState {
        guard isCurrent(attempt) else { return state }
        return apply(pipeline.fail(error), attempt: attempt, token: nil)
    }

    /// Claims the pending challenge for a `resume`.
    /// - Returns: the attempt it belongs to and the pending payment.
    /// - Throws: `CheckoutError` `.invalidReturn` when no challenge is waiting or another resume
    ///   already claimed it; nothing changes then.
    public func claimChallenge() throws -> (Attempt, PendingAction) {
        try storage.withLock { current in
            guard case .awaitingChallenge = current.state, let pending = current.claimPending(.resume) else {
                throw CheckoutError(.invalidReturn, "no challenge is waiting for a result")
            }
            return (current.attempt, pending)
        }
    }

    /// Finishes the pending challenge with the shopper's result through `pipeline`: the whole
    /// `resume(with:)` of a flow whose only action is a challenge.
    /// - Parameter wrongInput: the message for a return URL, which such a flow cannot take.
    /// - Throws: `CheckoutError` `.invalidReturn` for a return URL or when no challenge is
    ///   waiting (or it is already being resumed); nothing changes then.
    @discardableResult
    public func resumeChallenge(with input: PaymentResumeInput, through pipeline: PaymentPipeline,
                                wrongInput: String) async throws -> PaymentFlowState {
        guard case .challengeResult(let result) = input else { throw CheckoutError(.invalidReturn, wrongInput) }
        let (attempt, pending) = try claimChallenge()
        let step = await pipeline.resume(paymentId: pending.paymentId, resumeToken: result, token: pending.token)
        return apply(step, attempt: attempt, token: pending.token)
    }

    /// Gives the pending payment of `attempt` back when `claim` still holds it.
    public func releaseClaim(_ claim: Claim, attempt: Attempt) {
        storage.withLock { current in
            if current.attempt == attempt { current.releaseClaim(claim) }
        }
    }

    /// Cancels the flow: ends the current attempt (its late results are ignored) and moves to
    /// `cancelled`. No-op after success or when already cancelled.
    /// - Parameter cleanup: runs on `extra` inside the lock only when the flow was cancelled, e.g.
    ///   to take a task to stop.
    /// - Returns: what `cleanup` returned, or nil when nothing was cancelled.
    @discardableResult
    public func cancel<Result: Sendable>(cleanup: (inout Extra) -> Result) -> Result? {
        storage.withLock { current in cancel(&current, cleanup: cleanup) }
    }

    /// Cancels the flow; see `cancel(cleanup:)`. Returns whether it was cancelled now.
    @discardableResult
    public func cancel() -> Bool { cancel(cleanup: { _ in true }) ?? false }

    /// Cancels the flow only while `attempt` is current (e.g. the shopper dismissed a sheet that
    /// attempt opened) and returns the state reached.
    @discardableResult
    public func cancel(_ attempt: Attempt) -> PaymentFlowState {
        storage.withLock { current in
            if current.attempt == attempt { _ = cancel(&current, cleanup: { _ in () }) }
            return current.state
        }
    }

    // MARK: Private

    private func cancel<Result: Sendable>(_ current: inout Current, cleanup: (inout Extra) -> Result) -> Result? {
        switch current.state {
        case .succeeded, .cancelled:
            return nil
        default:
            current.attempt = Attempt(number: current.attempt.number + 1)
            endPending(&current)
            let result = cleanup(&current.extra)
            transition(&current, to: .cancelled)
            return result
        }
    }

    /// Drops the pending payment, remembering its id as the attempt's payment.
    private func endPending(_ current: inout Current) {
        if let pending = current.pending { current.lastPaymentId = pending.paymentId }
        current.pending = nil
    }

    /// Sets the state and publishes it (inside the lock, so subscribers see the order).
    private func transition(_ current: inout Current, to state: PaymentFlowState) {
        guard current.state != state else { return }
        current.state = state
        broadcaster.send(state)
    }
}

extension PaymentFlowMachine where Extra == Void {
    /// Creates an `idle` machine with no flow-specific data.
    public convenience init() { self.init(extra: ()) }
}
