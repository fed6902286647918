/// Why an HTTP exchange of `HTTPClient` or `HTTPClientConnection` failed.
///
/// Every way a server, the network or a bad request can fail an exchange has its own case, so
/// callers decide retry and reporting on a type, not on text. `HTTPRemoteVault` maps the cases to
/// `RemoteVaultError` (`remoteVaultError`): the connection failing or ending before a whole response
/// is `unreachable` (retryable), an answer that breaks HTTP is `malformedResponse`.
package enum HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The base URL cannot be used (not `http://`, no host, a bad port).
    case invalidURL(reason: String)
    /// The request cannot be written as HTTP/1.1 (e.g. a header value holding a line break).
    case invalidRequest(reason: String)
    /// The host name did not resolve (getaddrinfo's message).
    case resolveFailed(reason: String)
    /// No address of the host accepted a connection (refused, unreachable network, ...).
    case connectFailed(reason: String)
    /// The connection or a read or write took longer than the timeout.
    case timedOut
    /// The request was cancelled by its task.
    case cancelled
    /// Writing the request failed; `afterBytes` of it had been written.
    case sendFailed(reason: String, afterBytes: Int)
    /// The connection closed (or was reset) before any byte of the response arrived.
    case closedBeforeResponse
    /// The connection ended inside the status line or header block.
    case truncatedHead(receivedBytes: Int)
    /// The connection ended inside the body.
    case truncatedBody(receivedBytes: Int, expectedBytes: Int?)
    /// The status line is not `HTTP/1.x NNN reason`.
    case malformedStatusLine
    /// A header line breaks the grammar (no colon, bad name, control bytes, folded line, ...).
    case malformedHeader(reason: String)
    /// The header block exceeds the limit (bytes or count).
    case headersTooLarge(limit: Int)
    /// The message framing is unusable (bad or conflicting `Content-Length`, unknown
    /// `Transfer-Encoding`, bad chunk size line).
    case malformedFraming(reason: String)
    /// The body exceeds the limit.
    case bodyTooLarge(limit: Int)
    /// A receive failed with an error other than a timeout or a reset.
    case receiveFailed(reason: String)

    /// True when the connection was reused from the pool and ended before the server answered
    /// anything: the typical race with a server closing an idle keep-alive connection.
    var isStaleConnectionSymptom: Bool {
        switch self {
        case .closedBeforeResponse, .sendFailed: return true
        default: return false
        }
    }

    /// A one-line explanation, safe to log (never holds request or response content).
    package var description: String {
        switch self {
        case .invalidURL(let reason): return "invalid server URL: \(reason)"
        case .invalidRequest(let reason): return "invalid request: \(reason)"
        case .resolveFailed(let reason): return "cannot resolve the host: \(reason)"
        case .connectFailed(let reason): return "cannot connect: \(reason)"
        case .timedOut: return "the request timed out"
        case .cancelled: return "the request was cancelled"
        case .sendFailed(let reason, let bytes): return "sending the request failed after \(bytes) bytes: \(reason)"
        case .closedBeforeResponse: return "the connection closed before the response"
        case .truncatedHead(let received): return "the connection closed inside the response head (\(received) bytes)"
        case .truncatedBody(let received, let expected):
            return "the connection closed inside the response body (\(received) of \(expected.map(String.init) ?? "unknown") bytes)"
        case .malformedStatusLine: return "the response does not start with an HTTP/1.x status line"
        case .malformedHeader(let reason): return "malformed response header: \(reason)"
        case .headersTooLarge(let limit): return "the response header block exceeds \(limit)"
        case .malformedFraming(let reason): return "unusable response framing: \(reason)"
        case .bodyTooLarge(let limit): return "the response body exceeds \(limit) bytes"
        case .receiveFailed(let reason): return "receiving the response failed: \(reason)"
        }
    }

    /// The remote vault's view of the failure: connection-level failures and answers cut short
    /// are `unreachable` (a later attempt may succeed); answers that break HTTP are
    /// `malformedResponse`.
    package var remoteVaultError: RemoteVaultError {
        switch self {
        case .invalidURL, .invalidRequest, .resolveFailed, .connectFailed, .timedOut, .cancelled, .sendFailed,
             .closedBeforeResponse, .truncatedHead, .truncatedBody, .receiveFailed:
            return .unreachable(reason: description)
        case .malformedStatusLine, .malformedHeader, .headersTooLarge, .malformedFraming, .bodyTooLarge:
            return .malformedResponse(reason: description)
        }
    }
}
