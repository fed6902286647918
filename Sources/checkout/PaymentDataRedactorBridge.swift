import CheckoutKit

/// Every line the CLI prints about an error passes through the core's redactor, so a card
/// number typed in the wrong place is never echoed back.
enum PaymentDataRedactorBridge {
    static func redact(_ text: String) -> String { PaymentDataRedactor.redact(text) }
}
