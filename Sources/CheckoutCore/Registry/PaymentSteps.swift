import Foundation

/// The method-specific part of a payment: what a plugin supplies so that the core's
/// `CorePaymentFlow` can run the flow.
///
/// A plugin writes only its steps (how an attempt gets a token, whether a success saves the
/// instrument, how a redirect or challenge return is read); the flow around them (the
/// before-payment-create hook, the idempotency key, creating and resuming the payment, state,
/// attempts, stale results, one resume per pending action, cancellation, outcomes) belongs to the
/// core, which a plugin cannot reach (`PaymentFlowContext.services` only tokenizes, exchanges saved
/// instruments and looks up BINs), so a plugin cannot break those rules. Every requirement but
/// `tokenize` has a default. A method that sends the shopper away (a redirect) also says how to
/// read the return (`resumeToken(from:for:)`), that the processor must verify it (`verifiesReturn`),
/// and how its pending payments are polled (`polling`).
///
/// ```swift
/// struct GiftCardSteps: PaymentSteps {
///     let context: PaymentFlowContext
///     func tokenize(_ attempt: PaymentStepAttempt) async throws -> PaymentTokenization {
///         .token(try await context.services.tokenize(request), surcharge: 0)
///     }
/// }
/// // in the handler (the core runs them in a `CorePaymentFlow`):
/// func makeSteps(context: PaymentFlowContext) -> GiftCardSteps { GiftCardSteps(context: context) }
/// ```
public protocol PaymentSteps: Sendable {
    /// Gets what one attempt pays with: validates the method's input, asks the shopper or a wallet
    /// if needed, and tokenizes.
    ///
    /// A thrown `CheckoutError` fails the attempt and is reported as the session's outcome (any
    /// other error becomes `.paymentFailed`). Return `.invalidInput` for input the shopper must
    /// correct (the attempt fails with no outcome) and `.cancelled` when the shopper dismissed it.
    func tokenize(_ attempt: PaymentStepAttempt) async throws -> PaymentTokenization

    /// Whether a successful payment saves the instrument it paid with (the card form's "save this
    /// card"): asked when the core creates the payment and when it resumes it. The default is false.
    var vaultOnSuccess: Bool { get }

    /// The failure message for an action this method cannot complete (the attempt then fails with
    /// `.paymentFailed`), or nil to wait for `resume(with:)`. The default accepts challenges and
    /// refuses redirects, matching the default `resumeToken(from:for:)`.
    func unsupportedAction(_ action: RequiredAction) -> String?

    /// The processor's resume token in what the shopper brought back for `pending`.
    /// The default takes a challenge's result.
    /// - Throws: `CheckoutError` `.invalidReturn` for input that does not belong to `pending`;
    ///   nothing changes then, and the payment still waits.
    func resumeToken(from input: PaymentResumeInput, for pending: PaymentFlowRules.PendingAction) throws -> String

    /// Whether the core has the processor verify that a resume token belongs to the pending payment
    /// before completing it (a redirect's return, which anyone can forge): a rejected return is given
    /// back, the payment still waits, and `resume(with:)` throws `.invalidReturn`. The default is false.
    var verifiesReturn: Bool { get }

    /// Whether a resume token, once a `resume(with:)` has used it, is refused for the rest of the
    /// flow even when that resume failed (a replayed return URL). The default is false.
    var singleUseResumeTokens: Bool { get }

    /// How `pollForCompletion()` polls a pending payment; nil (the default): it does not, and
    /// returns the current state.
    var polling: PaymentPolling? { get }

    /// How the default failure messages name a payment with this method ("a wallet payment
    /// cannot follow a redirect"). The default is "this payment method".
    var paymentName: String { get }

    /// An error in the shopper's input, found before an attempt starts (the card form's invalid
    /// fields): the attempt then fails at once with it, with no `processing` before it, nothing
    /// sent to the processor and no outcome. Nil (the default): the attempt starts.
    ///
    /// The flow calls it inside its lock, only when a `submit()` would start an attempt, so a
    /// method may mark its fields as submitted here, and keep the input it checked for the
    /// `tokenize` that follows. It must not call back into the flow.
    func inputError() -> CheckoutError?

    /// Whether a cancelled flow stays cancelled and takes no new attempt (the card form forgets
    /// its card when cancelled). The default is false: `submit()` after `cancel()` starts over.
    var cancelIsFinal: Bool { get }

    /// Sees the flow at each change of its state or of whether its pending payment is being
    /// completed: inside the flow's lock, as part of the change, so before any call returns the
    /// new state and before the flow's `flowStates()` subscribers see it. A method that publishes
    /// a richer state of its own (the card form's `CardFormState`, with `flow` and `isLoading`)
    /// keeps it in step here, and forgets what a finished flow no longer needs. It must not call
    /// back into the flow or wait. The flow calls it; nothing else should. The default does
    /// nothing.
    func flowChanged(_ snapshot: PaymentFlowSnapshot)
}

extension PaymentSteps {
    /// "this payment method".
    public var paymentName: String { "this payment method" }

    /// False: a resume token may be offered again after a failed resume.
    public var singleUseResumeTokens: Bool { false }

    /// Nil: the method does not poll.
    public var polling: PaymentPolling? { nil }

    /// Nil: every submit starts an attempt.
    public func inputError() -> CheckoutError? { nil }

    /// False: a cancelled flow may start over.
    public var cancelIsFinal: Bool { false }

    /// Does nothing.
    public func flowChanged(_ snapshot: PaymentFlowSnapshot) {}

    /// False: a success saves nothing.
    public var vaultOnSuccess: Bool { false }

    /// False: a challenge result is completed as it is.
    public var verifiesReturn: Bool { false }

    /// Accepts challenges; refuses redirects.
    public func unsupportedAction(_ action: RequiredAction) -> String? {
        guard case .redirect = action else { return nil }
        return "\(paymentName) cannot follow a redirect"
    }

    /// Takes a challenge's result; refuses a return URL.
    public func resumeToken(from input: PaymentResumeInput, for pending: PaymentFlowRules.PendingAction) throws -> String {
        guard case .challengeResult(let result) = input else {
            throw CheckoutError(.invalidReturn, "\(paymentName) resumes with a challenge result")
        }
        return result
    }
}

/// What `PaymentSteps.tokenize` returns.
public enum PaymentTokenization: Sendable, Equatable {
    /// Pay with `token`, adding `surcharge` (minor units) to the amount.
    case token(PaymentMethodToken, surcharge: Int)
    /// The shopper's input is invalid: the attempt fails with `error` and no outcome is reported.
    case invalidInput(CheckoutError)
    /// The shopper dismissed the attempt (e.g. closed a wallet sheet): the flow is cancelled.
    case cancelled
}

/// The attempt a `PaymentSteps.tokenize` call works for.
public struct PaymentStepAttempt: Sendable {
    /// The attempt's number (1 for the first).
    public let number: Int
    private let current: @Sendable () -> Bool

    init(number: Int, current: @escaping @Sendable () -> Bool) {
        self.number = number
        self.current = current
    }

    /// Whether the attempt is still the flow's current one (false once cancelled or superseded):
    /// a step that records something per attempt checks it first. Whatever the step returns for a
    /// stale attempt is ignored.
    public var isCurrent: Bool { current() }
}
