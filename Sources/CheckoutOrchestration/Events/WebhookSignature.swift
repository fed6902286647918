import CheckoutCrypto
import Foundation

/// The `CheckoutKit-Signature` header of a webhook delivery: when it was signed and the
/// HMAC-SHA-256 tag of that timestamp and the body.
///
/// Format: `t=<unix seconds>,v1=<64 lowercase hex digits>`. The signed message is the decimal
/// timestamp, a full stop, then the body bytes exactly as POSTed (`"1800000000." + body`), so a
/// tag cannot be replayed with another timestamp or another body. More than one `v1=` element may
/// appear (a sender signing with an old and a new secret while rotating); one match is enough.
/// Unknown elements (`v0=`, `v2=`) are ignored so the scheme can grow.
///
/// ```text
/// CheckoutKit-Signature: t=1800000000,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd
/// ```
public struct WebhookSignature: Sendable, Equatable {
    /// The header field that carries the signature.
    public static let headerName = "CheckoutKit-Signature"
    /// The header field that carries the event id (the receiver's de-duplication key).
    public static let eventIdHeaderName = "CheckoutKit-Event-Id"

    /// When the delivery was signed, in Unix seconds.
    public var timestamp: Int64
    /// The HMAC-SHA-256 tags found (`v1=`), 32 bytes each.
    public var tags: [[UInt8]]

    /// Creates a signature value.
    public init(timestamp: Int64, tags: [[UInt8]]) {
        self.timestamp = timestamp
        self.tags = tags
    }

    /// The header value, `t=<timestamp>,v1=<hex>` (one `v1` per tag).
    public var headerValue: String {
        (["t=\(timestamp)"] + tags.map { "v1=" + Hex.encode($0) }).joined(separator: ",")
    }

    /// Reads a header value; a value that is not the format above is `malformedHeader`.
    public init(headerValue: String) throws(WebhookSignatureError) {
        guard headerValue.utf8.count <= 4096 else { throw WebhookSignatureError(.malformedHeader, "the signature header is over 4096 bytes") }
        var timestamp: Int64?
        var tags: [[UInt8]] = []
        for element in headerValue.split(separator: ",", omittingEmptySubsequences: false) {
            let trimmed = element.trimmingCharacters(in: .whitespaces)
            guard let equals = trimmed.firstIndex(of: "=") else {
                throw WebhookSignatureError(.malformedHeader, "a signature element is not key=value")
            }
            let key = trimmed[..<equals]
            let value = trimmed[trimmed.index(after: equals)...]
            switch key {
            case "t":
                guard timestamp == nil, !value.isEmpty, value.utf8.count <= 18,
                      value.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let seconds = Int64(value) else {
                    throw WebhookSignatureError(.malformedHeader, "the signature needs exactly one t=<unix seconds>")
                }
                timestamp = seconds
            case "v1":
                guard let tag = Hex.decode(value), tag.count == HMAC.sha256ByteCount else {
                    throw WebhookSignatureError(.malformedHeader, "a v1 tag must be 64 hex digits")
                }
                tags.append(tag)
            default:
                continue
            }
        }
        guard let timestamp else { throw WebhookSignatureError(.malformedHeader, "the signature has no t=<unix seconds>") }
        guard !tags.isEmpty else { throw WebhookSignatureError(.malformedHeader, "the signature has no v1 tag") }
        self.init(timestamp: timestamp, tags: tags)
    }
}
