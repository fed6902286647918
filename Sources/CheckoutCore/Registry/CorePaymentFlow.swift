import Foundation

/// The core's payment flow: runs a plugin's `PaymentSteps` under the rules every flow shares.
///
/// The plugin supplies only its steps; this class owns the rest, through `PaymentFlowStateKeeper`:
/// - `submit()` is refused (returning the current state) while an attempt runs, while a payment
///   awaits a redirect or challenge, and after success (and after `cancel()` when the steps'
///   `cancelIsFinal`); from `idle`, `failed` or `cancelled` it starts a new attempt: an
///   `inputError()` fails it at once, else `tokenize`, then `create`, then the step is applied.
/// - A result of an attempt that was cancelled or superseded changes nothing and reports nothing.
/// - A required action the steps refuse (`unsupportedAction`) fails the attempt.
/// - `resume(with:)` lets exactly one caller complete the pending action; input the steps reject
///   changes nothing, and a return the processor rejects gives the payment back (with
///   `singleUseResumeTokens`, that token is refused from then on).
/// - `pollForCompletion()`, for steps with `polling`, checks the pending payment's status in one
///   loop per attempt shared by every caller, until it settles or times out; a return that
///   arrives while the poll is completing the payment waits for it.
/// - `cancel()` ends the current attempt from any state but `succeeded` and stops polling; no
///   outcome is delivered.
///
/// The steps see every change through `flowChanged(_:)`. A flow's `description` and mirror show
/// its method and state, and its steps only where they describe (`CustomStringConvertible`) or
/// reflect (`CustomReflectable`) themselves, so printing a flow cannot reveal what its steps hold.
public final class CorePaymentFlow<Steps: PaymentSteps>: PaymentFlow, CustomStringConvertible, CustomReflectable {
    /// What the flow keeps beside the shared state, under the machine's lock.
    struct Extra: Sendable {
        /// Resume tokens already used, over every attempt (only with `singleUseResumeTokens`).
        var usedResumeTokens: Set<String> = []
        /// The polling loop of the current attempt, while one runs.
        var polling: Task<PaymentFlowState, Never>?
    }

    typealias Machine = PaymentFlowStateKeeper<Extra>

    /// What a `resume(with:)` does once the input is checked: complete the payment, or wait for
    /// the poll that is completing it.
    private enum ResumeDecision {
        case resume(Machine.Attempt, Machine.PendingAction, String)
        case awaitPoll(Task<PaymentFlowState, Never>)
    }

    /// The method type this flow pays with.
    public let paymentMethodType: PaymentMethodType
    /// The plugin's steps (a plugin reaches its own surface, e.g. the input to enter, through it).
    public let steps: Steps
    let pipeline: PaymentPipeline
    let processor: any PaymentProcessor
    let machine: Machine

    /// A flow for the method of `context` that runs `steps`.
    public init(context: PaymentFlowContext, steps: Steps) {
        paymentMethodType = context.method.type
        pipeline = context.pipeline
        processor = context.processor
        self.steps = steps
        machine = Machine(extra: Extra(), cancelIsFinal: steps.cancelIsFinal, observer: { steps.flowChanged($0) })
    }

    /// The method type and the state, then the steps when they describe themselves.
    public var description: String {
        let described = (steps as? any CustomStringConvertible).map { ", \($0.description)" } ?? ""
        return "CorePaymentFlow(\(paymentMethodType.rawValue), \(flowState)\(described))"
    }

    /// The method type and the state, then the steps when they reflect themselves.
    public var customMirror: Mirror {
        var children: [Mirror.Child] = [("paymentMethodType", paymentMethodType), ("flowState", flowState)]
        if steps is any CustomReflectable { children.append(("steps", steps)) }
        return Mirror(self, children: children, displayStyle: .class)
    }

    /// The current state.
    public var flowState: PaymentFlowState { machine.state }

    /// The current state, then every change.
    public func flowStates() -> AsyncStream<PaymentFlowState> { machine.states() }

    /// The processor's id of the current attempt's payment once created.
    public var paymentId: String? { machine.paymentId }

    /// The payment waiting for the shopper (its action says where they went), if any.
    public var pendingAction: PaymentFlowRules.PendingAction? { machine.pending }

    /// Starts an attempt and returns the state it reached.
    @discardableResult
    public func submit() async -> PaymentFlowState {
        let steps = steps
        guard let attempt = machine.beginAttempt(checkingInput: { steps.inputError() },
                                                 resetting: { $0.polling = nil }) else { return flowState }
        let machine = machine
        let tokenization: PaymentTokenization
        do {
            tokenization = try await steps.tokenize(PaymentStepAttempt(number: attempt.number,
                                                                       current: { machine.isCurrent(attempt) }))
        } catch {
            let failure = error as? CheckoutError
                ?? CheckoutError(.paymentFailed, "\(paymentMethodType.rawValue) could not be tokenized", underlying: error)
            return machine.fail(failure, attempt: attempt, through: pipeline)
        }
        switch tokenization {
        case .invalidInput(let error):
            return machine.apply(.failed(error), attempt: attempt, token: nil)
        case .cancelled:
            return machine.cancel(attempt)
        case .token(let token, let surcharge):
            return await machine.create(attempt, token: token, through: pipeline, unsupported: steps.unsupportedAction) {
                await pipeline.createPayment(token: token, surcharge: surcharge, vaultOnSuccess: steps.vaultOnSuccess)
            }
        }
    }

    /// Continues after a redirect or challenge.
    /// - Throws: `CheckoutError` `.invalidReturn` when nothing is waiting, another resume already
    ///   claimed it, the steps reject the input or the processor rejects the return (or, with
    ///   `singleUseResumeTokens`, the token was used before); nothing changes then.
    @discardableResult
    public func resume(with input: PaymentResumeInput) async throws -> PaymentFlowState {
        let steps = steps
        let decision: ResumeDecision = try machine.withCurrent { current in
            guard let waiting = current.pending else {
                throw CheckoutError(.invalidReturn, "no redirect or challenge is waiting to be resumed")
            }
            let resumeToken = try steps.resumeToken(from: input, for: waiting)
            if steps.singleUseResumeTokens && current.extra.usedResumeTokens.contains(resumeToken) {
                throw CheckoutError(.invalidReturn, "this return was already used")
            }
            switch waiting.claim {
            case .resume:
                throw CheckoutError(.invalidReturn, "a return for this payment is already being processed")
            case .poll:
                guard let task = current.extra.polling else {
                    throw CheckoutError(.invalidReturn, "the payment is already being completed")
                }
                return .awaitPoll(task)
            case nil:
                if steps.singleUseResumeTokens { current.extra.usedResumeTokens.insert(resumeToken) }
                _ = current.claimPending(.resume)
                return .resume(current.attempt, waiting, resumeToken)
            }
        }
        switch decision {
        case .awaitPoll(let task):
            return await awaitShared(task) { [self] in flowState }
        case .resume(let attempt, let pending, let resumeToken):
            let step: PaymentPipeline.Step
            do {
                step = try await resume(pending, resumeToken: resumeToken)
            } catch {
                machine.releaseClaim(.resume, attempt: attempt)
                throw error as? CheckoutError ?? CheckoutError(.invalidReturn, "the return was rejected", underlying: error)
            }
            return machine.apply(step, attempt: attempt, token: pending.token)
        }
    }

    /// Completes `pending` through the pipeline, verifying the return first when the steps ask for it.
    private func resume(_ pending: PaymentFlowRules.PendingAction, resumeToken: String) async throws -> PaymentPipeline.Step {
        if steps.verifiesReturn {
            return try await pipeline.resumeVerifyingReturn(paymentId: pending.paymentId, resumeToken: resumeToken,
                                                            token: pending.token, vaultOnSuccess: steps.vaultOnSuccess)
        }
        return await pipeline.resume(paymentId: pending.paymentId, resumeToken: resumeToken, token: pending.token,
                                     vaultOnSuccess: steps.vaultOnSuccess)
    }

    /// Cancels the flow (no outcome is delivered) and stops polling. No-op after success.
    public func cancel() async {
        let polling = machine.cancel { $0.polling.take() } ?? nil
        polling?.cancel()
    }
}
