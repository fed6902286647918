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
    private let daemon = Locked<DaemonHandle?>(nil)

    /// The running daemon. `@unchecked Sendable`: the pointer is only used under `daemon`'s lock
    /// (start, stop), and libmicrohttpd's daemon API is thread-safe for those calls.
    private struct DaemonHandle: @unchecked Sendable {
        let pointer: OpaquePointer
        let port: Int
        /// The PEM texts handed to libmicrohttpd, which keeps the pointers: freed after the stop.
        let tlsMemory: [UnsafeMutablePointer<CChar>]

        func stop() {
            MHD_stop_daemon(pointer)
            for memory in tlsMemory { free(memory) }
        }
    }

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
            var tlsMemory: [UnsafeMutablePointer<CChar>] = []
            if let tls = configuration.tls {
                guard cmhd_supports_tls() != 0 else { throw MicroHTTPServerError("this libmicrohttpd has no TLS support") }
                guard let certificate = FileManager.default.contents(atPath: tls.certificate).flatMap({ String(data: $0, encoding: .utf8) }),
                      let key = FileManager.default.contents(atPath: tls.privateKey).flatMap({ String(data: $0, encoding: .utf8) }) else {
                    throw MicroHTTPServerError("cannot read the TLS certificate or key")
                }
                tlsMemory = [strdup(certificate)!, strdup(key)!]
            }
            let context = Unmanaged.passUnretained(self).toOpaque()
            guard let pointer = cmhd_start(configuration.host, UInt16(clamping: configuration.port), UInt32(configuration.threads),
                                           tlsMemory.first, tlsMemory.last, UInt32(configuration.maxConnections),
                                           UInt32(configuration.maxConnections), UInt32(configuration.idleTimeoutSeconds),
                                           64 * 1024, microServerAccess, context, microServerRequestLine, context,
                                           microServerCompleted, context) else {
                for memory in tlsMemory { free(memory) }
                throw MicroHTTPServerError("cannot listen on \(configuration.host):\(configuration.port)"
                    + (configuration.tls == nil ? "" : " (or GnuTLS refused the certificate or key)"))
            }
            let handle = DaemonHandle(pointer: pointer, port: Int(cmhd_bound_port(pointer)), tlsMemory: tlsMemory)
            current = handle
            return handle.port
        }
    }

    /// Stops listening and closes every connection. Safe to call twice.
    public func stop() {
        let handle = daemon.withLock { current -> DaemonHandle? in
            defer { current = nil }
            return current
        }
        // Outside the lock: stopping joins the worker threads.
        handle?.stop()
    }

    deinit { stop() }
}

/// The server could not start.
public struct MicroHTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public let message: String
    /// Creates the error.
    public init(_ message: String) { self.message = message }
    public var description: String { "server cannot start: \(message)" }
}

// MARK: - libmicrohttpd callbacks

/// What one request accumulates between callbacks; touched by one libmicrohttpd call at a time.
private final class MicroRequestContext {
    let target: String
    var headChecked = false
    var body: [UInt8] = []
    var tooLarge = false

    init(target: String) { self.target = target }
}

private func microServerRequestLine(_ cls: UnsafeMutableRawPointer?, _ uri: UnsafePointer<CChar>?,
                                    _ connection: OpaquePointer?) -> UnsafeMutableRawPointer? {
    let target = uri.flatMap { String(validatingCString: $0) } ?? ""
    return Unmanaged.passRetained(MicroRequestContext(target: target)).toOpaque()
}

private func microServerAccess(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ url: UnsafePointer<CChar>?,
    _ method: UnsafePointer<CChar>?, _ version: UnsafePointer<CChar>?, _ uploadData: UnsafePointer<CChar>?,
    _ uploadDataSize: UnsafeMutablePointer<Int>?, _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
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
        if !context.tooLarge, context.body.count + count <= server.maxBodyBytes, let uploadData {
            uploadData.withMemoryRebound(to: UInt8.self, capacity: count) { bytes in
                context.body.append(contentsOf: UnsafeBufferPointer(start: bytes, count: count))
            }
        } else {
            context.tooLarge = true
            context.body = []
        }
        return cmhd_yes()
    }
    if context.tooLarge {
        return MicroResponseWriter.queue(.error(413, code: "payload-too-large", message: "the body is over the limit", close: true),
                                         on: connection)
    }
    let methodName = method.flatMap { String(validatingCString: $0) } ?? ""
    let (path, query) = MicroRequestTarget.split(context.target)
    let request = ServedRequest(method: methodName, path: path, query: query, headers: MicroRequestTarget.headers(connection),
                                body: context.body)
    let response = MicroHandlerBridge.answer(request, with: server.handler)
    return MicroResponseWriter.queue(response, on: connection)
}

private func microServerCompleted(_ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
                                  _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
                                  _ termination: MHD_RequestTerminationCode) {
    guard let requestContext, let pointer = requestContext.pointee else { return }
    Unmanaged<MicroRequestContext>.fromOpaque(pointer).release()
    requestContext.pointee = nil
}
