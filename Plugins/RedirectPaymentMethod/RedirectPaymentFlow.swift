import CheckoutCore
import Foundation

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
    private typealias Machine = PaymentFlowMachine<Extra>

    /// What the redirect flow keeps beside the shared state, under the machine's lock.
    private struct Extra: Sendable {
        /// Resume tokens of returns already accepted, over every attempt: a return URL works once.
        var usedResumeTokens: Set<String> = []
        /// The polling loop of the current attempt, while one runs.
        var polling: Task<PaymentFlowState, Never>?
    }

    /// The method type this flow pays with.
    public let paymentMethodType: PaymentMethodType
    private let context: PaymentFlowContext
    private let polling: Result<RedirectPollingPolicy, CheckoutError>
    private let clock: any Clock<Duration>
    private let machine = Machine(extra: Extra())

    init(context: PaymentFlowContext, polling: Result<RedirectPollingPolicy, CheckoutError>, clock: any Clock<Duration>) {
        self.context = context
        paymentMethodType = context.method.type
        self.polling = polling
        self.clock = clock
    }

    // MARK: Observation

    /// The current state.
    public var flowState: PaymentFlowState { machine.state }

    /// The current state, then every change.
    public func flowStates() -> AsyncStream<PaymentFlowState> { machine.states() }

    /// The processor's id of the current or last payment of this flow, once created.
    public var paymentId: String? { machine.paymentId }

    /// The URL the provider will send the shopper back to, while a redirect is pending.
    public var expectedReturnURL: URL? { machine.pending.flatMap(Self.returnURL(of:)) }

    // MARK: PaymentFlow

    /// Creates a payment and returns `awaitingRedirect(url)` (or a terminal state). Ignored, returning
    /// the current state, while an attempt is in progress or after success.
    @discardableResult
    public func submit() async -> PaymentFlowState {
        guard let attempt = machine.beginAttempt(resetting: { $0.polling = nil }) else { return flowState }
        return await machine.pay(attempt, surcharge: context.advertised.options.surcharge ?? 0, through: context.pipeline,
                                 tokenizeFailure: "the payment method could not be tokenized",
                                 unsupported: { action in
                                     guard case .challenge = action else { return nil }
                                     return "\(paymentMethodType) cannot complete a card challenge"
                                 }) {
            try await context.processor.tokenize(.redirect(paymentMethodType), session: context.session)
        }
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
        enum Decision { case resume(Machine.Attempt, Machine.PendingAction, String), awaitPoll(Task<PaymentFlowState, Never>) }
        let decision: Decision = try machine.withCurrent { current in
            guard case .awaitingRedirect = current.state, let pending = current.pending,
                  let returnURL = Self.returnURL(of: pending) else {
                throw CheckoutError(.invalidReturn, "no payment is waiting for a redirect return")
            }
            let resumeToken = try RedirectReturnValidator.resumeToken(
                from: url, expected: returnURL, paymentId: pending.paymentId)
            guard !current.extra.usedResumeTokens.contains(resumeToken) else {
                throw CheckoutError(.invalidReturn, "this return URL was already used")
            }
            switch pending.claim {
            case .resume:
                throw CheckoutError(.invalidReturn, "a return for this payment is already being processed")
            case .poll:
                guard let task = current.extra.polling else {
                    throw CheckoutError(.invalidReturn, "the payment is already being completed")
                }
                return .awaitPoll(task)
            case nil:
                current.extra.usedResumeTokens.insert(resumeToken)
                _ = current.claimPending(.resume)
                return .resume(current.attempt, pending, resumeToken)
            }
        }
        switch decision {
        case .awaitPoll(let task):
            return await awaitShared(task) { [self] in flowState }
        case .resume(let attempt, let pending, let resumeToken):
            let step: PaymentPipeline.Step
            do {
                step = try await context.pipeline.resumeVerifyingReturn(
                    paymentId: pending.paymentId, resumeToken: resumeToken, token: pending.token)
            } catch {
                machine.releaseClaim(.resume, attempt: attempt)
                throw error as? CheckoutError ?? CheckoutError(.invalidReturn, "the return was rejected", underlying: error)
            }
            return machine.apply(step, attempt: attempt, token: pending.token)
        }
    }

    /// Polls the pending payment's status with exponential backoff until it settles or the
    /// policy's timeout passes (then the attempt fails with `.timeout`). Concurrent calls share
    /// one polling loop; `cancel()` stops it. A cancelled caller gets the current state at once,
    /// and the loop goes on for the others.
    /// - Returns: the state reached; the current state at once when no redirect is pending.
    @discardableResult
    public func pollForCompletion() async -> PaymentFlowState {
        let task: Task<PaymentFlowState, Never>? = machine.withCurrent { current in
            guard case .awaitingRedirect = current.state, let pending = current.pending else { return nil }
            if let existing = current.extra.polling { return existing }
            let attempt = current.attempt
            let task = Task { await self.poll(attempt: attempt, paymentId: pending.paymentId) }
            current.extra.polling = task
            return task
        }
        guard let task else { return flowState }
        return await awaitShared(task) { [self] in flowState }
    }

    /// Cancels the flow (no outcome is delivered) and stops polling. No-op after success.
    public func cancel() async {
        let polling = machine.cancel { $0.polling.take() } ?? nil
        polling?.cancel()
    }

    // MARK: Polling

    private func poll(attempt: Machine.Attempt, paymentId: String) async -> PaymentFlowState {
        let policy: RedirectPollingPolicy
        switch polling {
        case .success(let value):
            policy = value
        case .failure(let error):
            return await settleByPolling(attempt: attempt, failure: error)
        }
        let watch = Stopwatch(clock)
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
            let remaining = policy.timeout - watch.elapsed
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
    private func settleByPolling(attempt: Machine.Attempt, failure: CheckoutError?) async -> PaymentFlowState {
        let pending = machine.withCurrent { current in
            current.attempt == attempt ? current.claimPending(.poll) : nil
        }
        guard let pending else { return clearPolling(attempt: attempt) }
        let step: PaymentPipeline.Step
        if let failure {
            step = context.pipeline.fail(failure)
        } else {
            do {
                guard let settled = try await context.pipeline.pollStatus(paymentId: pending.paymentId,
                                                                          token: pending.token) else {
                    machine.releaseClaim(.poll, attempt: attempt)
                    return clearPolling(attempt: attempt)
                }
                step = settled
            } catch {
                step = context.pipeline.fail(
                    CheckoutError(.paymentFailed, "the payment status could not be read", underlying: error))
            }
        }
        let reached = machine.apply(step, attempt: attempt, token: pending.token)
        _ = clearPolling(attempt: attempt)
        return reached
    }

    private func stillPolling(_ attempt: Machine.Attempt) -> Bool {
        machine.withCurrent { current in
            guard current.attempt == attempt, case .awaitingRedirect = current.state,
                  let pending = current.pending, pending.claim == nil else { return false }
            return true
        }
    }

    /// Forgets the polling loop of `attempt` (it is ending) and returns the current state.
    private func clearPolling(attempt: Machine.Attempt) -> PaymentFlowState {
        machine.withCurrent { current in
            if current.attempt == attempt { current.extra.polling = nil }
            return current.state
        }
    }

    /// The return URL a pending redirect expects; nil for any other action.
    private static func returnURL(of pending: Machine.PendingAction) -> URL? {
        guard case .redirect(_, let returnURL) = pending.action else { return nil }
        return returnURL
    }

    private static func format(_ seconds: Double) -> String {
        seconds.rounded() == seconds ? String(Int(seconds)) : String(seconds)
    }
}
