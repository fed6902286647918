import CardPaymentMethod
import CheckoutCore
import Foundation
import Testing

@Suite("Card form configuration and handler")
struct CardConfigurationTests {
    @Test("options are read into a configuration")
    func readsOptions() throws {
        let configuration = try CardFormConfiguration(options: [
            "cardholderName": .string("required"),
            "billingAddress": .object(["postalCode": .string("required"), "countryCode": .string("optional")]),
            "vaultOnSuccess": .bool(true),
        ])
        #expect(configuration == CardFormConfiguration(cardholderName: .required,
                                                       billingFields: [.postalCode: .required, .countryCode: .optional],
                                                       vaultOnSuccess: true))
        #expect(configuration.visibleFields == [.cardNumber, .expiryDate, .cvv, .cardholderName, .postalCode, .countryCode])
        #expect(try CardFormConfiguration(options: [:]) == CardFormConfiguration())
    }

    @Test("bad options are typed errors naming the option", arguments: [
        (["cardholderName": JSONValue.string("sometimes")], "options.cardholderName"),
        (["cardholderName": JSONValue.bool(true)], "options.cardholderName"),
        (["billingAddress": JSONValue.string("all")], "options.billingAddress"),
        (["billingAddress": JSONValue.object(["zip": .string("required")])], "options.billingAddress.zip"),
        (["billingAddress": JSONValue.object(["city": .number(1)])], "options.billingAddress.city"),
        (["vaultOnSuccess": JSONValue.string("yes")], "options.vaultOnSuccess"),
        (["cardholdername": JSONValue.string("required")], "options.cardholdername"),
    ])
    func rejectsBadOptions(_ options: [String: JSONValue], _ path: String) {
        do {
            _ = try CardFormConfiguration(options: options)
            Issue.record("expected an error for \(path)")
        } catch {
            #expect(error.code == .invalidConfiguration)
            #expect(error.message.contains(path))
        }
    }

    static func context(allowed: [CardNetwork], options: [String: JSONValue] = [:]) -> PaymentMethodContext {
        let token = ClientToken(merchantId: "m", customerId: "c", amount: 100, currency: "EUR", country: "NL",
                                allowedCardNetworks: allowed, expiresAt: Date(timeIntervalSince1970: 4_000_000_000),
                                paymentMethods: [AdvertisedPaymentMethod(id: "pm_card", type: .paymentCard)])
        let session = ClientSession(token: token, paymentMethods: token.paymentMethods)
        return PaymentMethodContext(session: session, advertised: token.paymentMethods[0],
                                    configuration: CheckoutConfiguration.Method(type: .paymentCard, options: options))
    }

    @Test("availability depends on the merchant's networks and valid options", arguments: [
        ([CardNetwork](), [String: JSONValue](), true),
        ([CardNetwork.visa], [String: JSONValue](), true),
        ([CardNetwork.cartesBancaires], [String: JSONValue](), true),
        ([CardNetwork("PLCC"), .dankort], [String: JSONValue](), true),
        ([CardNetwork("PLCC")], [String: JSONValue](), false),
        ([CardNetwork.visa], ["cardholderName": JSONValue.string("maybe")], false),
    ])
    func availability(_ allowed: [CardNetwork], _ options: [String: JSONValue], _ available: Bool) {
        let handler = CardPaymentHandler(table: Fixtures.table)
        let result = handler.availability(in: Self.context(allowed: allowed, options: options))
        #expect((result == .available) == available)
    }

    @Test("the handler's metadata")
    func metadata() {
        let handler = CardPaymentHandler(table: Fixtures.table)
        #expect(handler.type == .paymentCard)
        #expect(handler.display == PaymentMethodDisplay(name: "Card", buttonText: "Pay by card", iconName: "card"))
    }

    @Test("a session whose merchant accepts no known network does not offer cards")
    func unavailableInSession() async throws {
        await #expect(throws: CheckoutError.self) {
            _ = try await CardCheckout.make(allowed: ["PLCC"])
        }
    }
}
