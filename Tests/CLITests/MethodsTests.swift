import Foundation
import Testing

/// `checkout methods --json` on the embedded defaults.
@Suite struct MethodsTests {
    /// The types of `Config/checkout.json`, in file order, without the entries it disables.
    static func configuredTypes() throws -> [String] {
        let data = try Data(contentsOf: CLI.packageRoot.appendingPathComponent("Config/checkout.json"))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let entries = try #require(root["paymentMethods"] as? [[String: Any]])
        return entries.filter { ($0["enabled"] as? Bool) != false }.compactMap { $0["type"] as? String }
    }

    @Test func jsonListsTheMethodsInConfigurationOrderWithExactlyTheDocumentedKeys() async throws {
        let result = try await CLI.run(["methods", "--json"])
        #expect(result.status == 0, "\(result)")
        let methods = try result.array()
        #expect(methods.compactMap { $0["type"] as? String } == (try Self.configuredTypes()), "\(result)")
        #expect(methods.compactMap { $0["type"] as? String }
                == ["PAYMENT_CARD", "APPLE_PAY", "GOOGLE_PAY", "PAYPAL", "ADYEN_IDEAL", "KLARNA"])
        let keys: Set<String> = ["id", "type", "name", "surcharge", "hasUnknownSurcharge", "formattedSurcharge", "buttonText"]
        for method in methods {
            #expect(Set(method.keys) == keys, "\(method)")
        }
        let card = try #require(methods.first)
        #expect(card["id"] as? String == "pm_payment_card")
        #expect(card["name"] as? String == "Card")
        #expect(card["buttonText"] as? String == "Pay by card")
        #expect(card["hasUnknownSurcharge"] as? Bool == true)
        #expect(card["surcharge"] is NSNull)
        #expect(card["formattedSurcharge"] is NSNull)
        let payPal = try #require(methods.first { $0["type"] as? String == "PAYPAL" })
        #expect(payPal["surcharge"] as? Int == 100)
        #expect(payPal["formattedSurcharge"] as? String == "+ €1.00")
        #expect(payPal["hasUnknownSurcharge"] as? Bool == false)
        #expect(result.stderr.contains("ADYEN_SOFORT"), "the disabled method is explained on stderr\n\(result)")
    }

    @Test func textListsNumberedRows() async throws {
        let result = try await CLI.run(["methods"])
        #expect(result.status == 0, "\(result)")
        #expect(result.lines.count == 6, "\(result)")
        #expect(result.lines.first?.hasPrefix("1. Card [PAYMENT_CARD]") == true, "\(result)")
    }

    @Test func aConfigDirectoryThatDoesNotExistIsAFailure() async throws {
        let result = try await CLI.run(["methods", "--config-dir", "/nonexistent-config-dir"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.hasPrefix("error: invalid configuration:"), "\(result)")
    }
}
