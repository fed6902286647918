import CheckoutPlatform

/// Why a webhook signature was refused: a stable `code` to decide on and a message safe to log
/// (it never holds the secret, the tag or the body).
public struct WebhookSignatureError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable failure kind; `description` is its kebab-case name.
    public typealias Code = ErrorCode<WebhookSignatureError>

    /// The failure kind.
    public let code: Code
    /// A one-line explanation.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}

extension ErrorCode where Domain == WebhookSignatureError {
    /// The header is missing or not `t=<unix seconds>,v1=<hex>`.
    public static let malformedHeader = Self("malformed-header")
    /// No tag in the header is the HMAC of this timestamp and body under this secret (a
    /// tampered body, another secret, a forged header).
    public static let badSignature = Self("bad-signature")
    /// The timestamp is further from now than the tolerance (a replayed delivery).
    public static let timestampOutsideTolerance = Self("timestamp-outside-tolerance")
    /// The secret is empty: nothing could be verified.
    public static let emptySecret = Self("empty-secret")
}
