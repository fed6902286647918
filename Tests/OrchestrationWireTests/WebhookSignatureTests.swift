import CheckoutOrchestration
import Foundation
import Testing

/// The signature header: a vector computed outside the package (openssl), round trips, and every
/// refusal with its typed code.
@Suite struct WebhookSignatureTests {
    let secret = Array("whsec_test".utf8)
    let body = Array(#"{"id":"evt_1"}"#.utf8)
    let signedAt = Date(timeIntervalSince1970: 1_800_000_000)
    /// `printf '1800000000.{"id":"evt_1"}' | openssl dgst -sha256 -hmac whsec_test`
    let openSSLTag = "45705be2a45ab5acdd1395cc695e9e7073125385ec24194921c401dff44176f8"

    @Test func theHeaderMatchesOpenSSLsHMACOverTimestampDotBody() {
        let header = WebhookSigner(secret: secret).sign(body: body, at: signedAt).headerValue
        #expect(header == "t=1800000000,v1=\(openSSLTag)")
    }

    @Test func aGenuineDeliveryVerifiesWithinTheTolerance() throws {
        let header = "t=1800000000,v1=\(openSSLTag)"
        try WebhookSigner.verify(signature: header, body: body, secret: secret, tolerance: 300,
                                 now: signedAt.addingTimeInterval(299))
        try WebhookSigner.verify(signature: header, body: Data(body), secret: "whsec_test", tolerance: 300,
                                 now: signedAt.addingTimeInterval(-299))
    }

    @Test func aTamperedBodyIsRefused() {
        var tampered = body
        tampered[tampered.count - 3] ^= 0x01
        #expect(throws: WebhookSignatureError.self) {
            try WebhookSigner.verify(signature: "t=1800000000,v1=\(openSSLTag)", body: tampered, secret: secret, now: signedAt)
        }
        #expect(code { try WebhookSigner.verify(signature: "t=1800000000,v1=\(openSSLTag)", body: tampered, secret: secret, now: signedAt) }
                == .badSignature)
    }

    @Test func anotherTimestampWithTheSameTagIsRefused() {
        #expect(code { try WebhookSigner.verify(signature: "t=1800000001,v1=\(openSSLTag)", body: body, secret: secret, now: signedAt) }
                == .badSignature)
    }

    @Test func anotherSecretIsRefused() {
        #expect(code { try WebhookSigner.verify(signature: "t=1800000000,v1=\(openSSLTag)", body: body,
                                                secret: Array("whsec_other".utf8), now: signedAt) } == .badSignature)
    }

    @Test func anOldTimestampIsRefusedEvenWithAGenuineTag() {
        #expect(code { try WebhookSigner.verify(signature: "t=1800000000,v1=\(openSSLTag)", body: body, secret: secret,
                                                tolerance: 300, now: signedAt.addingTimeInterval(301)) } == .timestampOutsideTolerance)
        #expect(code { try WebhookSigner.verify(signature: "t=1800000000,v1=\(openSSLTag)", body: body, secret: secret,
                                                tolerance: 300, now: signedAt.addingTimeInterval(-301)) } == .timestampOutsideTolerance)
    }

    @Test func oneMatchingTagAmongSeveralIsEnough() throws {
        let header = "t=1800000000,v1=\(String(repeating: "0", count: 64)),v1=\(openSSLTag),v0=ignored"
        try WebhookSigner.verify(signature: header, body: body, secret: secret, now: signedAt)
    }

    static let malformed = ["", "t=1800000000", "v1=\(String(repeating: "a", count: 64))", "t=abc,v1=00",
                            "t=1800000000,v1=zz", "t=1800000000,v1=abcd", "t=1,t=2,v1=\(String(repeating: "a", count: 64))",
                            "garbage", "t=-5,v1=\(String(repeating: "a", count: 64))", String(repeating: "t=1,", count: 2000)]

    @Test(arguments: malformed) func aMalformedHeaderIsATypedError(_ header: String) {
        #expect(code { try WebhookSigner.verify(signature: header, body: body, secret: secret, now: signedAt) } == .malformedHeader)
    }

    @Test func anEmptySecretVerifiesNothing() {
        #expect(code { try WebhookSigner.verify(signature: "t=1800000000,v1=\(openSSLTag)", body: body, secret: [UInt8](),
                                                now: signedAt) } == .emptySecret)
    }

    private func code(_ body: () throws -> Void) -> WebhookSignatureError.Code? {
        do { try body() } catch let error as WebhookSignatureError { return error.code } catch { return nil }
        return nil
    }
}
