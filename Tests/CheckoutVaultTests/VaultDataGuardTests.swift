import CheckoutCore
import CheckoutVault
import Testing

@Suite("VaultDataGuard")
struct VaultDataGuardTests {
    @Test("keys naming a security code are recognised", arguments: [
        ("cvv", true), ("CVV2", true), ("cvc", true), ("card_cvc", true), ("securityCode", true), ("security-code", true),
        ("cid", true), ("CSC", true), ("cardVerificationValue", true), ("cvn", true),
        ("id", false), ("cardholderName", false), ("network", false), ("analyticsId", false),
        ("accountFundingType", false), ("decide", false), ("first6Digits", false),
    ])
    func securityCodeKeys(_ key: String, _ expected: Bool) {
        #expect(VaultDataGuard.isSecurityCodeKey(key) == expected)
    }

    @Test("payloads with a security-code field or a card number are refused", arguments: [
        #"{"cvv":"123"}"#, #"{"method":{"paymentInstrumentData":{"CVC2":"123"}}}"#, #"[{"a":{"security_code":"1"}}]"#,
        #"{"note":"4111111111111111"}"#, #"{"note":"card 4111-1111-1111-1111"}"#,
    ])
    func refusedPayloads(_ json: String) {
        let error = #expect(throws: CheckoutError.self) { try VaultDataGuard.checkPayload(json) }
        #expect(error?.code == .sensitiveDataRejected)
        #expect(error.map { !$0.description.contains("4111111111111111") } ?? true)
    }

    @Test("ordinary payloads pass", arguments: [
        #"{"id":"a","paymentInstrumentData":{"first6Digits":"411111","last4Digits":"1111"}}"#, #"[]"#, #"{"n":1234567890123}"#,
    ])
    func acceptedPayloads(_ json: String) throws {
        try VaultDataGuard.checkPayload(json)
    }

    @Test("a payload that is not JSON is invalid data")
    func invalidJSON() {
        let error = #expect(throws: CheckoutError.self) { try VaultDataGuard.checkPayload("{not json") }
        #expect(error?.code == .invalidPaymentData)
    }
}
