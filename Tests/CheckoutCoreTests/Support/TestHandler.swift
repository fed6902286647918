import CheckoutCore
import CheckoutLocking
import Foundation

/// A minimal handler defined only in the tests: tokenizes a card number the test chooses (the
/// sandbox's magic numbers decide the outcome) and pays through the core pipeline.
struct TestHandler: PaymentMethodHandler {
    let type: PaymentMethodType
    let cardNumber: @Sendable () -> String
    var availabilityResult: PaymentMethodAvailability = .available

    var display: PaymentMethodDisplay {
        PaymentMethodDisplay(name: Self.names[type] ?? type.rawValue, buttonText: "Pay with \(type.rawValue)")
    }

    static let names: [PaymentMethodType: String] = [
        .paymentCard: "Card", .payPal: "PayPal", .adyenIdeal: "iDEAL", .klarna: "Klarna", .vaulted: "Saved card",
    ]

    func availability(in context: PaymentMethodContext) -> PaymentMethodAvailability { availabilityResult }

    func makeFlow(context: PaymentFlowContext) -> any PaymentFlow {
        TestFlow(context: context, cardNumber: cardNumber)
    }
}

/// The flow of `TestHandler`. `reportTwice` makes it push the same success through the pipeline
/// twice, the way a misbehaving processor integration might.
final class TestFlow: PaymentFlow {
    let context: PaymentFlowContext
    let cardNumber: @Sendable () -> String
    private let broadcaster = StateBroadcaster(PaymentFlowState.idle)
    let reportTwice = Locked(false)
    /// The last payment token this flow paid with (for tests that continue a payment by hand).
    let lastToken = Locked<PaymentMethodToken?>(nil)

    init(context: PaymentFlowContext, cardNumber: @escaping @Sendable () -> String) {
        self.context = context
        self.cardNumber = cardNumber
    }

    var paymentMethodType: PaymentMethodType { context.method.type }
    var flowState: PaymentFlowState { broadcaster.value }
    func flowStates() -> AsyncStream<PaymentFlowState> { broadcaster.stream() }

    func submit() async -> PaymentFlowState {
        broadcaster.send(.processing)
        let request: TokenizationRequest
        if case .vaulted(let method, let cvv) = context.input {
            do {
                let token = try await context.processor.exchangeVaulted(
                    VaultedExchangeRequest(vaultedToken: method.id, cvv: cvv), session: context.session)
                return await pay(token)
            } catch {
                return finish(context.pipeline.fail(error as? CheckoutError ?? CheckoutError(.paymentFailed, "x")))
            }
        }
        request = .card(CardDetails(number: cardNumber(), cvv: "123", expiryMonth: 12, expiryYear: 2030, network: .visa))
        do {
            let token = try await context.processor.tokenize(request, session: context.session)
            return await pay(token)
        } catch {
            return finish(context.pipeline.fail(error as? CheckoutError ?? CheckoutError(.paymentFailed, "x")))
        }
    }

    private func pay(_ token: PaymentMethodToken) async -> PaymentFlowState {
        lastToken.withLock { $0 = token }
        let step = await context.pipeline.createPayment(token: token, vaultOnSuccess: true)
        if reportTwice.withLock({ $0 }), case .succeeded = step {
            // Same payment again: the sandbox answers from its idempotency record or fails; either
            // way the session must not deliver a second success.
            _ = await context.pipeline.createPayment(token: token)
        }
        return finish(step)
    }

    private func finish(_ step: PaymentPipeline.Step) -> PaymentFlowState {
        let state: PaymentFlowState = switch step {
        case .succeeded(let result): .succeeded(result)
        case .failed(let error): .failed(error)
        case .actionRequired(_, .challenge(let id)): .awaitingChallenge(challengeId: id)
        case .actionRequired(_, .redirect(let url, _)): .awaitingRedirect(url)
        }
        broadcaster.send(state)
        return state
    }

    func cancel() async { broadcaster.send(.cancelled) }

    func resume(with input: PaymentResumeInput) async throws -> PaymentFlowState {
        throw CheckoutError(.invalidState, "nothing to resume")
    }
}
