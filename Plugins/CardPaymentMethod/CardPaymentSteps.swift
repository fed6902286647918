import CheckoutCore
import Foundation

/// The steps of a card payment, which the core's `CorePaymentFlow` runs (`CardFormSession`):
/// as the attempt starts, the form's fields are checked and the card it pays with is taken (a
/// field changed while the attempt runs changes nothing about it); then that card is tokenized
/// and the payment created, saving the card when `vaultOnSuccess`. A 3-D Secure challenge is
/// resumed with its result, and a redirect with a return URL that names the pending payment.
///
/// A cancelled card form has forgotten its card, so `cancelIsFinal` is true. The steps describe
/// and reflect only the form's masked state, so printing or dumping the flow cannot leak the card.
public struct CardPaymentSteps: PaymentSteps, CustomStringConvertible, CustomReflectable {
    let form: CardForm
    private let context: PaymentFlowContext

    /// The steps of the card form of `context`.
    init(context: PaymentFlowContext, form: CardForm) {
        self.context = context
        self.form = form
    }

    /// "a card payment".
    public var paymentName: String { "a card payment" }

    /// The form's configuration error, else its invalid fields (all shown from now on); nil when
    /// the card is valid, which the attempt then pays with.
    public func inputError() -> CheckoutError? { form.prepareAttempt() }

    /// True: a cancelled form has wiped its card.
    public var cancelIsFinal: Bool { true }

    /// Tokenizes the card the attempt started with, with the surcharge of its network.
    public func tokenize(_ attempt: PaymentStepAttempt) async throws -> PaymentTokenization {
        let input: PreparedCard
        switch form.takePreparedInput() {
        case .failure(let error): return .invalidInput(error)
        case .success(let valid): input = valid
        }
        do {
            var token = try await context.services.tokenize(.card(input.card))
            // What the BIN lookup told the form goes with the token: a card saved after the payment
            // keeps a co-badged card's networks, so its preferred network can change later.
            if token.instrumentData != nil, token.instrumentData?.binData == nil, let binData = input.binData {
                token.instrumentData?.binData = binData
            }
            return .token(token, surcharge: input.surcharge)
        } catch let error as CheckoutError {
            throw error
        } catch {
            throw CheckoutError(.paymentFailed, "the card could not be tokenized", underlying: error)
        }
    }

    /// The form's "save this card": a success (created or resumed) saves the card.
    public var vaultOnSuccess: Bool { form.vaultOnSuccess }

    /// Nil: a card payment follows both challenges and redirects.
    public func unsupportedAction(_ action: RequiredAction) -> String? { nil }

    /// A challenge's result, or the `resumeToken` of a return URL whose `paymentId` is the pending one.
    public func resumeToken(from input: PaymentResumeInput,
                            for pending: PaymentFlowRules.PendingAction) throws -> String {
        switch (pending.action, input) {
        case (.challenge, .challengeResult(let result)):
            return result
        case (.redirect, .returnURL(let url)):
            let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            guard items.first(where: { $0.name == "paymentId" })?.value == pending.paymentId,
                  let token = items.first(where: { $0.name == "resumeToken" })?.value else {
                throw CheckoutError(.invalidReturn, "the return does not belong to this payment")
            }
            return token
        default:
            throw CheckoutError(.invalidReturn, "the return does not match the pending action")
        }
    }

    /// The form follows the flow's state.
    public func flowChanged(_ snapshot: PaymentFlowSnapshot) { form.flowChanged(snapshot) }

    /// "card form" with the masked number and the selected network; never card data.
    public var description: String { "card form \(form.summary)" }

    /// Only the published (masked) form state.
    public var customMirror: Mirror { Mirror(self, children: ["state": form.state], displayStyle: .struct) }
}
