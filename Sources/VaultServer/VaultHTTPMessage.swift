import MicroHTTPServer

/// An admitted request as the handler serves it, already read from the connection.
struct VaultHTTPRequest: Sendable {
    /// What the head established (`VaultRequestHandler.admit`): route and caller.
    var admission: VaultRequestHandler.Admission
    /// The query arguments, checked and decoded from the raw target (`RequestTarget.query`).
    var query: [String: String] { admission.query }
    var body: [UInt8]
    /// True when the body exceeded the limit and was discarded.
    var bodyTooLarge: Bool
}

/// A response ready to be written.
struct VaultHTTPResponse: Sendable {
    var status: Int
    var body: Body
    var headers: [(String, String)]

    /// What the body is made of.
    enum Body: Sendable {
        /// Bytes already built (every answer but the change feed's: all small).
        case bytes([UInt8])
        /// A change-feed page, sized but not built: written a buffer at a time as the connection
        /// drains (`FeedStream`).
        case feed(FeedEncoder)
    }
}

extension VaultHTTPResponse {
    /// The whole response as HTTP/1.1 bytes, for the few answers written to a socket directly
    /// (the 408 of a late head, which libmicrohttpd never saw complete). Only `.bytes` bodies.
    func rawHTTP(close: Bool) -> [UInt8] {
        guard case .bytes(let body) = body else { return [] }
        return ServedResponse(status: status, headers: headers.map { ($0.0, $0.1) }, body: body, close: close).rawHTTP()
    }
}
