import CheckoutLocking
import Foundation

/// An HTTP client for one server, on libcurl: HTTPS with certificate verification, kept-alive
/// connections, HTTP/2 when the server offers it, proxies from the standard environment variables
/// (`https_proxy`, `no_proxy`, ...). Shared by any number of tasks.
///
/// Every transfer runs on the transport's own thread (libcurl's multi interface), so a waiting
/// task never blocks one of Swift's cooperative threads. At most
/// `HTTPTransportConfiguration.maxConnections` connections are open at once; further requests
/// queue inside libcurl. Cancelling the calling task ends its transfer at once with `cancelled`.
/// Every failure is a typed `HTTPTransportError` whose message names the cause (a certificate
/// not trusted, a host name mismatch, a timeout, ...).
///
/// Security by default: `https://` is verified against the system CA store (or
/// `TLSOptions.caBundle`) with TLS 1.2 at least; plain `http://` is refused unless the host is
/// loopback or `allowInsecureHTTP` is set. This module knows nothing of vaults or payments.
///
/// ```swift
/// let transport = HTTPTransport(baseURL: URL(string: "https://vault.example.com")!,
///                               configuration: .init(tls: .init(caBundle: "/etc/ssl/private-ca.pem")))
/// let response = try await transport.send(HTTPRequest(method: "GET", path: "/health"))
/// ```
public final class HTTPTransport: Sendable {
    /// The server's base URL; request paths are appended to it.
    public let baseURL: URL
    /// The bounds and TLS settings of every exchange.
    public let configuration: HTTPTransportConfiguration
    private let endpoint: Result<TransportEndpoint, HTTPTransportError>
    private let loop: CurlLoop
    private let nextId = Locked<UInt64>(0)

    /// Counters for tests and benchmarks.
    public struct Statistics: Sendable, Equatable {
        /// Exchanges that reached libcurl and finished (answered or failed).
        public var requests: Int
        /// Connections opened.
        public var connectionsOpened: Int
        /// Answered exchanges that opened no connection (they reused a kept-alive one).
        public var reusedConnections: Int
        /// TLS handshakes performed.
        public var tlsHandshakes: Int

        /// Creates counters (tests compare against expected values).
        public init(requests: Int, connectionsOpened: Int, reusedConnections: Int, tlsHandshakes: Int) {
            self.requests = requests
            self.connectionsOpened = connectionsOpened
            self.reusedConnections = reusedConnections
            self.tlsHandshakes = tlsHandshakes
        }
    }

    /// A transport for the server at `baseURL` (`https://host[:port][/base/path]`, or `http://`
    /// to loopback). A URL that cannot be used is reported by every `send` (and by `validate()`).
    public init(baseURL: URL, configuration: HTTPTransportConfiguration = HTTPTransportConfiguration()) {
        self.baseURL = baseURL
        self.configuration = configuration
        endpoint = Result { () throws(HTTPTransportError) -> TransportEndpoint in
            try TransportEndpoint(url: baseURL, allowInsecureHTTP: configuration.allowInsecureHTTP)
        }
        loop = CurlLoop(maxConnections: configuration.maxConnections)
    }

    deinit {
        loop.shutdown()
    }

    /// Throws the error every `send` would report for the base URL or the TLS settings.
    public func validate() throws(HTTPTransportError) {
        _ = try endpoint.get()
        _ = try configuration.tls.curlPinList()
    }

    /// The counters so far.
    public var statistics: Statistics {
        let counters = loop.counters.withLock { $0 }
        return Statistics(requests: counters.requests, connectionsOpened: counters.connectionsOpened,
                          reusedConnections: counters.reusedConnections, tlsHandshakes: counters.tlsHandshakes)
    }

    /// Sends `request` and returns the whole response, whatever its status; throws for
    /// everything that is not a complete response within the configured bounds.
    public func send(_ request: HTTPRequest) async throws(HTTPTransportError) -> HTTPResponse {
        let id = nextId.withLock { id -> UInt64 in
            id += 1
            return id
        }
        let transfer = try CurlTransfer(id: id, request: request, endpoint: endpoint.get(), configuration: configuration)
        let loop = self.loop
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CurlTransfer.Completion) in
                loop.submit(transfer, continuation)
            }
        } onCancel: {
            loop.cancel(id)
        }
        return try result.get()
    }
}
