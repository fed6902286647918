import CheckoutCore
import Foundation

/// One payment with a redirect method: the core's step flow running `RedirectPaymentSteps`.
///
/// Create the payment (`submit()`), send the shopper to the provider, then finish from the return
/// URL (`resume(with: .returnURL(url))`) or by polling the status (`pollForCompletion()`).
/// States: `idle -> processing -> awaitingRedirect(url) -> succeeded | failed`, and `cancelled`
/// from anywhere but `succeeded`. While awaiting the redirect the state does not change until a
/// genuine return or a poll settles the payment: a tampered, mismatched or replayed return URL
/// throws `.invalidReturn` and leaves both the flow and the pending payment as they were.
/// `submit()` after `failed` or `cancelled` starts a new attempt (a new payment).
public typealias RedirectPaymentFlow = CorePaymentFlow<RedirectPaymentSteps>

extension CorePaymentFlow where Steps == RedirectPaymentSteps {
    /// The URL the provider will send the shopper back to, while a redirect is pending.
    public var expectedReturnURL: URL? { pendingAction.flatMap(RedirectPaymentSteps.returnURL(of:)) }
}

/// What a redirect method does in the core's flow: tokenize the redirect, create the payment
/// (which asks for a redirect), accept the provider's return URL once, verified, and poll.
///
/// The return URL's scheme, host and path must match the expected return URL, its `paymentId`
/// must be the pending payment's and it must carry a `resumeToken`; the processor then checks the
/// token. A return URL is accepted once. A card challenge fails the attempt.
public struct RedirectPaymentSteps: PaymentSteps {
    private let context: PaymentFlowContext
    /// How `pollForCompletion()` polls: the handler's policy with the configuration's options,
    /// or the reason those options are invalid.
    public let polling: PaymentPolling?

    init(context: PaymentFlowContext, polling: PaymentPolling) {
        self.context = context
        self.polling = polling
    }

    /// A return URL is accepted once, even when the processor rejected it.
    public var singleUseResumeTokens: Bool { true }

    /// "PAYPAL", ...: the failure messages name the method.
    public var paymentName: String { context.method.type.rawValue }

    /// Tokenizes the redirect; the payment carries the advertised surcharge.
    public func tokenize(_ attempt: PaymentStepAttempt) async throws -> PaymentTokenization {
        .token(try await context.services.tokenize(.redirect(context.method.type)),
               surcharge: context.advertised.options.surcharge ?? 0)
    }

    /// Accepts redirects; refuses card challenges.
    public func unsupportedAction(_ action: RequiredAction) -> String? {
        guard case .challenge = action else { return nil }
        return "\(paymentName) cannot complete a card challenge"
    }

    /// The `resumeToken` of a return URL that belongs to `pending`.
    /// - Throws: `.invalidReturn` for a challenge result, or a mismatched or tampered return.
    public func resumeToken(from input: PaymentResumeInput, for pending: PaymentFlowRules.PendingAction) throws -> String {
        guard case .returnURL(let url) = input else {
            throw CheckoutError(.invalidReturn, "a redirect payment resumes with its return URL, not a challenge result")
        }
        guard let returnURL = Self.returnURL(of: pending) else {
            throw CheckoutError(.invalidReturn, "no payment is waiting for a redirect return")
        }
        return try RedirectReturnValidator.resumeToken(from: url, expected: returnURL, paymentId: pending.paymentId)
    }

    /// True: the processor verifies a return's token; a rejected one is thrown, so the genuine
    /// return can still complete the payment.
    public var verifiesReturn: Bool { true }

    /// The return URL a pending redirect expects; nil for any other action.
    static func returnURL(of pending: PaymentFlowRules.PendingAction) -> URL? {
        guard case .redirect(_, let returnURL) = pending.action else { return nil }
        return returnURL
    }
}
