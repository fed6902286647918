import CardPaymentMethod
import CheckoutCore
import CheckoutKit
@testable import CheckoutOrchestration
import Foundation
import Testing

/// The router is a `PaymentProcessor`, so a checkout session's card form pays through it unchanged.
@Suite struct SessionOverRouterTests {
    @Test("a CheckoutSession card payment goes through the router: fallback after a processor error, one charge")
    func sessionUsesRouter() async throws {
        let harness = try Harness(FallbackTests.threeProcessors(a: #"{"createPayment": "processor-error"}"#,
                                                                fallbackOn: #"["processor-error"]"#))
        let defaults = try CheckoutDefaults.embedded()
        let registry = try CheckoutKit.standardRegistry(cardNetworks: defaults.cardNetworks, binLookup: nil)
        let token = ClientToken(merchantId: "m_1", customerId: "c_1", amount: 1000, currency: "EUR", country: "NL",
                                allowedCardNetworks: [], expiresAt: Date().addingTimeInterval(3600),
                                paymentMethods: [AdvertisedPaymentMethod(id: "pm_card", type: .paymentCard)])
        let session = CheckoutSession(clientToken: token.encoded(), configuration: defaults.configuration, registry: registry,
                                      processor: harness.router, vault: InMemoryVaultProvider(),
                                      idempotencyKey: { "session-order-1" })
        await session.start()
        #expect(session.phase == .ready)
        let form = try session.cardForm()
        form.updateCardNumber("4242 4242 4242 4242")
        form.updateExpiryDate("12/30")
        form.updateCvv("123")
        form.updateCardholderName("Ada Lovelace")
        form.updateBillingField(.postalCode, "1011AB")
        form.updateBillingField(.countryCode, "NL")
        await form.settled()
        let state = await form.submit()
        guard case .succeeded(let result) = state else {
            Issue.record("expected success, got \(state)")
            return
        }
        let intent = try #require(try await harness.ledger.intent(stableKey: "session-order-1"))
        #expect(result.paymentId == intent.id)
        #expect(intent.attempts.map(\.processor) == ["psp-a", "psp-b"])
        #expect(harness.totalCharges == 1)
    }
}
