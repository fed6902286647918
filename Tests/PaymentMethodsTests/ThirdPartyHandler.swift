import CheckoutCore
import CheckoutLocking

/// A payment method that exists only in this test target: a retailer's private-label store card.
///
/// It is written exactly as a third party would write one, against CheckoutCore's public API
/// only (no plugin module, no core change): it supplies one step, tokenizing the card through the
/// processor, and the core's `CorePaymentFlow` does the rest.
struct StoreCardHandler: PaymentMethodHandler {
    static let storeCard: PaymentMethodType = "STORE_CARD"
    let type: PaymentMethodType = "STORE_CARD"
    let display = PaymentMethodDisplay(name: "Store card", buttonText: "Pay with your store card")

    func makeSteps(context: PaymentFlowContext) -> StoreCardSteps { StoreCardSteps(context: context) }
}

/// The store card's flow: `enter(_:)` the card, then `submit()`. The core's step flow runs it, so
/// the attempt and outcome rules are the core's, not this test's.
typealias StoreCardFlow = CorePaymentFlow<StoreCardSteps>

extension CorePaymentFlow where Steps == StoreCardSteps {
    /// Sets the card for the next attempt.
    func enter(_ details: CardDetails) { steps.card.withLock { $0 = details } }
}

/// The store card's one step: tokenize the entered card (each card pays one attempt).
final class StoreCardSteps: PaymentSteps {
    let context: PaymentFlowContext
    let card = Locked<CardDetails?>(nil)

    init(context: PaymentFlowContext) { self.context = context }

    func tokenize(_ attempt: PaymentStepAttempt) async throws -> PaymentTokenization {
        guard let details = card.withLock({ card -> CardDetails? in
            defer { card = nil }
            return card
        }) else {
            return .invalidInput(CheckoutError(.invalidPaymentData, "enter the store card first"))
        }
        var token = try await context.services.tokenize(.card(details))
        token.paymentMethodType = context.method.type
        return .token(token, surcharge: 0)
    }
}
