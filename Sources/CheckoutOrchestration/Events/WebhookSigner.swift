import CheckoutCore
import CheckoutCrypto
import Foundation

/// Signs webhook deliveries and verifies them on the receiving side: HMAC-SHA-256 (libcrypto,
/// through `CheckoutCrypto`) over `"<unix seconds>." + body`, carried in the
/// `CheckoutKit-Signature` header (`WebhookSignature` gives the format).
///
/// Why the timestamp is signed: a receiver that refuses deliveries older than a tolerance
/// (five minutes by default) cannot be fed a recorded delivery again later, and the tag binds
/// the body so not a byte of it can change. Tags are compared in constant time.
///
/// ```swift
/// let signer = WebhookSigner(secret: Array(secretText.utf8))
/// let header = signer.sign(body: body, at: Date()).headerValue          // sender
/// try WebhookSigner.verify(signature: header, body: body, secret: secret, tolerance: 300)  // receiver
/// ```
public struct WebhookSigner: Sendable {
    private let secret: [UInt8]

    /// The default tolerance of `verify`: five minutes either side of now.
    public static let defaultTolerance: TimeInterval = 300

    /// A signer with the endpoint's shared secret (at least 1 byte; use 32 random bytes).
    public init(secret: [UInt8]) {
        self.secret = secret
    }

    /// The signature of `body` at `date` (whole seconds).
    public func sign(body: some Collection<UInt8>, at date: Date) -> WebhookSignature {
        let timestamp = Int64(date.timeIntervalSince1970.rounded(.down))
        return WebhookSignature(timestamp: timestamp, tags: [Self.tag(secret: secret, timestamp: timestamp, body: body)])
    }

    /// Checks a delivery: `signature` is the `CheckoutKit-Signature` header value as received,
    /// `body` the raw body bytes as received (before any JSON parsing), `secret` the endpoint's
    /// secret, `tolerance` how far (seconds) the signed time may be from `now`.
    ///
    /// - Throws: `WebhookSignatureError` with `malformed-header`, `bad-signature`,
    ///   `timestamp-outside-tolerance` or `empty-secret`. The tag is checked before the time, so
    ///   an old but genuine delivery is told apart from a forged one.
    public static func verify(signature: String, body: some Collection<UInt8>, secret: some Collection<UInt8>,
                              tolerance: TimeInterval = defaultTolerance, now: Date = WallClock.system.now) throws(WebhookSignatureError) {
        guard !secret.isEmpty else { throw WebhookSignatureError(.emptySecret, "no secret to verify with") }
        let parsed = try WebhookSignature(headerValue: signature)
        let expected = tag(secret: secret, timestamp: parsed.timestamp, body: body)
        var matched = false
        // Every tag is compared (no early exit), each in constant time.
        for candidate in parsed.tags where ConstantTime.equals(candidate, expected) { matched = true }
        guard matched else { throw WebhookSignatureError(.badSignature, "no v1 tag matches the body and timestamp") }
        let age = now.timeIntervalSince1970 - Double(parsed.timestamp)
        guard tolerance.isFinite, abs(age) <= max(0, tolerance) else {
            throw WebhookSignatureError(.timestampOutsideTolerance,
                                        "signed \(Int(age)) s from now; the tolerance is \(Int(max(0, tolerance))) s")
        }
    }

    /// `verify` with the body as `Data` and the secret as text (the common receiver's case).
    public static func verify(signature: String, body: Data, secret: String,
                              tolerance: TimeInterval = defaultTolerance, now: Date = WallClock.system.now) throws(WebhookSignatureError) {
        try verify(signature: signature, body: [UInt8](body), secret: Array(secret.utf8), tolerance: tolerance, now: now)
    }

    private static func tag(secret: some Collection<UInt8>, timestamp: Int64, body: some Collection<UInt8>) -> [UInt8] {
        var message = Array("\(timestamp).".utf8)
        message.append(contentsOf: body)
        return HMAC.sha256(key: secret, message: message)
    }
}
