import CheckoutTestSupport
import CheckoutCore
import CheckoutVault
import Testing

/// What a `RemoteVaultError` says about itself is safe to log.
struct RemoteVaultErrorTests {
    @Test("a description never forms a card number, even from parts that are harmless alone", arguments: [
        // "503" + " " + "4242424244" reads as the 13-digit, Luhn-valid run 5034242424244.
        RemoteVaultError.httpStatus(status: 503, code: "4242424244", message: nil, retryAfterSeconds: nil),
        RemoteVaultError.httpStatus(status: 500, code: "internal", message: "4242 4242 4242 4242", retryAfterSeconds: nil),
        RemoteVaultError.httpStatus(status: 429, code: nil, message: "4242424242424242", retryAfterSeconds: 3),
        RemoteVaultError.malformedResponse(reason: "the results do not match the ops sent"),
    ])
    func descriptionNeverHoldsACardNumber(error: RemoteVaultError) {
        #expect(!ReferenceCardNumberDetector.containsCardNumber(error.description), "\(error.description)")
    }

    @Test("an ordinary status keeps its readable description")
    func readableDescription() {
        let error = RemoteVaultError.httpStatus(status: 429, code: "rate-limited", message: "too many requests", retryAfterSeconds: 1)
        #expect(error.description == "vault server answered HTTP 429 rate-limited: too many requests (retry after 1s)")
    }
}
