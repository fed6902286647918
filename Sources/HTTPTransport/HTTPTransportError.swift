import CheckoutPlatform

/// Why an exchange of `HTTPTransport` failed: a stable `code` to decide on, and a message safe to
/// log (it never holds request or response content, only what libcurl says of the connection).
///
/// A struct with an extensible `Code` rather than an enum, so that a new failure kind does not
/// break a caller's `switch`. The TLS codes name the cause a person has to fix: a certificate
/// no trusted CA signed, a certificate for another host name, an expired certificate, a public
/// key that is not one of the pins, or a handshake that failed (cut, garbage, no common version).
public struct HTTPTransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable failure kind; `description` is its kebab-case name (`certificate-untrusted`).
    public typealias Code = ErrorCode<HTTPTransportError>

    /// The failure kind.
    public let code: Code
    /// A one-line explanation naming the cause, safe to log (never a URL's user or password).
    public let message: String

    /// Creates an error; any URL credential in `message` is hidden (`URLCredentialRedactor`).
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = URLCredentialRedactor.redact(message)
    }

    public var description: String { message }

    /// True for the TLS failures that only a change of certificate, trust store or pin can fix.
    public var isCertificateProblem: Bool {
        [.certificateUntrusted, .certificateHostMismatch, .certificateExpired, .pinMismatch].contains(code)
    }

    /// True when the client's own settings or request cannot work: nothing was sent, and only a
    /// change of configuration helps (a bad URL, plain HTTP to a remote host, an unreadable CA
    /// bundle or malformed pin, a header that would break its line).
    public var isLocalConfigurationProblem: Bool {
        [.invalidURL, .insecureHTTP, .invalidConfiguration, .invalidRequest].contains(code)
    }

    /// True when the answer arrived but breaks HTTP or the configured bounds.
    public var isMalformedResponse: Bool {
        [.malformedResponse, .headersTooLarge, .bodyTooLarge].contains(code)
    }
}

extension ErrorCode where Domain == HTTPTransportError {
    /// The URL cannot be used (not http or https, no host, a bad port, a bad path).
    public static let invalidURL = Self("invalid-url")
    /// Plain `http://` to a host that is neither loopback nor opted in by name.
    public static let insecureHTTP = Self("insecure-http")
    /// The request cannot be sent as is (a header value holding a line break, a bad method).
    public static let invalidRequest = Self("invalid-request")
    /// The TLS settings cannot be used (an unreadable CA bundle, a malformed pin).
    public static let invalidConfiguration = Self("invalid-configuration")
    /// The host name did not resolve.
    public static let resolveFailed = Self("resolve-failed")
    /// No address of the host accepted a connection.
    public static let connectFailed = Self("connect-failed")
    /// Connecting, an idle gap or the whole exchange took longer than its timeout.
    public static let timedOut = Self("timed-out")
    /// The calling task was cancelled.
    public static let cancelled = Self("cancelled")
    /// Writing the request failed.
    public static let sendFailed = Self("send-failed")
    /// The connection ended before any byte of a response.
    public static let closedBeforeResponse = Self("closed-before-response")
    /// Reading the response failed (reset, or ended inside the header block).
    public static let receiveFailed = Self("receive-failed")
    /// The connection ended inside the body.
    public static let truncatedBody = Self("truncated-body")
    /// The answer breaks HTTP.
    public static let malformedResponse = Self("malformed-response")
    /// The header block exceeds `HTTPTransportConfiguration.maxHeaderBytes` or `maxHeaderCount`.
    public static let headersTooLarge = Self("headers-too-large")
    /// The body exceeds `HTTPTransportConfiguration.maxBodyBytes`.
    public static let bodyTooLarge = Self("body-too-large")
    /// The server's certificate does not chain to a trusted CA (self-signed, unknown issuer).
    public static let certificateUntrusted = Self("certificate-untrusted")
    /// The server's certificate is for another host name.
    public static let certificateHostMismatch = Self("certificate-host-mismatch")
    /// The server's certificate has expired (or is not valid yet).
    public static let certificateExpired = Self("certificate-expired")
    /// The server's public key is not one of `TLSOptions.pinnedPublicKeys`.
    public static let pinMismatch = Self("pin-mismatch")
    /// The TLS handshake failed: cut mid-way, garbage instead of TLS, no common version.
    public static let tlsHandshakeFailed = Self("tls-handshake-failed")
}
