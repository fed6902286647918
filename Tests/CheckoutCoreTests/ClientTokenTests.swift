import CheckoutCore
import Foundation
import Testing

@Suite struct ClientTokenTests {
    @Test func roundTripsThroughTheDocumentedFormat() throws {
        let token = Fixtures.token()
        let encoded = token.encoded()
        #expect(encoded.hasPrefix("ckt1."))
        #expect(!encoded.contains("="))
        let decoded = try ClientToken.decode(encoded, now: Fixtures.now)
        #expect(decoded == token)
    }

    static let malformed: [(String, String)] = [
        ("", "empty"),
        ("ckt2.eyJ9", "wrong version prefix"),
        ("ckt1.", "empty payload"),
        ("ckt1.!!!!", "not base64url"),
        ("ckt1." + Base64URL.encode(Data("not json".utf8)), "not JSON"),
        ("ckt1." + Base64URL.encode(Data("[]".utf8)), "JSON array"),
        ("ckt1." + Base64URL.encode(Data(#"{"merchantId":"m"}"#.utf8)), "missing fields"),
        ("ckt1." + Base64URL.encode(Data([0xFF, 0xFE, 0x00])), "invalid UTF-8"),
        ("ckt1." + String(repeating: "A", count: 70_000), "oversized"),
        ("ckt1.a", "impossible base64 length"),
    ]

    @Test(arguments: malformed)
    func malformedTokensAreTypedErrors(token: String, label: String) {
        #expect(throws: CheckoutError.self, "\(label)") {
            try ClientToken.decode(token, now: Fixtures.now)
        }
        do {
            _ = try ClientToken.decode(token, now: Fixtures.now)
        } catch let error as CheckoutError {
            #expect(error.code == .invalidClientToken, "\(label)")
            #expect(!error.message.contains(token) || token.count < 6, "\(label): the token must not be echoed")
        } catch {
            Issue.record("unexpected error type \(error)")
        }
    }

    static let invalidFields: [(String, String)] = [
        (#""amount": -1"#, "negative amount"),
        (#""currency": "euro""#, "bad currency"),
        (#""country": "NLD""#, "bad country"),
        (#""merchantId": """#, "empty merchant"),
        (#""amount": "12""#, "amount as string"),
        (#""paymentMethods": [{"id": "a", "type": "X"}, {"id": "a", "type": "Y"}]"#, "duplicated method id"),
    ]

    @Test(arguments: invalidFields)
    func invalidFieldValuesAreRejected(field: String, label: String) throws {
        var object: [String: String] = [
            "merchantId": #""m""#, "customerId": #""c""#, "amount": "100", "currency": #""EUR""#,
            "country": #""NL""#, "expiresAt": "1900000000", "paymentMethods": "[]",
        ]
        let key = String(field.split(separator: ":")[0].dropFirst().dropLast())
        object[key] = String(field.dropFirst(key.count + 4))
        let json = "{" + object.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ",") + "}"
        let token = "ckt1." + Base64URL.encode(Data(json.utf8))
        let error = try #require(throws: CheckoutError.self) { try ClientToken.decode(token, now: Fixtures.now) }
        #expect(error.code == .invalidClientToken, "\(label)")
    }

    @Test(arguments: [0, 1, 2, 3, 4, 5, 31, 32, 33, 255])
    func base64URLRoundTripsEveryLength(length: Int) throws {
        let data = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) })
        let encoded = Base64URL.encode(data)
        #expect(!encoded.contains("=") && !encoded.contains("+") && !encoded.contains("/"))
        #expect(encoded == data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: ""))
        #expect(Base64URL.decode(Substring(encoded)) == data)
        #expect(Base64URL.decode(Substring(encoded + String(repeating: "=", count: (4 - encoded.count % 4) % 4))) == data)
    }

    @Test func expiredTokenIsItsOwnError() throws {
        let token = Fixtures.token(expiresIn: -1).encoded()
        let error = try #require(throws: CheckoutError.self) { try ClientToken.decode(token, now: Fixtures.now) }
        #expect(error.code == .clientTokenExpired)
        // Exactly at expiry the token is no longer accepted.
        let atExpiry = Fixtures.token(expiresIn: 0).encoded()
        #expect(throws: CheckoutError.self) { try ClientToken.decode(atExpiry, now: Fixtures.now) }
        #expect(throws: Never.self) { try ClientToken.decode(Fixtures.token(expiresIn: 1).encoded(), now: Fixtures.now) }
    }

    @Test func advertisedOptionsDecodeAndSurchargeFallsBack() throws {
        var token = Fixtures.token()
        token.paymentMethods[0].options = AdvertisedOptions(surcharge: 50, networkSurcharges: ["AMEX": 150],
                                                            captureVaultedCardCvv: true)
        let decoded = try ClientToken.decode(token.encoded(), now: Fixtures.now)
        #expect(decoded.paymentMethods[0].options.surcharge(for: .amex) == 150)
        #expect(decoded.paymentMethods[0].options.surcharge(for: .visa) == 50)
        #expect(decoded.paymentMethods[0].options.captureVaultedCardCvv == true)
    }
}
