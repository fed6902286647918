import CheckoutCore
import Foundation
import Synchronization

/// One payment with a redirect method: create the payment, send the shopper to the provider,
/// then finish from the return URL (`resume(with: .returnURL(url))`) or by polling the status
/// (`pollForCompletion()`).
///
/// States: `idle -> processing -> awaitingRedirect(url) -> succeeded | failed`, and `cancelled`
/// from anywhere but `succeeded`. While awaiting the redirect the state does not change until a
/// genuine return or a poll settles the payment: a tampered, mismatched or replayed return URL
/// throws `.invalidReturn` and leaves both the flow and the pending payment as they were.
/// `submit()` after `failed` or `cancelled` starts a new attempt (a new payment).
public final class RedirectPaymentFlow: PaymentFlow {
    /// Who is completing the pending payment right now.
    private enum Claim: Sendable, Equatable { case unclaimed, resume, poll }

    private struct Pending: Sendable {
        var paymentId: String
        var token: PaymentMethodToken
        var returnURL: URL
        var claim = Claim.unclaimed
    }

    private struct Internal: Sendable {
        var state = PaymentFlowState.idle
        var attempt = 0
        var pending: Pending?
        var lastPaymentId: String?
        var usedResumeTokens: Set<String> = []
        var polling: Task<PaymentFlowState, Never>?
    }

    /// The method type this flow pays with.
    public let paymentMethodType: PaymentMethodType
    private let context: PaymentFlowContext
    private let polling: Result<RedirectPollingPolicy, CheckoutError>
    private let clock: any PollingClock
    private let storage = Mutex(Internal())
    private let broadcaster = StateBroadcaster(PaymentFlowState.idle)

    init(context: PaymentFlowContext, polling: Result<RedirectPollingPolicy, CheckoutError>, clock: any PollingClock) {
        self.context = context
        paymentMethodType = context.method.type
        self.polling = polling
        self.clock = clock
    }

    // MARK: Observation

    /// The current state.
    public var state: PaymentFlowState { storage.withLock { $0.state } }

    /// The current state, then every change.
    public func states() -> AsyncStream<PaymentFlowState> { broadcaster.stream() }

    /// The processor's id of the current or last payment of this flow, once created.
    public var paymentId: String? { storage.withLock { $0.pending?.paymentId ?? $0.lastPaymentId } }

    /// The URL the provider will send the shopper back to, while a redirect is pending.
    public var expectedReturnURL: URL? { storage.withLock { $0.pending?.returnURL } }

    // MARK: PaymentFlow

    /// Creates a payment and returns `awaitingRedirect(url)` (or a terminal state). Ignored, returning
    /// the current state, while an attempt is in progress or after success.
    @discardableResult
    public func submit() async -> PaymentFlowState {
        let attempt: Int? = storage.withLock { current in
            switch current.state {
            case .processing, .awaitingRedirect, .awaitingChallenge, .succeeded:
                return nil
            case .idle, .failed, .cancelled:
                current.attempt += 1
                current.pending = nil
                current.lastPaymentId = nil
                transition(&current, to: .processing)
                return current.attempt
            }
        }
        guard let attempt else { return state }
        let token: PaymentMethodToken
        do {
            token = try await context.processor.tokenize(.redirect(paymentMethodType), session: context.session)
        } catch {
            guard isCurrent(attempt) else { return state }
            let failure = error as? CheckoutError
                ?? CheckoutError(.paymentFailed, "the payment method could not be tokenized", underlying: error)
            return apply(context.pipeline.fail(failure), attempt: attempt, token: nil)
        }
        guard isCurrent(attempt) else { return state }
        let surcharge = context.advertised.options.surcharge ?? 0
        var step = await context.pipeline.createPayment(token: token, surcharge: surcharge)
        if case .actionRequired(_, .challenge) = step {
            step = context.pipeline.fail(
                CheckoutError(.paymentFailed, "\(paymentMethodType) cannot complete a card challenge"))
        }
        return apply(step, attempt: attempt, token: token)
    }

    /// Completes the pending payment with the URL the provider sent the shopper back to.
    ///
    /// The URL's scheme, host and path must match the expected return URL, its `paymentId` must
    /// be the pending payment's and it must carry a `resumeToken`; the processor then checks the
    /// token. A return URL is accepted once.
    /// - Throws: `CheckoutError` `.invalidReturn` for a challenge result, when no redirect is
    ///   pending, or for a mismatched, tampered or replayed return; nothing changes then.
    @discardableResult
    public func resume(with input: PaymentResumeInput) async throws -> PaymentFlowState {
        guard case .returnURL(let url) = input else {
            throw CheckoutError(.invalidReturn, "a redirect payment resumes with its return URL, not a challenge result")
        }
        enum Decision { case resume(Int, Pending, String), awaitPoll(Task<PaymentFlowState, Never>) }
        let decision: Decision = try storage.withLock { current in
            guard case .awaitingRedirect = current.state, var pending = current.pending else {
                throw CheckoutError(.invalidReturn, "no payment is waiting for a redirect return")
            }
            let resumeToken = try RedirectReturnValidator.resumeToken(
                from: url, expected: pending.returnURL, paymentId: pending.paymentId)
            guard !current.usedResumeTokens.contains(resumeToken) else {
                throw CheckoutError(.invalidReturn, "this return URL was already used")
            }
            switch pending.claim {
            case .resume:
                throw CheckoutError(.invalidReturn, "a return for this payment is already being processed")
            case .poll:
                guard let task = current.polling else {
                    throw CheckoutError(.invalidReturn, "the payment is already being completed")
                }
                return .awaitPoll(task)
            case .unclaimed:
                current.usedResumeTokens.insert(resumeToken)
                pending.claim = .resume
                current.pending = pending
                return .resume(current.attempt, pending, resumeToken)
            }
        }
        switch decision {
        case .awaitPoll(let task):
            return await task.value
        case .resume(let attempt, let pending, let resumeToken):
            let step: PaymentPipeline.Step
            do {
                step = try await context.pipeline.resumeVerifyingReturn(
                    paymentId: pending.paymentId, resumeToken: resumeToken, token: pending.token)
            } catch {
                storage.withLock { current in
                    if current.attempt == attempt, current.pending?.claim == .resume { current.pending?.claim = .unclaimed }
                }
                throw error as? CheckoutError ?? CheckoutError(.invalidReturn, "the return was rejected", underlying: error)
            }
            return apply(step, attempt: attempt, token: pending.token)
        }
    }

    /// Polls the pending payment's status with exponential backoff until it settles or the
    /// policy's timeout passes (then the attempt fails with `.timeout`). Concurrent calls share
    /// one polling loop; `cancel()` stops it.
    /// - Returns: the state reached; the current state at once when no redirect is pending.
    @discardableResult
    public func pollForCompletion() async -> PaymentFlowState {
        let task: Task<PaymentFlowState, Never>? = storage.withLock { current in
            guard case .awaitingRedirect = current.state, let pending = current.pending else { return nil }
            if let existing = current.polling { return existing }
            let attempt = current.attempt
            let task = Task { await self.poll(attempt: attempt, paymentId: pending.paymentId) }
            current.polling = task
            return task
        }
        guard let task else { return state }
        return await task.value
    }

    /// Cancels the flow (no outcome is delivered) and stops polling. No-op after success.
    public func cancel() async {
        let task: Task<PaymentFlowState, Never>? = storage.withLock { current in
            switch current.state {
            case .succeeded, .cancelled:
                return nil
            default:
                current.attempt += 1
                if let pending = current.pending { current.lastPaymentId = pending.paymentId }
                current.pending = nil
                let task = current.polling
                current.polling = nil
                transition(&current, to: .cancelled)
                return task
            }
        }
        task?.cancel()
    }

    // MARK: Polling

    private func poll(attempt: Int, paymentId: String) async -> PaymentFlowState {
        let policy: RedirectPollingPolicy
        switch polling {
        case .success(let value):
            policy = value
        case .failure(let error):
            return await settleByPolling(attempt: attempt, failure: error)
        }
        let deadline = clock.now + policy.timeout
        var interval = policy.initialInterval
        while true {
            guard stillPolling(attempt) else { return clearPolling(attempt: attempt) }
            do {
                let response = try await context.processor.paymentStatus(paymentId: paymentId)
                if response.status != .pending { return await settleByPolling(attempt: attempt, failure: nil) }
            } catch let error as CheckoutError where error.code == .networkError {
                // Transient: try again at the next interval.
            } catch {
                return await settleByPolling(attempt: attempt, failure: CheckoutError(
                    .paymentFailed, "the payment status could not be read", underlying: error))
            }
            let remaining = deadline - clock.now
            guard remaining > .zero else {
                let seconds = Double(policy.timeout.components.seconds)
                    + Double(policy.timeout.components.attoseconds) / 1e18
                return await settleByPolling(attempt: attempt, failure: CheckoutError(
                    .timeout, "the payment was not completed within \(Self.format(seconds)) seconds"))
            }
            do {
                try await clock.sleep(for: min(interval, remaining))
            } catch {
                return clearPolling(attempt: attempt)
            }
            interval = policy.interval(after: interval)
        }
    }

    /// Claims the pending payment for the poller and finishes it: through the pipeline's status
    /// check when the processor no longer reports it pending, else with `failure`.
    private func settleByPolling(attempt: Int, failure: CheckoutError?) async -> PaymentFlowState {
        let pending: Pending? = storage.withLock { current in
            guard current.attempt == attempt, var pending = current.pending, pending.claim == .unclaimed else { return nil }
            pending.claim = .poll
            current.pending = pending
            return pending
        }
        guard let pending else { return clearPolling(attempt: attempt) }
        let step: PaymentPipeline.Step
        if let failure {
            step = context.pipeline.fail(failure)
        } else {
            do {
                guard let settled = try await context.pipeline.pollStatus(paymentId: pending.paymentId,
                                                                          token: pending.token) else {
                    storage.withLock { current in
                        if current.attempt == attempt, current.pending?.claim == .poll { current.pending?.claim = .unclaimed }
                    }
                    return clearPolling(attempt: attempt)
                }
                step = settled
            } catch {
                step = context.pipeline.fail(
                    CheckoutError(.paymentFailed, "the payment status could not be read", underlying: error))
            }
        }
        return apply(step, attempt: attempt, token: pending.token)
    }

    private func stillPolling(_ attempt: Int) -> Bool {
        storage.withLock { current in
            guard current.attempt == attempt, case .awaitingRedirect = current.state,
                  current.pending?.claim == .unclaimed else { return false }
            return true
        }
    }

    private func clearPolling(attempt: Int) -> PaymentFlowState {
        storage.withLock { current in
            if current.attempt == attempt { current.polling = nil }
            return current.state
        }
    }

    // MARK: State

    private func isCurrent(_ attempt: Int) -> Bool { storage.withLock { $0.attempt == attempt } }

    /// Applies a pipeline step to the attempt it belongs to; a stale step (the flow was
    /// cancelled or restarted meanwhile) changes nothing.
    private func apply(_ step: PaymentPipeline.Step, attempt: Int, token: PaymentMethodToken?) -> PaymentFlowState {
        storage.withLock { current in
            guard current.attempt == attempt, current.state != .cancelled else { return current.state }
            switch step {
            case .succeeded(let result):
                current.lastPaymentId = result.paymentId
                current.pending = nil
                current.polling = nil
                transition(&current, to: .succeeded(result))
            case .failed(let error):
                if let pending = current.pending { current.lastPaymentId = pending.paymentId }
                current.pending = nil
                current.polling = nil
                transition(&current, to: .failed(error))
            case .actionRequired(let paymentId, .redirect(let url, let returnURL)):
                if let token {
                    current.pending = Pending(paymentId: paymentId, token: token, returnURL: returnURL)
                    transition(&current, to: .awaitingRedirect(url))
                }
            case .actionRequired:
                break
            }
            return current.state
        }
    }

    /// Sets the state and publishes it (inside the storage lock, so subscribers see the order).
    private func transition(_ current: inout Internal, to state: PaymentFlowState) {
        guard current.state != state else { return }
        current.state = state
        broadcaster.send(state)
    }

    private static func format(_ seconds: Double) -> String {
        seconds.rounded() == seconds ? String(Int(seconds)) : String(seconds)
    }
}
