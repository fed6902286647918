import CheckoutLocking
import Foundation

/// A small HTTP/1.1 (or HTTPS) server on libmicrohttpd for JSON services: the request is read
/// whole (body bounded by `maxBodyBytes`, else 413 and the connection closed), handed to an async
/// handler, and its answer written. `sandbox-psp` and the tests' webhook receivers run on it.
///
/// It runs on the package's one server core, `HTTPServerCore`, as `VaultServer` does (thread
/// pool, per-address and total connection limits, GnuTLS with TLS 1.2+, idle timeout), with none
/// of the vault's admission logic. Requests with both `Content-Length` and `Transfer-Encoding`
/// are refused (400 `ambiguous-framing`, connection closed) before the body is read.
///
/// Threads: libmicrohttpd's workers call in; each request's handler runs as a Swift task while
/// that worker (not a Swift task thread) waits for its answer, so a handler may `await` freely.
///
/// ```swift
/// let server = MicroHTTPServer(configuration: .init(port: 0)) { request in .json(200, Array("{}".utf8)) }
/// let port = try server.start()
/// ```
public final class MicroHTTPServer: Sendable {
    /// How the server listens and its bounds.
    public struct Configuration: Sendable {
        /// The address to bind (an IPv4 or IPv6 literal).
        public var host: String
        /// The port (0 picks a free one).
        public var port: Int
        /// libmicrohttpd's worker threads.
        public var threads: Int
        /// PEM files of the certificate chain and key: HTTPS when set.
        public var tls: (certificate: String, privateKey: String)?
        /// The largest request body accepted.
        public var maxBodyBytes: Int
        /// The most connections at once, and from one address.
        public var maxConnections: Int
        /// Seconds a connection may stay silent before it is closed.
        public var idleTimeoutSeconds: Int
        /// Connections one client address may hold (nil: `maxConnections`).
        public var maxConnectionsPerAddress: Int?
        /// Deadlines on each phase of a request and eviction of slow clients when the table fills (`ConnectionWatch`),
        /// for a server facing the internet; nil keeps libmicrohttpd's inactivity timeout only.
        public var slowClientLimits: ConnectionWatch.Limits?

        /// Creates a configuration; the defaults suit a loopback test service.
        public init(host: String = "127.0.0.1", port: Int = 0, threads: Int = 4,
                    tls: (certificate: String, privateKey: String)? = nil, maxBodyBytes: Int = 1024 * 1024,
                    maxConnections: Int = 256, idleTimeoutSeconds: Int = 30, maxConnectionsPerAddress: Int? = nil,
                    slowClientLimits: ConnectionWatch.Limits? = nil) {
            self.host = host
            self.port = port
            self.threads = max(1, threads)
            self.tls = tls
            self.maxBodyBytes = max(0, maxBodyBytes)
            self.maxConnections = max(1, maxConnections)
            self.idleTimeoutSeconds = max(1, idleTimeoutSeconds)
            self.maxConnectionsPerAddress = maxConnectionsPerAddress.map { min(max(1, $0), self.maxConnections) }
            self.slowClientLimits = slowClientLimits
        }
    }

    /// Computes an answer.
    public typealias Handler = @Sendable (ServedRequest) async -> ServedResponse

    private let configuration: Configuration
    private let exchanges: MicroExchangeHandler
    private let core = Locked<HTTPServerCore?>(nil)

    /// Creates a server; nothing listens until `start()`.
    public init(configuration: Configuration = Configuration(), handler: @escaping Handler) {
        self.configuration = configuration
        self.exchanges = MicroExchangeHandler(handler: handler, maxBodyBytes: configuration.maxBodyBytes)
    }

    /// The bound port once started.
    public var port: Int? { core.withLock { $0?.port } }

    /// Binds and serves; returns the bound port.
    @discardableResult
    public func start() throws(MicroHTTPServerError) -> Int {
        try core.withLock { current throws(MicroHTTPServerError) -> Int in
            if let current, let port = current.port { return port }
            var pem: TLSPEM?
            if let tls = configuration.tls {
                do throws(TLSPEMError) {
                    pem = try TLSPEM.read(certificate: tls.certificate, privateKey: tls.privateKey)
                } catch {
                    throw MicroHTTPServerError(error.message)
                }
            }
            let limits = configuration.slowClientLimits
            let watch = limits.map { limits in
                ConnectionWatch(limits: limits, isTLS: pem != nil, lateHeadAnswer: ServedResponse.error(
                    408, code: "request-timeout", message: "the request did not arrive in time", close: true).rawHTTP())
            }
            let started = HTTPServerCore(
                configuration: .init(host: configuration.host, port: configuration.port, threads: configuration.threads, tls: pem,
                                     connectionLimit: configuration.maxConnections,
                                     perAddressLimit: configuration.maxConnectionsPerAddress ?? configuration.maxConnections,
                                     idleTimeoutSeconds: configuration.idleTimeoutSeconds, connectionMemoryBytes: 64 * 1024,
                                     maxBodyBytes: configuration.maxBodyBytes, requestTimeout: limits?.requestTimeout),
                handler: exchanges, watch: watch)
            guard let port = started.start() else {
                throw MicroHTTPServerError("cannot listen on \(configuration.host):\(configuration.port)"
                    + (pem == nil ? "" : " (or GnuTLS refused the certificate or key)"))
            }
            current = started
            return port
        }
    }

    /// The connections open now (0 when not running): a request still arriving or being answered
    /// keeps its connection open, so a count of 1 seen from one's own request means no other.
    public var openConnections: Int { core.withLock { $0?.openConnections ?? 0 } }

    /// Stops listening and closes every connection. Safe to call twice.
    public func stop() {
        // Outside the lock: stopping joins the worker threads. A stopped core answers no port, so
        // a later `start()` makes a new one.
        core.withLock { $0 }?.stop()
    }

    deinit { stop() }
}

/// The server could not start: `message` says why (the address, the certificate or key).
public struct MicroHTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    init(_ message: String) { self.message = message }
    public var description: String { "server cannot start: \(message)" }
}

/// `MicroHTTPServer`'s answers on the core: refuses ambiguous framing and declared bodies over
/// the limit from the head, reads the rest whole and runs the async handler.
private final class MicroExchangeHandler: HTTPExchangeHandler {
    let handler: MicroHTTPServer.Handler
    let maxBodyBytes: Int

    init(handler: @escaping MicroHTTPServer.Handler, maxBodyBytes: Int) {
        self.handler = handler
        self.maxBodyBytes = maxBodyBytes
    }

    func head(_ head: ServedHead, of exchange: ServedExchange) -> HeadVerdict {
        let chunked = head.header("Transfer-Encoding") != nil, length = head.header("Content-Length")
        if chunked, length != nil {
            return .refuse(CoreAnswer(.error(400, code: "ambiguous-framing", message: "both Content-Length and Transfer-Encoding")))
        }
        let declared = length.flatMap { Int($0) } ?? 0
        if declared > maxBodyBytes {
            return .refuse(CoreAnswer(.error(413, code: "payload-too-large", message: "the body is over the limit")))
        }
        return .readBody(expectsBody: chunked || declared > 0, reserve: nil)
    }

    func answer(_ head: ServedHead, of exchange: ServedExchange) -> CoreAnswer {
        if exchange.body.tooLarge {
            return CoreAnswer(.error(413, code: "payload-too-large", message: "the body is over the limit", close: true))
        }
        let (path, query) = MicroRequestTarget.split(exchange.target ?? "")
        let request = ServedRequest(method: head.method ?? "", path: path, query: query, headers: head.fields,
                                    body: exchange.body.bytes, peerAddress: head.peerAddress)
        return CoreAnswer(MicroHandlerBridge.answer(request, with: handler))
    }

    func completed(_ exchange: ServedExchange) {}
}
