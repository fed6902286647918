import CheckoutCore
import Foundation
import Testing

@Suite struct ConfigurationTests {
    @Test func decodesMethodsInOrderWithDefaults() throws {
        let json = #"""
        { "paymentMethods": [
            { "type": "PAYPAL", "handler": "redirect", "display": { "buttonText": "Pay with PayPal" } },
            { "type": "PAYMENT_CARD", "options": { "cardholderName": "required" } },
            { "type": "KLARNA", "enabled": false } ] }
        """#
        let configuration = try CheckoutConfiguration.decode(Data(json.utf8))
        #expect(configuration.paymentMethods.map(\.type) == [.payPal, .paymentCard, .klarna])
        #expect(configuration.paymentMethods.map(\.enabled) == [true, true, false])
        #expect(configuration.method(.payPal)?.handler == "redirect")
        #expect(configuration.method(.payPal)?.display?.buttonText == "Pay with PayPal")
        #expect(configuration.method(.paymentCard)?.options["cardholderName"] == .string("required"))
    }

    static let invalid: [(String, String)] = [
        ("", "not valid JSON"),
        ("{", "not valid JSON"),
        (#"{"paymentMethods": {}}"#, "paymentMethods: expected"),
        (#"{"paymentMethods": [{"enabled": true}]}"#, "paymentMethods[0].type: required key is missing"),
        (#"{"paymentMethods": [{"type": 3}]}"#, "paymentMethods[0].type: expected"),
        (#"{"paymentMethods": [{"type": "A", "enabled": "yes"}]}"#, "paymentMethods[0].enabled: expected"),
        (#"{"paymentMethods": [{"type": "A"}, {"type": "A"}]}"#, "listed twice"),
        (#"{"paymentMethods": [{"type": ""}]}"#, "is empty"),
    ]

    @Test(arguments: invalid)
    func invalidConfigurationNamesThePath(json: String, expected: String) throws {
        let error = try #require(throws: CheckoutError.self) { try CheckoutConfiguration.decode(Data(json.utf8)) }
        #expect(error.code == .invalidConfiguration)
        #expect(error.message.contains(expected), "\(error.message)")
    }

    @Test func missingFileIsATypedError() throws {
        let url = URL(fileURLWithPath: "/nonexistent/checkout.json")
        let error = try #require(throws: CheckoutError.self) { try CheckoutConfiguration.load(contentsOf: url) }
        #expect(error.code == .invalidConfiguration)
    }

    @Test func repositoryConfigurationIsValid() throws {
        let url = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Config/checkout.json")
        let configuration = try CheckoutConfiguration.load(contentsOf: url)
        #expect(configuration.paymentMethods.first?.type == .paymentCard)
    }
}
