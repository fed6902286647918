import CheckoutCore
import Foundation
import Testing

@Suite struct RegistryTests {
    @Test func duplicateRegistrationIsATypedError() throws {
        let registry = PaymentMethodRegistry()
        try registry.register(TestHandler(type: .payPal, cardNumber: { "" }))
        let error = try #require(throws: CheckoutError.self) {
            try registry.register(TestHandler(type: .payPal, cardNumber: { "" }))
        }
        #expect(error.code == .duplicateHandler)
        #expect(registry.registeredTypes == [.payPal])
    }

    @Test func unregisterListAndResolve() throws {
        let registry = Fixtures.registry([.payPal, .klarna])
        #expect(registry.registeredTypes == [.payPal, .klarna])
        #expect(registry.handler(for: .klarna)?.type == .klarna)
        #expect(registry.unregister(.klarna))
        #expect(!registry.unregister(.klarna))
        #expect(registry.handler(for: .klarna) == nil)
        #expect(registry.registeredTypes == [.payPal])
    }

    @Test func factoriesServeTypesTheConfigurationNames() throws {
        let registry = PaymentMethodRegistry()
        try registry.registerFactory(named: "redirect") { TestHandler(type: $0, cardNumber: { "" }) }
        #expect(throws: CheckoutError.self) {
            try registry.registerFactory(named: "redirect") { TestHandler(type: $0, cardNumber: { "" }) }
        }
        let configuration = CheckoutConfiguration(paymentMethods: [
            .init(type: .klarna, handler: "redirect"), .init(type: .payPal),
        ])
        #expect(registry.resolve(.klarna, configuration: configuration)?.type == .klarna)
        #expect(registry.resolve(.payPal, configuration: configuration) == nil)
    }

    @Test func resolutionFiltersOrdersAndReports() throws {
        let registry = Fixtures.registry([.paymentCard, .payPal, .adyenIdeal])
        try registry.register(TestHandler(type: .klarna, cardNumber: { "" },
                                          availabilityResult: .unavailable(reason: "not in this country")))
        let token = Fixtures.token(methods: [
            AdvertisedPaymentMethod(id: "pm_card", type: .paymentCard),
            AdvertisedPaymentMethod(id: "pm_unknown", type: "SOMETHING_NEW"),
            AdvertisedPaymentMethod(id: "pm_paypal", type: .payPal, options: AdvertisedOptions(surcharge: 150)),
            AdvertisedPaymentMethod(id: "pm_klarna", type: .klarna),
            AdvertisedPaymentMethod(id: "pm_ideal", type: .adyenIdeal),
            AdvertisedPaymentMethod(id: "pm_sofort", type: .adyenSofort),
        ])
        let configuration = CheckoutConfiguration(paymentMethods: [
            .init(type: .payPal, display: .init(name: "PayPal account", buttonText: "Continue with PayPal")),
            .init(type: .paymentCard),
            .init(type: .adyenSofort, enabled: false),
            .init(type: .applePay),
        ])
        let session = ClientSession(token: token, paymentMethods: token.paymentMethods)
        let resolution = registry.resolveMethods(for: session, configuration: configuration)
        #expect(resolution.methods.map(\.method.type) == [.payPal, .paymentCard, .adyenIdeal])
        #expect(resolution.diagnostics == [
            .unknownMethod("SOMETHING_NEW"),
            .unavailable(.klarna, reason: "not in this country"),
            .disabledByConfiguration(.adyenSofort),
            .notAdvertised(.applePay),
        ])
        let paypal = resolution.methods[0].method
        #expect(paypal == CheckoutPaymentMethod(id: "pm_paypal", type: .payPal, name: "PayPal account", surcharge: 150,
                                                hasUnknownSurcharge: false, formattedSurcharge: "+ €1.50",
                                                display: PaymentMethodDisplay(name: "PayPal account")))
        #expect(paypal.buttonText == "Continue with PayPal")
    }

    @Test func networkSurchargesMakeTheSurchargeUnknown() {
        let registry = Fixtures.registry([.paymentCard])
        let token = Fixtures.token(methods: [
            AdvertisedPaymentMethod(id: "pm_card", type: .paymentCard,
                                    options: AdvertisedOptions(networkSurcharges: ["VISA": 100, "AMEX": 250])),
        ])
        let resolution = registry.resolveMethods(for: ClientSession(token: token, paymentMethods: token.paymentMethods),
                                                 configuration: CheckoutConfiguration(paymentMethods: []))
        let card = resolution.methods[0].method
        #expect(card.surcharge == nil)
        #expect(card.hasUnknownSurcharge)
        #expect(card.formattedSurcharge == nil)
    }
}
