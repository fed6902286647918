import CheckoutCore
import CheckoutLocking

/// A payment method that exists only in this test target: a retailer's private-label store card.
///
/// It is written exactly as a third party would write one, against CheckoutCore's public API
/// only (no plugin module, no core change): it tokenizes the card through the processor and pays
/// through the pipeline it is handed.
struct StoreCardHandler: PaymentMethodHandler {
    static let storeCard: PaymentMethodType = "STORE_CARD"
    let type: PaymentMethodType = "STORE_CARD"
    let display = PaymentMethodDisplay(name: "Store card", buttonText: "Pay with your store card")

    func makeFlow(context: PaymentFlowContext) -> any PaymentFlow { StoreCardFlow(context: context) }
}

/// The store card's flow: `enter(_:)` the card, then `submit()`.
final class StoreCardFlow: PaymentFlow {
    let paymentMethodType: PaymentMethodType
    private let context: PaymentFlowContext
    private let card = Locked<CardDetails?>(nil)
    private let broadcaster = StateBroadcaster(PaymentFlowState.idle)

    init(context: PaymentFlowContext) {
        self.context = context
        paymentMethodType = context.method.type
    }

    var flowState: PaymentFlowState { broadcaster.value }
    func flowStates() -> AsyncStream<PaymentFlowState> { broadcaster.stream() }

    /// Sets the card for the next attempt.
    func enter(_ details: CardDetails) { card.withLock { $0 = details } }

    @discardableResult
    func submit() async -> PaymentFlowState {
        guard let details = card.withLock({ card -> CardDetails? in
            defer { card = nil }
            return card
        }) else {
            broadcaster.send(.failed(CheckoutError(.invalidPaymentData, "enter the store card first")))
            return flowState
        }
        broadcaster.send(.processing)
        let step: PaymentPipeline.Step
        do {
            var token = try await context.processor.tokenize(.card(details), session: context.session)
            token.paymentMethodType = paymentMethodType
            step = await context.pipeline.createPayment(token: token)
        } catch {
            step = context.pipeline.fail(error as? CheckoutError ?? CheckoutError(.paymentFailed, "tokenization failed"))
        }
        switch step {
        case .succeeded(let result): broadcaster.send(.succeeded(result))
        case .failed(let error): broadcaster.send(.failed(error))
        case .actionRequired(_, .challenge(let id)): broadcaster.send(.awaitingChallenge(challengeId: id))
        case .actionRequired(_, .redirect(let url, _)): broadcaster.send(.awaitingRedirect(url))
        }
        return flowState
    }

    func cancel() async {
        if case .succeeded = flowState { return }
        broadcaster.send(.cancelled)
    }

    @discardableResult
    func resume(with input: PaymentResumeInput) async throws -> PaymentFlowState {
        throw CheckoutError(.invalidReturn, "the store card has nothing to resume")
    }
}
