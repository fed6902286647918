import CheckoutKit
import HTTPTransport

/// Every line the CLI prints about an error passes through the core's redactor, so a card
/// number typed in the wrong place is never echoed back, and through the URL credential
/// redactor, so a password in a URL never is either.
enum PrintedTextRedactor {
    static func redact(_ text: String) -> String { URLCredentialRedactor.redact(PaymentDataRedactor.redact(text)) }
}
