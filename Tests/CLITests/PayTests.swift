import Foundation
import Testing

/// `checkout pay --json` against the sandbox on the embedded defaults.
@Suite struct PayTests {
    /// What the embedded configuration requires of a card payment besides the card.
    static let cardholder = ["--expiry", "12/39", "--cvv", "123", "--name", "Jo Doe",
                             "--billing", "postalCode=1011AB", "--billing", "countryCode=NL"]
    static let keys: Set<String> = ["outcome", "paymentId", "amount", "currency", "status", "error", "vaultedToken"]

    /// Exit 0 and `{"outcome": "success", "paymentId": "pay_…", "amount": 1000, "currency": "EUR", "status": "SUCCEEDED", "error": null, "vaultedToken": null}`.
    static func expectPlainSuccess(_ result: CLIResult) throws {
        #expect(result.status == 0, "\(result)")
        let report = try result.object()
        #expect(Set(report.keys) == keys, "\(report)")
        #expect(report["outcome"] as? String == "success")
        #expect(report["amount"] as? Int == 1000)
        #expect(report["currency"] as? String == "EUR")
        #expect((report["paymentId"] as? String)?.hasPrefix("pay_") == true, "\(report)")
        #expect(report["status"] as? String == "SUCCEEDED")
        #expect(report["error"] is NSNull)
        #expect(report["vaultedToken"] is NSNull)
    }

    @Test func cardSuccess() async throws {
        let result = try await CLI.run(["pay", "--method", "PAYMENT_CARD", "--number", "4242424242424242"]
                                       + Self.cardholder + ["--json"])
        try Self.expectPlainSuccess(result)
        #expect(!result.stdout.contains("4242424242424242") && !result.stderr.contains("4242424242424242"))
    }

    @Test func cardWithVaultReturnsTheToken() async throws {
        let result = try await CLI.run(["pay", "--method", "PAYMENT_CARD", "--number", "4242424242424242", "--vault"]
                                       + Self.cardholder + ["--json"])
        #expect(result.status == 0, "\(result)")
        let report = try result.object()
        #expect(report["outcome"] as? String == "success")
        #expect((report["vaultedToken"] as? String)?.hasPrefix("vt_") == true, "\(report)")
    }

    @Test func cardDecline() async throws {
        let result = try await CLI.run(["pay", "--method", "PAYMENT_CARD", "--number", "4000000000000002"]
                                       + Self.cardholder + ["--json"])
        #expect(result.status == 1, "\(result)")
        let report = try result.object()
        #expect(Set(report.keys) == Self.keys, "\(report)")
        #expect(report["outcome"] as? String == "failure")
        #expect(report["status"] as? String == "DECLINED")
        #expect(report["paymentId"] is NSNull)
        #expect(report["vaultedToken"] is NSNull)
        let error = try #require(report["error"] as? [String: Any], "\(report)")
        #expect(Set(error.keys) == ["code", "message"])
        #expect(error["code"] as? String == "payment-declined")
        #expect((error["message"] as? String)?.isEmpty == false)
        #expect(!result.stdout.contains("4000000000000002") && !result.stderr.contains("4000000000000002"))
    }

    @Test func missingCardholderDataIsAFailureNamingTheFields() async throws {
        let result = try await CLI.run(["pay", "--method", "PAYMENT_CARD", "--number", "4242424242424242",
                                        "--expiry", "12/39", "--cvv", "123", "--json"])
        #expect(result.status == 1, "\(result)")
        let report = try result.object()
        #expect(report["outcome"] as? String == "failure")
        let error = try #require(report["error"] as? [String: Any], "\(report)")
        #expect(error["code"] as? String == "invalid-payment-data")
        #expect((error["message"] as? String)?.contains("cardholderName: required") == true, "\(report)")
    }

    @Test("a type the configuration does not list is refused with the closest one it does, never paid by the redirect handler",
          arguments: [("PAYPALL", "did you mean 'PAYPAL'?"), ("KLARNE", "did you mean 'KLARNA'?"), ("CASH_ON_DELIVERY", nil)])
    func unknownMethodType(type: String, suggestion: String?) async throws {
        let result = try await CLI.run(["pay", "--method", type, "--json"])
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("unknown payment-method type '\(type)': the configuration lists PAYMENT_CARD, VAULTED"),
                "\(result)")
        if let suggestion { #expect(result.stderr.contains(suggestion), "\(result)") }
        #expect(!result.stdout.contains("success"))
    }

    @Test func payPalSuccess() async throws {
        let result = try await CLI.run(["pay", "--method", "PAYPAL", "--json"])
        try Self.expectPlainSuccess(result)
    }

    @Test func textOutputIsOneLine() async throws {
        let result = try await CLI.run(["pay", "--method", "PAYPAL"])
        #expect(result.status == 0, "\(result)")
        #expect(result.lines.count == 1, "\(result)")
        #expect(result.lines.first?.hasPrefix("success  pay_") == true, "\(result)")
        #expect(result.lines.first?.hasSuffix("  SUCCEEDED") == true, "\(result)")
    }

    struct Outcome: Sendable, CustomStringConvertible {
        let words: [String]
        let status: Int32
        let outcome: String
        let paymentStatus: String?
        let errorCode: String?
        var description: String { words.joined(separator: " ") }
    }

    static let outcomes: [Outcome] = [
        Outcome(words: ["--method", "VAULTED", "--number", "4242424242424242", "--cvv", "123"], status: 0,
                outcome: "success", paymentStatus: "SUCCEEDED", errorCode: nil),
        Outcome(words: ["--method", "VAULTED", "--number", "4242424242424242", "--cvv", "000"], status: 1,
                outcome: "failure", paymentStatus: "DECLINED", errorCode: "payment-declined"),
        Outcome(words: ["--method", "APPLE_PAY"], status: 0, outcome: "success", paymentStatus: "SUCCEEDED", errorCode: nil),
        Outcome(words: ["--method", "GOOGLE_PAY", "--wallet", "cancel"], status: 1, outcome: "dismissed",
                paymentStatus: nil, errorCode: nil),
        Outcome(words: ["--method", "ADYEN_IDEAL", "--amount", "1001"], status: 1, outcome: "failure",
                paymentStatus: "FAILED", errorCode: "payment-failed"),
        Outcome(words: ["--method", "ADYEN_SOFORT"], status: 1, outcome: "failure", paymentStatus: nil,
                errorCode: "payment-method-unavailable"),
    ]

    @Test(arguments: outcomes) func outcomeShapes(_ expected: Outcome) async throws {
        let result = try await CLI.run(["pay"] + expected.words + ["--json"])
        #expect(result.status == expected.status, "\(expected): \(result)")
        let report = try result.object()
        #expect(Set(report.keys) == Self.keys, "\(report)")
        #expect(report["outcome"] as? String == expected.outcome, "\(report)")
        #expect(report["status"] as? String == expected.paymentStatus, "\(report)")
        #expect((report["error"] as? [String: Any])?["code"] as? String == expected.errorCode, "\(report)")
        if expected.errorCode == nil { #expect(report["error"] is NSNull, "\(report)") }
        #expect(!result.stdout.contains("4242424242424242") && !result.stderr.contains("4242424242424242"))
    }
}
