/// An error answer of the vault server: an HTTP status and the JSON `{"error": {"code", "message"}}`.
///
/// Codes are stable and documented in the OpenAPI file; messages never contain payment data or
/// API keys.
public struct VaultHTTPError: Error, Sendable, Equatable {
    /// The HTTP status.
    public let status: Int
    /// The stable machine-readable code.
    public let code: String
    /// A human-readable explanation.
    public let message: String
    /// Seconds after which a retry may succeed (429, 503).
    public let retryAfterSeconds: Int?
    /// The methods the path answers, sent as `Allow` (405).
    public let allowedMethods: [String]

    /// Creates an error answer.
    public init(status: Int, code: String, message: String, retryAfterSeconds: Int? = nil, allowedMethods: [String] = []) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfterSeconds = retryAfterSeconds
        self.allowedMethods = allowedMethods
    }

    static func badRequest(_ code: String, _ message: String) -> Self { .init(status: 400, code: code, message: message) }
    static let unauthorized = Self(status: 401, code: "unauthorized", message: "missing or invalid API key")
    static let keyExpired = Self(status: 401, code: "key-expired", message: "the ephemeral key has expired; ask for a new one")
    static let keyRevoked = Self(status: 401, code: "key-revoked", message: "the ephemeral key was revoked; ask for a new one")
    static let forbidden = Self(status: 403, code: "forbidden",
                                message: "an ephemeral key cannot mint or revoke keys; that needs a merchant API key")
    static let readOnlyKey = Self(status: 403, code: "read-only-key", message: "this ephemeral key may only read")
    static let notFound = Self(status: 404, code: "not-found", message: "no such resource")
    static func methodNotAllowed(_ route: VaultRoute) -> Self {
        .init(status: 405, code: "method-not-allowed", message: "method not allowed on this path", allowedMethods: route.methods)
    }
    static let opInFlight = Self(status: 409, code: "op-in-flight", message: "an op with the same id is being processed; retry later")
    static let cursorExpired = Self(status: 410, code: "cursor-expired",
                                    message: "the cursor is older than the tombstone retention; pull again without a cursor")
    static let bodyTooLarge = Self(status: 413, code: "payload-too-large", message: "the request body is larger than allowed")
    static let bodyNotAllowed = Self(status: 413, code: "body-not-allowed",
                                     message: "this path takes no request body; send none")
    static let requestTimeout = Self(status: 408, code: "request-timeout", message: "the request took too long to arrive")
    static let uriTooLong = Self(status: 414, code: "uri-too-long",
                                 message: "the request line is longer than \(RequestHead.maxRequestLineBytes) bytes")
    static let headersTooLarge = Self(status: 431, code: "headers-too-large",
                                      message: "the request head is larger than \(RequestHead.maxHeadBytes) bytes")
    static let ambiguousFraming = Self(status: 400, code: "ambiguous-framing",
                                       message: "a request must not carry both Content-Length and Transfer-Encoding")
    static let invalidHeaderField = Self(status: 400, code: "invalid-header-field",
                                         message: "a header field name must be a token, with no whitespace before its colon")
    static let invalidContentLength = Self(status: 400, code: "invalid-content-length",
                                           message: "Content-Length must appear once, as a decimal number")
    static let unsupportedTransferEncoding = Self(status: 501, code: "unsupported-transfer-encoding",
                                                  message: "the only transfer coding accepted is chunked")
    static let idempotencyKeyReused = Self(status: 422, code: "idempotency-key-reused",
                                           message: "an op id was reused with a different body")
    static func rateLimited(retryAfter: Int) -> Self {
        .init(status: 429, code: "rate-limited", message: "too many requests", retryAfterSeconds: retryAfter)
    }
    static func writeBudgetExhausted(retryAfter: Int) -> Self {
        .init(status: 429, code: "write-budget-exhausted",
              message: "this key or customer has written too many ops lately; nothing was applied, retry later",
              retryAfterSeconds: retryAfter)
    }
    static func authThrottled(retryAfter: Int) -> Self {
        .init(status: 429, code: "auth-throttled",
              message: "too many failed authentications from this address; retry later", retryAfterSeconds: retryAfter)
    }
    static let draining = Self(status: 503, code: "draining", message: "the server is shutting down", retryAfterSeconds: 1)
    static let storageUnavailable = Self(status: 503, code: "storage-unavailable",
                                         message: "the storage is busy or unreachable; retry later", retryAfterSeconds: 1)
    static let internalError = Self(status: 500, code: "internal", message: "internal server error")
}
