import CMicroHTTPD
import CheckoutLocking
import Foundation

/// A small HTTP/1.1 (or HTTPS) server on libmicrohttpd for JSON services: the request is read
/// whole (body bounded by `maxBodyBytes`, else 413 and the connection closed), handed to an async
/// handler, and its answer written. `sandbox-psp` and the tests' webhook receivers run on it.
///
/// It uses the same `CMicroHTTPD` daemon wrapper as `VaultServer` (`cmhd_start`: thread pool,
/// per-address and total connection limits, GnuTLS with TLS 1.2+, idle timeout), with none of
/// the vault's admission logic. Requests with both `Content-Length` and `Transfer-Encoding`
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

        /// Creates a configuration; the defaults suit a loopback test service.
        public init(host: String = "127.0.0.1", port: Int = 0, threads: Int = 4,
                    tls: (certificate: String, privateKey: String)? = nil, maxBodyBytes: Int = 1024 * 1024,
                    maxConnections: Int = 256, idleTimeoutSeconds: Int = 30) {
            self.host = host
            self.port = port
            self.threads = max(1, threads)
            self.tls = tls
            self.maxBodyBytes = max(0, maxBodyBytes)
            self.maxConnections = max(1, maxConnections)
            self.idleTimeoutSeconds = max(1, idleTimeoutSeconds)
        }
    }

    /// Computes an answer.
    public typealias Handler = @Sendable (ServedRequest) async -> ServedResponse

    private let configuration: Configuration
    fileprivate let handler: Handler
    private let daemon = Locked<MHDDaemon?>(nil)

    fileprivate var maxBodyBytes: Int { configuration.maxBodyBytes }

    /// Creates a server; nothing listens until `start()`.
    public init(configuration: Configuration = Configuration(), handler: @escaping Handler) {
        self.configuration = configuration
        self.handler = handler
    }

    /// The bound port once started.
    public var port: Int? { daemon.withLock { $0?.port } }

    /// Binds and serves; returns the bound port.
    @discardableResult
    public func start() throws(MicroHTTPServerError) -> Int {
        try daemon.withLock { current throws(MicroHTTPServerError) -> Int in
            if let current { return current.port }
            var pem: TLSPEM?
            if let tls = configuration.tls {
                do throws(TLSPEMError) {
                    pem = try TLSPEM.read(certificate: tls.certificate, privateKey: tls.privateKey)
                } catch {
                    throw MicroHTTPServerError(error.message)
                }
            }
            guard let started = MHDDaemon.start(host: configuration.host, port: configuration.port, threads: configuration.threads,
                                                tls: pem, connectionLimit: configuration.maxConnections,
                                                perAddressLimit: configuration.maxConnections,
                                                idleTimeoutSeconds: configuration.idleTimeoutSeconds, connectionMemoryBytes: 64 * 1024,
                                                context: Unmanaged.passUnretained(self).toOpaque(), access: microServerAccess,
                                                requestLine: microServerRequestLine, completed: microServerCompleted) else {
                throw MicroHTTPServerError("cannot listen on \(configuration.host):\(configuration.port)"
                    + (pem == nil ? "" : " (or GnuTLS refused the certificate or key)"))
            }
            current = started
            return started.port
        }
    }

    /// The connections open now (0 when not running): a request still arriving or being answered
    /// keeps its connection open, so a count of 1 seen from one's own request means no other.
    public var openConnections: Int { daemon.withLock { $0?.openConnections ?? 0 } }

    /// Stops listening and closes every connection. Safe to call twice.
    public func stop() {
        let handle = daemon.withLock { current -> MHDDaemon? in
            defer { current = nil }
            return current
        }
        // Outside the lock: stopping joins the worker threads.
        handle?.stop()
    }

    deinit { stop() }
}

/// The server could not start: `message` says why (the address, the certificate or key).
public struct MicroHTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    init(_ message: String) { self.message = message }
    public var description: String { "server cannot start: \(message)" }
}

// MARK: - libmicrohttpd callbacks

/// What one request accumulates between callbacks; touched by one libmicrohttpd call at a time.
private final class MicroRequestContext {
    let target: String
    var headChecked = false
    var body = RequestBodyBuffer()

    init(target: String) { self.target = target }
}

/// MHD_OPTION_URI_LOG_CALLBACK: the request line has arrived; the context lives until completion.
private let microServerRequestLine: cmhd_uri_log_callback = { _, uri, _ in
    let target = uri.flatMap { String(validatingCString: $0) } ?? ""
    return Unmanaged.passRetained(MicroRequestContext(target: target)).toOpaque()
}

/// The access handler: head checks, then body pieces, then the answer.
private let microServerAccess: MHD_AccessHandlerCallback = { cls, connection, _, method, _, uploadData, uploadDataSize, requestContext in
    guard let cls, let connection, let pointer = requestContext?.pointee else { return cmhd_no() }
    let server = Unmanaged<MicroHTTPServer>.fromOpaque(cls).takeUnretainedValue()
    let context = Unmanaged<MicroRequestContext>.fromOpaque(pointer).takeUnretainedValue()
    if !context.headChecked {
        context.headChecked = true
        if cmhd_header(connection, "Transfer-Encoding") != nil, cmhd_header(connection, "Content-Length") != nil {
            return MicroResponseWriter.queue(.error(400, code: "ambiguous-framing",
                                                    message: "both Content-Length and Transfer-Encoding", close: true), on: connection)
        }
        if let declared = cmhd_header(connection, "Content-Length").flatMap({ Int(String(cString: $0)) }), declared > server.maxBodyBytes {
            return MicroResponseWriter.queue(.error(413, code: "payload-too-large", message: "the body is over the limit", close: true),
                                             on: connection)
        }
        return cmhd_yes()
    }
    if let uploadDataSize, uploadDataSize.pointee > 0 {
        let count = uploadDataSize.pointee
        uploadDataSize.pointee = 0
        context.body.append(uploadData, count: count, limit: server.maxBodyBytes)
        return cmhd_yes()
    }
    if context.body.tooLarge {
        return MicroResponseWriter.queue(.error(413, code: "payload-too-large", message: "the body is over the limit", close: true),
                                         on: connection)
    }
    let methodName = method.flatMap { String(validatingCString: $0) } ?? ""
    let (path, query) = MicroRequestTarget.split(context.target)
    let request = ServedRequest(method: methodName, path: path, query: query, headers: MicroRequestTarget.headers(connection),
                                body: context.body.bytes)
    let response = MicroHandlerBridge.answer(request, with: server.handler)
    return MicroResponseWriter.queue(response, on: connection)
}

/// The completion callback: releases the request's context.
private let microServerCompleted: MHD_RequestCompletedCallback = { _, _, requestContext, _ in
    guard let requestContext, let pointer = requestContext.pointee else { return }
    Unmanaged<MicroRequestContext>.fromOpaque(pointer).release()
    requestContext.pointee = nil
}
