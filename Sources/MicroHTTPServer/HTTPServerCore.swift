import CMicroHTTPD
import CheckoutLocking
import Foundation

/// The package's one HTTP server core on libmicrohttpd: it owns the daemon and its callbacks,
/// each request's state from its request line to its completion, the body's bounded buffer and
/// deadline, the connection watch, and the writing of answers (whole, or streamed a block at a
/// time). What a server answers is its `HTTPExchangeHandler`'s: `MicroHTTPServer` (sandbox-psp,
/// the tests' receivers) and `VaultServer` are both handlers on this core.
///
/// A request goes through the handler in three calls on libmicrohttpd's worker thread:
/// `head` once the head is in and before any body byte is read (a refusal there is answered at
/// once and the connection closed, so the body is never read), `answer` once the whole body is
/// in, and `completed` however the request ended (also when libmicrohttpd refused it itself).
package final class HTTPServerCore: Sendable {
    /// How the daemon listens and the bounds it enforces.
    package struct Configuration: Sendable {
        package var host: String
        package var port: Int
        package var threads: Int
        package var tls: TLSPEM?
        /// A GnuTLS priority string (nil: `TLSPEM.intermediateProfile`).
        package var tlsPriorities: String?
        package var connectionLimit: Int
        package var perAddressLimit: Int
        package var idleTimeoutSeconds: Int
        /// libmicrohttpd's memory per connection (the head and read buffers).
        package var connectionMemoryBytes: Int
        /// The largest body kept; beyond it the exchange's body is marked too large.
        package var maxBodyBytes: Int
        /// When set, a request must have arrived whole this long after its request line: its
        /// body is read under this deadline (and the connection closed past it).
        package var requestTimeout: Duration?

        package init(host: String, port: Int, threads: Int, tls: TLSPEM?, tlsPriorities: String? = nil,
                     connectionLimit: Int, perAddressLimit: Int, idleTimeoutSeconds: Int, connectionMemoryBytes: Int,
                     maxBodyBytes: Int, requestTimeout: Duration? = nil) {
            self.host = host
            self.port = port
            self.threads = threads
            self.tls = tls
            self.tlsPriorities = tlsPriorities
            self.connectionLimit = connectionLimit
            self.perAddressLimit = perAddressLimit
            self.idleTimeoutSeconds = idleTimeoutSeconds
            self.connectionMemoryBytes = connectionMemoryBytes
            self.maxBodyBytes = maxBodyBytes
            self.requestTimeout = requestTimeout
        }
    }

    let configuration: Configuration
    let handler: any HTTPExchangeHandler
    /// Deadlines on each phase of every connection, when the server keeps them.
    let watch: ConnectionWatch?
    private let daemon = Locked<MHDDaemon?>(nil)

    /// A core serving `handler`; nothing listens until `start()`.
    package init(configuration: Configuration, handler: any HTTPExchangeHandler, watch: ConnectionWatch? = nil) {
        self.configuration = configuration
        self.handler = handler
        self.watch = watch
    }

    /// Binds and serves; the bound port, or nil when libmicrohttpd refused (the address in use or
    /// not a literal, a certificate, key or priority string GnuTLS refuses). Starting twice
    /// returns the port already bound.
    package func start() -> Int? {
        daemon.withLock { current -> Int? in
            if let current { return current.port }
            let context = Unmanaged.passUnretained(self).toOpaque()
            guard let started = MHDDaemon.start(host: configuration.host, port: configuration.port, threads: configuration.threads,
                                                tls: configuration.tls, tlsPriorities: configuration.tlsPriorities,
                                                connectionLimit: configuration.connectionLimit,
                                                perAddressLimit: configuration.perAddressLimit,
                                                idleTimeoutSeconds: configuration.idleTimeoutSeconds,
                                                connectionMemoryBytes: configuration.connectionMemoryBytes, context: context,
                                                access: coreAccess, requestLine: coreRequestLine, completed: coreCompleted,
                                                connections: watch == nil ? nil : coreConnection) else { return nil }
            current = started
            watch?.start()
            return started.port
        }
    }

    /// The bound port while running.
    package var port: Int? { daemon.withLock { $0?.port } }

    /// The connections open now (0 when not running).
    package var openConnections: Int { daemon.withLock { $0?.openConnections ?? 0 } }

    /// Stops listening and closes every connection; safe to call twice.
    package func stop() {
        let running = daemon.withLock { current -> MHDDaemon? in
            defer { current = nil }
            return current
        }
        // Outside the lock: stopping joins the worker threads, whose callbacks may take it.
        running?.stop()
        watch?.stop()
    }

    deinit { stop() }

    /// Whole seconds left before `exchange`'s request deadline, rounded up: 0 once it has passed,
    /// nil when the core keeps no request deadline.
    func secondsLeft(_ exchange: ServedExchange) -> Int? {
        guard let timeout = configuration.requestTimeout else { return nil }
        let left = exchange.started.advanced(by: timeout) - ContinuousClock.now
        guard left > .zero else { return 0 }
        let parts = left.components
        return max(1, Int(parts.seconds) + (parts.attoseconds > 0 ? 1 : 0))
    }
}

/// What a server on `HTTPServerCore` answers. Called on libmicrohttpd's worker threads, one call
/// at a time per request; a handler may block there (the workers are not Swift's threads).
package protocol HTTPExchangeHandler: AnyObject, Sendable {
    /// The head is in and no body byte has been read: refuse (answered at once, connection
    /// closed) or read the body. The handler may keep what it learned in `exchange.state`.
    func head(_ head: ServedHead, of exchange: ServedExchange) -> HeadVerdict
    /// The whole request is in (`exchange.body`): the answer.
    func answer(_ head: ServedHead, of exchange: ServedExchange) -> CoreAnswer
    /// The request is over, however it ended.
    func completed(_ exchange: ServedExchange)
}

/// The handler's decision on a head.
package enum HeadVerdict {
    /// Answer at once and close the connection; the body is never read.
    case refuse(CoreAnswer)
    /// Read the body, if any follows (`expectsBody`), reserving `reserve` bytes for it.
    case readBody(expectsBody: Bool, reserve: Int?)
}

/// One request from its request line to its completion. Touched by one libmicrohttpd call at a
/// time, never concurrently.
package final class ServedExchange {
    /// When the request line arrived: the request deadline counts from here.
    package let started: ContinuousClock.Instant
    /// The raw request target, as on the request line; nil when it is not UTF-8.
    package let target: String?
    /// The raw request target's length in bytes.
    package let targetBytes: Int
    /// Whatever the handler keeps between its calls.
    package var state: AnyObject?
    /// The body so far (bounded by the core's `maxBodyBytes`).
    package internal(set) var body = RequestBodyBuffer()
    var headChecked = false
    /// The connection's inactivity timeout while the body arrives (nil: the daemon's idle timeout).
    var bodyTimeoutSeconds: Int?

    init(started: ContinuousClock.Instant, target: UnsafePointer<CChar>?) {
        self.started = started
        self.target = target.flatMap { String(validatingCString: $0) }
        self.targetBytes = target.map { strlen($0) } ?? 0
    }
}

/// A request's head during a call of `HTTPExchangeHandler`: valid only during that call.
package struct ServedHead {
    let connection: OpaquePointer
    let methodPointer: UnsafePointer<CChar>?
    let versionPointer: UnsafePointer<CChar>?
    let core: HTTPServerCore
    let exchange: ServedExchange

    /// The method token; nil when it is not UTF-8.
    package var method: String? { methodPointer.flatMap { String(validatingCString: $0) } }

    /// The request line's length, `METHOD SP target SP version CRLF`.
    package var requestLineBytes: Int {
        (methodPointer.map { strlen($0) } ?? 0) + exchange.targetBytes + (versionPointer.map { strlen($0) } ?? 0) + 4
    }

    /// The whole head's length as received.
    package var headBytes: Int { cmhd_head_size(connection) }

    /// The first value of the header field `name`, if any.
    package func header(_ name: String) -> String? {
        cmhd_header(connection, name).flatMap { String(validatingCString: $0) }
    }

    /// Every value of the header field `name`, in order.
    package func headerValues(_ name: String) -> [String] {
        let count = cmhd_header_count(connection, name)
        guard count > 0 else { return [] }
        return (0..<count).map { index in
            cmhd_header_at(connection, name, index).map {
                String(decoding: UnsafeRawBufferPointer(start: $0, count: strlen($0)), as: UTF8.self)
            } ?? ""
        }
    }

    /// Every header field, in order.
    package var fields: [(name: String, value: String)] { MicroRequestTarget.headers(connection) }

    /// The peer's address as text, nil when libmicrohttpd cannot say.
    package var peerAddress: String? {
        var buffer = [CChar](repeating: 0, count: 64)
        guard cmhd_peer_address(connection, &buffer, buffer.count) != 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// True once the request deadline has passed.
    package var isPastDeadline: Bool { core.secondsLeft(exchange) == 0 }
}

/// An answer the core writes: the body whole, or streamed a block at a time.
package struct CoreAnswer {
    package var status: Int
    package var headers: [(name: String, value: String)]
    package var body: Body
    /// Close the connection after this answer.
    package var close: Bool

    package enum Body {
        case bytes([UInt8])
        case stream(any ServedBodyStream)
    }

    package init(status: Int, headers: [(name: String, value: String)], body: Body, close: Bool) {
        self.status = status
        self.headers = headers
        self.body = body
        self.close = close
    }

    /// A handler's `ServedResponse`.
    package init(_ response: ServedResponse) {
        self.init(status: response.status, headers: response.headers, body: .bytes(response.body), close: response.close)
    }
}

/// A body produced as it is sent, its length known up front. Read in order, one call at a time.
package protocol ServedBodyStream: AnyObject {
    /// The body's length in bytes.
    var byteCount: Int { get }
    /// The bytes written so far.
    var written: Int { get }
    /// Writes the next bytes into `buffer`, as many as fit; returns how many (0 once finished).
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int
}

// MARK: - libmicrohttpd callbacks

/// The most a streamed answer asks of its stream at once (libmicrohttpd's buffer for it); a body
/// within one block is written whole.
private let streamBlockBytes = 64 * 1024

/// MHD_OPTION_URI_LOG_CALLBACK: the request line has arrived; the exchange lives until completion.
private let coreRequestLine: cmhd_uri_log_callback = { cls, uri, connection in
    let exchange = ServedExchange(started: ContinuousClock.now, target: uri)
    if let cls, let connection {
        Unmanaged<HTTPServerCore>.fromOpaque(cls).takeUnretainedValue().watch?.requestLineArrived(connection, now: exchange.started)
    }
    return Unmanaged.passRetained(exchange).toOpaque()
}

/// The access handler: the head, then body pieces, then the answer.
private let coreAccess: MHD_AccessHandlerCallback = { cls, connection, _, method, version, uploadData, uploadDataSize, requestContext in
    guard let cls, let connection, let pointer = requestContext?.pointee else { return cmhd_no() }
    let core = Unmanaged<HTTPServerCore>.fromOpaque(cls).takeUnretainedValue()
    let exchange = Unmanaged<ServedExchange>.fromOpaque(pointer).takeUnretainedValue()
    if !exchange.headChecked {
        exchange.headChecked = true
        // The head is in: from here an answer is being written (or a body awaited, set below),
        // and no head deadline may close the connection under it.
        core.watch?.headArrived(connection, requestStarted: exchange.started, expectsBody: false)
        let head = ServedHead(connection: connection, methodPointer: method, versionPointer: version, core: core, exchange: exchange)
        switch core.handler.head(head, of: exchange) {
        case .refuse(var answer):
            answer.close = true
            return coreQueue(answer, on: connection)
        case .readBody(let expectsBody, let reserve):
            if expectsBody {
                core.watch?.headArrived(connection, requestStarted: exchange.started, expectsBody: true)
                // Until the body is in, a silent client is closed at the deadline, not the idle timeout.
                if let timeout = core.secondsLeft(exchange), timeout > 0 {
                    exchange.bodyTimeoutSeconds = timeout
                    _ = cmhd_set_timeout(connection, UInt32(timeout))
                }
                if let reserve { exchange.body.reserve(reserve) }
            }
            return cmhd_yes()
        }
    }
    if let uploadDataSize, uploadDataSize.pointee > 0 {
        let count = uploadDataSize.pointee
        uploadDataSize.pointee = 0
        // Past the deadline: close. libmicrohttpd 0.9.75 cannot queue an answer while a body is
        // arriving, so the client gets no 408, only the closed connection.
        if let timeout = core.secondsLeft(exchange) {
            guard timeout > 0 else { return cmhd_no() }
            if timeout != exchange.bodyTimeoutSeconds {
                exchange.bodyTimeoutSeconds = timeout
                _ = cmhd_set_timeout(connection, UInt32(timeout))
            }
        }
        exchange.body.append(uploadData, count: count, limit: core.configuration.maxBodyBytes)
        core.watch?.bodyArrived(connection, count: count)
        return cmhd_yes()
    }
    // The whole request has arrived: the connection goes back to the idle timeout.
    if exchange.bodyTimeoutSeconds != nil {
        _ = cmhd_set_timeout(connection, UInt32(core.configuration.idleTimeoutSeconds))
        core.watch?.bodyComplete(connection)
    }
    let head = ServedHead(connection: connection, methodPointer: method, versionPointer: version, core: core, exchange: exchange)
    return coreQueue(core.handler.answer(head, of: exchange), on: connection)
}

/// The completion callback: tells the handler, releases the exchange.
private let coreCompleted: MHD_RequestCompletedCallback = { cls, connection, requestContext, _ in
    guard let cls, let requestContext, let pointer = requestContext.pointee else { return }
    let exchange = Unmanaged<ServedExchange>.fromOpaque(pointer).takeRetainedValue()
    requestContext.pointee = nil
    let core = Unmanaged<HTTPServerCore>.fromOpaque(cls).takeUnretainedValue()
    if let connection { core.watch?.requestCompleted(connection) }
    core.handler.completed(exchange)
}

/// MHD_NotifyConnectionCallback (only when the core keeps a watch): a connection opened or is
/// about to close.
private let coreConnection: MHD_NotifyConnectionCallback = { cls, connection, _, code in
    guard let cls, let connection, let watch = Unmanaged<HTTPServerCore>.fromOpaque(cls).takeUnretainedValue().watch else { return }
    if cmhd_connection_opened(code) != 0 {
        watch.opened(connection)
    } else {
        watch.closed(connection)
    }
}

/// Queues `answer` on the connection. A streamed body larger than one block is read by
/// libmicrohttpd a block at a time, with the exact `Content-Length` known up front, and released
/// once however the answer ends; a smaller one is written whole first, so the head and body
/// leave in one send.
private func coreQueue(_ answer: CoreAnswer, on connection: OpaquePointer) -> MHD_Result {
    let created: OpaquePointer?
    switch answer.body {
    case .bytes(let body):
        created = body.withUnsafeBytes { bytes in cmhd_response_copy(bytes.count, bytes.baseAddress) }
    case .stream(let stream) where stream.byteCount <= streamBlockBytes:
        guard let memory = malloc(max(1, stream.byteCount)) else { return cmhd_no() }
        let written = stream.read(into: UnsafeMutableRawBufferPointer(start: memory, count: stream.byteCount))
        guard written == stream.byteCount else {
            free(memory)
            return cmhd_no()
        }
        created = cmhd_response_take(stream.byteCount, memory)
        if created == nil { free(memory) }
    case .stream(let stream):
        let retained = Unmanaged.passRetained(StreamBox(stream))
        created = cmhd_response_stream(UInt64(stream.byteCount), streamBlockBytes, coreStreamReader, retained.toOpaque(),
                                       coreStreamRelease)
        // On failure libmicrohttpd took nothing over: the stream is ours to release.
        if created == nil { retained.release() }
    }
    guard let created else { return cmhd_no() }
    for (name, value) in answer.headers { _ = MHD_add_response_header(created, name, value) }
    if answer.close { _ = MHD_add_response_header(created, "Connection", "close") }
    let result = MHD_queue_response(connection, UInt32(answer.status), created)
    MHD_destroy_response(created)
    return result
}

/// A stream as libmicrohttpd's callbacks hold it (an existential needs a box to pass as a pointer).
private final class StreamBox {
    let stream: any ServedBodyStream
    init(_ stream: any ServedBodyStream) { self.stream = stream }
}

/// MHD_ContentReaderCallback: the next bytes, from `position` (always what was written so far:
/// the answer is used once). With the size known, libmicrohttpd stops asking at the end; a
/// stream that ran dry before it, or a position out of step, ends the answer with an error (the
/// connection is closed, the client sees a short body).
private let coreStreamReader: MHD_ContentReaderCallback = { cls, position, buffer, max in
    guard let cls, let buffer else { return cmhd_reader_error() }
    let stream = Unmanaged<StreamBox>.fromOpaque(cls).takeUnretainedValue().stream
    guard position == UInt64(stream.written) else { return cmhd_reader_error() }
    let count = stream.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: max))
    return count > 0 ? count : cmhd_reader_error()
}

/// MHD_ContentReaderFreeCallback: libmicrohttpd is done with the answer (sent, or the client
/// went away); releases the stream.
private let coreStreamRelease: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    Unmanaged<StreamBox>.fromOpaque(cls).release()
}
