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
typealias TestFlow = CorePaymentFlow<TestSteps>

/// The steps of `TestHandler`: a success saves the instrument.
final class TestSteps: PaymentSteps {
    let context: PaymentFlowContext
    let cardNumber: @Sendable () -> String
    /// The last payment token this flow paid with (for tests that continue a payment by hand).
    let lastToken = Locked<PaymentMethodToken?>(nil)

    init(context: PaymentFlowContext, cardNumber: @escaping @Sendable () -> String) {
        self.context = context
        self.cardNumber = cardNumber
    }

    func tokenize(_ attempt: PaymentStepAttempt) async throws -> PaymentTokenization {
        let token: PaymentMethodToken
        if case .vaulted(let method, let cvv) = context.input {
            token = try await context.services.exchangeVaulted(VaultedExchangeRequest(vaultedToken: method.id, cvv: cvv))
        } else {
            let request = TokenizationRequest.card(
                CardDetails(number: cardNumber(), cvv: "123", expiryMonth: 12, expiryYear: 2030, network: .visa))
            token = try await context.services.tokenize(request)
        }
        lastToken.withLock { $0 = token }
        return .token(token, surcharge: 0)
    }

    /// True: the tests check what a success saves.
    var vaultOnSuccess: Bool { true }

    /// Accepts redirects and challenges alike (the tests complete them by hand).
    func unsupportedAction(_ action: RequiredAction) -> String? { nil }
}
