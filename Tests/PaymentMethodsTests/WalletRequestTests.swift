import CheckoutCore
import Foundation
import Testing
import WalletPaymentMethods

@Suite("Wallet requests")
struct WalletRequestTests {
    static let appleOptions: [String: JSONValue] = [
        "merchantIdentifier": .string("merchant.dev.checkoutkit.demo"),
        "merchantName": .string("CheckoutKit Demo Shop"),
        "lineItems": .array([
            .object(["label": .string("Subtotal"), "amount": .number(1500)]),
            .object(["label": .string("Shipping"), "amount": .number(499), "pending": .bool(true)]),
        ]),
    ]
    static let googleOptions: [String: JSONValue] = [
        "merchantId": .string("BCR2DN4TDEMO"), "merchantName": .string("CheckoutKit Demo Shop"),
        "gateway": .string("checkoutkit"), "gatewayMerchantId": .string("merchant_a"),
    ]

    static func session(amount: Int, currency: String, country: String, networks: [CardNetwork],
                        surcharge: Int? = nil) -> ClientSession {
        let methods = [AdvertisedPaymentMethod(id: "pm_apple", type: .applePay, options: .init(surcharge: surcharge)),
                       AdvertisedPaymentMethod(id: "pm_google", type: .googlePay, options: .init(surcharge: surcharge))]
        let token = ClientToken(merchantId: "m", customerId: "c", amount: amount, currency: currency, country: country,
                                allowedCardNetworks: networks, expiresAt: Date(timeIntervalSince1970: 4_102_444_800),
                                paymentMethods: methods)
        return ClientSession(token: token, paymentMethods: methods)
    }

    static func json(_ request: WalletPaymentRequest) throws -> String {
        String(decoding: try request.jsonData(), as: UTF8.self)
    }

    @Test func applePayInEurosExcludesAnUnsupportedNetwork() throws {
        let configuration = try ApplePayConfiguration(options: Self.appleOptions)
        let session = Self.session(amount: 1999, currency: "EUR", country: "NL",
                                   networks: [.visa, .mastercard, .dinersClub, .amex, .cartesBancaires])

        let request = try configuration.paymentRequest(for: session)

        #expect(request == ApplePayPaymentRequest(
            merchantIdentifier: "merchant.dev.checkoutkit.demo", countryCode: "NL", currencyCode: "EUR",
            supportedNetworks: ["visa", "masterCard", "amex", "cartesBancaires"], merchantCapabilities: ["supports3DS"],
            paymentSummaryItems: [
                ApplePaySummaryItem(label: "Subtotal", amount: "15.00"),
                ApplePaySummaryItem(label: "Shipping", amount: "4.99", type: "pending"),
                ApplePaySummaryItem(label: "CheckoutKit Demo Shop", amount: "19.99"),
            ]))
        #expect(request.total == ApplePaySummaryItem(label: "CheckoutKit Demo Shop", amount: "19.99"))
        #expect(try Self.json(.applePay(request)) == """
            {"countryCode":"NL","currencyCode":"EUR","merchantCapabilities":["supports3DS"],\
            "merchantIdentifier":"merchant.dev.checkoutkit.demo","paymentSummaryItems":[\
            {"amount":"15.00","label":"Subtotal","type":"final"},{"amount":"4.99","label":"Shipping","type":"pending"},\
            {"amount":"19.99","label":"CheckoutKit Demo Shop","type":"final"}],\
            "supportedNetworks":["visa","masterCard","amex","cartesBancaires"]}
            """)
        let decoded = try JSONDecoder().decode(ApplePayPaymentRequest.self, from: try WalletPaymentRequest.applePay(request).jsonData())
        #expect(decoded == request)
    }

    @Test func applePayInYenHasNoDecimalsAndAddsTheSurcharge() throws {
        let configuration = try ApplePayConfiguration(options: Self.appleOptions)
        let session = Self.session(amount: 1999, currency: "JPY", country: "JP", networks: [.jcb, .visa])

        let request = try configuration.paymentRequest(for: session, surcharge: 150)

        #expect(request.countryCode == "JP")
        #expect(request.currencyCode == "JPY")
        #expect(request.supportedNetworks == ["jcb", "visa"])
        #expect(request.paymentSummaryItems == [
            ApplePaySummaryItem(label: "Subtotal", amount: "1500"),
            ApplePaySummaryItem(label: "Shipping", amount: "499", type: "pending"),
            ApplePaySummaryItem(label: "Surcharge", amount: "150"),
            ApplePaySummaryItem(label: "CheckoutKit Demo Shop", amount: "2149"),
        ])
    }

    @Test func googlePayInEurosExcludesAnUnsupportedNetwork() throws {
        let configuration = try GooglePayConfiguration(options: Self.googleOptions)
        let session = Self.session(amount: 1999, currency: "EUR", country: "NL",
                                   networks: [.visa, .mastercard, .cartesBancaires, .amex])

        let request = try configuration.paymentRequest(for: session)

        #expect(try Self.json(.googlePay(request)) == """
            {"allowedPaymentMethods":[{"parameters":{"allowedAuthMethods":["PAN_ONLY","CRYPTOGRAM_3DS"],\
            "allowedCardNetworks":["VISA","MASTERCARD","AMEX"]},"tokenizationSpecification":{"parameters":\
            {"gateway":"checkoutkit","gatewayMerchantId":"merchant_a"},"type":"PAYMENT_GATEWAY"},"type":"CARD"}],\
            "apiVersion":2,"apiVersionMinor":0,"merchantInfo":{"merchantId":"BCR2DN4TDEMO",\
            "merchantName":"CheckoutKit Demo Shop"},"transactionInfo":{"countryCode":"NL","currencyCode":"EUR",\
            "totalPrice":"19.99","totalPriceStatus":"FINAL"}}
            """)
        let decoded = try JSONDecoder().decode(GooglePayPaymentDataRequest.self,
                                               from: try WalletPaymentRequest.googlePay(request).jsonData())
        #expect(decoded == request)
    }

    @Test func googlePayInYenWithDisplayItems() throws {
        var options = Self.googleOptions
        options["lineItems"] = Self.appleOptions["lineItems"]
        let configuration = try GooglePayConfiguration(options: options)
        let session = Self.session(amount: 1999, currency: "JPY", country: "JP", networks: [.jcb, .unionPay, .visa])

        let request = try configuration.paymentRequest(for: session)

        #expect(request.allowedPaymentMethods.map(\.parameters.allowedCardNetworks) == [["JCB", "VISA"]])
        #expect(request.transactionInfo == GooglePayPaymentDataRequest.TransactionInfo(
            totalPriceStatus: "FINAL", totalPrice: "1999", currencyCode: "JPY", countryCode: "JP",
            displayItems: [.init(label: "Subtotal", type: "LINE_ITEM", price: "1500"),
                           .init(label: "Shipping", type: "LINE_ITEM", price: "499", status: "PENDING")]))
    }

    @Test(arguments: [(1999, "KWD", "1.999"), (5, "EUR", "0.05"), (0, "EUR", "0.00"), (100_000, "JPY", "100000")])
    func totalsAreDecimalStringsInTheCurrencysMinorUnits(amount: Int, currency: String, expected: String) throws {
        let session = Self.session(amount: amount, currency: currency, country: "NL", networks: [])
        #expect(try ApplePayConfiguration(options: Self.appleOptions).paymentRequest(for: session).total?.amount == expected)
        #expect(try GooglePayConfiguration(options: Self.googleOptions).paymentRequest(for: session)
            .transactionInfo.totalPrice == expected)
    }

    @Test func anEmptyAllowedListMeansEveryNetworkTheWalletKnows() throws {
        let session = Self.session(amount: 100, currency: "EUR", country: "NL", networks: [])
        #expect(try ApplePayConfiguration(options: Self.appleOptions).paymentRequest(for: session).supportedNetworks
            == WalletNetworks.applePay.map(\.name))
        #expect(try GooglePayConfiguration(options: Self.googleOptions).paymentRequest(for: session)
            .allowedPaymentMethods[0].parameters.allowedCardNetworks
            == ["VISA", "MASTERCARD", "AMEX", "DISCOVER", "JCB", "INTERAC", "MAESTRO", "ELO"])
    }

    @Test(arguments: [
        ("merchantIdentifier", JSONValue?.none, "options.merchantIdentifier is required"),
        ("merchantName", JSONValue.string(" "), "options.merchantName must be a non-empty string"),
        ("lineItems", JSONValue.array([.object(["label": .string("Tax"), "amount": .number(1.5)])]),
         "options.lineItems[0].amount must be an integer amount in minor units"),
        ("lineItems", JSONValue.string("none"), "options.lineItems must be an array"),
    ])
    func invalidApplePayOptionsAreNamed(key: String, value: JSONValue?, message: String) {
        var options = Self.appleOptions
        options[key] = value
        #expect(throws: CheckoutError(.invalidConfiguration, message)) { try ApplePayConfiguration(options: options) }
    }

    @Test func sandboxTokensAreDeterministicPerRequest() async throws {
        let configuration = try ApplePayConfiguration(options: Self.appleOptions)
        let eur = WalletPaymentRequest.applePay(try configuration.paymentRequest(
            for: Self.session(amount: 1999, currency: "EUR", country: "NL", networks: [.visa])))
        let jpy = WalletPaymentRequest.applePay(try configuration.paymentRequest(
            for: Self.session(amount: 1999, currency: "JPY", country: "JP", networks: [.visa])))
        let authorizer = SandboxWalletAuthorizer()

        let first = try await authorizer.authorize(eur)
        let again = try await authorizer.authorize(eur)
        let other = try await authorizer.authorize(jpy)

        #expect(first == again)
        #expect(first != other)
        #expect(first.token.hasPrefix("sandbox_applepay_"))
        #expect(first.token.count == "sandbox_applepay_".count + 16)
        #expect(first.description == "WalletAuthorization(•••)")
        #expect(try SandboxWalletAuthorizer.token(for: eur) == first.token)
    }
}
