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

    func makeSteps(context: PaymentFlowContext) -> TestSteps { TestSteps(context: context, cardNumber: cardNumber) }
}

/// The flow of `TestHandler`: the core's step flow running `TestSteps`.
typealias TestFlow = PaymentStepFlow<TestSteps>

/// The steps of `TestHandler`. `reportTwice` makes it push the same success through the pipeline
/// twice, the way a misbehaving processor integration might.
final class TestSteps: PaymentSteps {
    let context: PaymentFlowContext
    let cardNumber: @Sendable () -> String
    let reportTwice = Locked(false)
    /// The last payment token this flow paid with (for tests that continue a payment by hand).
    let lastToken = Locked<PaymentMethodToken?>(nil)

    init(context: PaymentFlowContext, cardNumber: @escaping @Sendable () -> String) {
        self.context = context
        self.cardNumber = cardNumber
    }

    func tokenize(_ attempt: PaymentStepAttempt) async throws -> PaymentTokenization {
        if case .vaulted(let method, let cvv) = context.input {
            return .token(try await context.processor.exchangeVaulted(
                VaultedExchangeRequest(vaultedToken: method.id, cvv: cvv), session: context.session), surcharge: 0)
        }
        let request = TokenizationRequest.card(
            CardDetails(number: cardNumber(), cvv: "123", expiryMonth: 12, expiryYear: 2030, network: .visa))
        return .token(try await context.processor.tokenize(request, session: context.session), surcharge: 0)
    }

    func create(token: PaymentMethodToken, surcharge: Int, through pipeline: PaymentPipeline) async -> PaymentPipeline.Step {
        lastToken.withLock { $0 = token }
        let step = await pipeline.createPayment(token: token, surcharge: surcharge, vaultOnSuccess: true)
        if reportTwice.withLock({ $0 }), case .succeeded = step {
            // Same payment again: the sandbox answers from its idempotency record or fails; either
            // way the session must not deliver a second success.
            _ = await pipeline.createPayment(token: token)
        }
        return step
    }

    /// Accepts redirects and challenges alike (the tests complete them by hand).
    func unsupportedAction(_ action: RequiredAction) -> String? { nil }
}
