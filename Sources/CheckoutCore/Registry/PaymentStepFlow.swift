import Foundation

/// The core's payment flow: runs a plugin's `PaymentSteps` under the rules every flow shares.
///
/// The plugin supplies only its steps; this class owns the rest, through `PaymentFlowMachine`:
/// - `submit()` is refused (returning the current state) while an attempt runs, while a payment
///   awaits a redirect or challenge, and after success; from `idle`, `failed` or `cancelled` it
///   starts a new attempt: `tokenize`, then `create`, then the step is applied.
/// - A result of an attempt that was cancelled or superseded changes nothing and reports nothing.
/// - A required action the steps refuse (`unsupportedAction`) fails the attempt.
/// - `resume(with:)` lets exactly one caller complete the pending action; input the steps reject
///   changes nothing.
/// - `cancel()` ends the current attempt from any state but `succeeded`; no outcome is delivered.
public final class PaymentStepFlow<Steps: PaymentSteps>: PaymentFlow {
    /// The method type this flow pays with.
    public let paymentMethodType: PaymentMethodType
    /// The plugin's steps (a plugin reaches its own surface, e.g. the input to enter, through it).
    public let steps: Steps
    private let pipeline: PaymentPipeline
    private let machine = PaymentFlowMachine()

    /// A flow for the method of `context` that runs `steps`.
    public init(context: PaymentFlowContext, steps: Steps) {
        paymentMethodType = context.method.type
        pipeline = context.pipeline
        self.steps = steps
    }

    /// The current state.
    public var flowState: PaymentFlowState { machine.state }

    /// The current state, then every change.
    public func flowStates() -> AsyncStream<PaymentFlowState> { machine.states() }

    /// The processor's id of the current attempt's payment once created.
    public var paymentId: String? { machine.paymentId }

    /// Starts an attempt and returns the state it reached.
    @discardableResult
    public func submit() async -> PaymentFlowState {
        guard let attempt = machine.beginAttempt() else { return flowState }
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
                await steps.create(token: token, surcharge: surcharge, through: pipeline)
            }
        }
    }

    /// Continues after a redirect or challenge.
    /// - Throws: `CheckoutError` `.invalidReturn` when nothing is waiting, another resume already
    ///   claimed it, or the steps reject the input; nothing changes then.
    @discardableResult
    public func resume(with input: PaymentResumeInput) async throws -> PaymentFlowState {
        let steps = steps
        let (attempt, pending, resumeToken) = try machine.withCurrent { current in
            guard let waiting = current.pending, waiting.claim == nil else {
                throw CheckoutError(.invalidReturn, "no redirect or challenge is waiting to be resumed")
            }
            let resumeToken = try steps.resumeToken(from: input, for: waiting)
            _ = current.claimPending(.resume)
            return (current.attempt, waiting, resumeToken)
        }
        let step = await steps.resume(pending, resumeToken: resumeToken, through: pipeline)
        return machine.apply(step, attempt: attempt, token: pending.token)
    }

    /// Cancels the flow (no outcome is delivered). No-op after success.
    public func cancel() async {
        machine.cancel()
    }
}
