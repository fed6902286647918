import CMicroHTTPD
import CheckoutCore
import CheckoutLocking
import Foundation
import MicroHTTPServer

/// The remote vault service: HTTP/1.1 on libmicrohttpd in front of `VaultServerStorage`.
///
/// `start()` binds and serves on libmicrohttpd's internal thread pool; requests are handled
/// synchronously there (storage calls are synchronous and lock-guarded, nothing waits on async
/// work). `drain(timeout:)` makes new requests fail with 503 while in-flight ones finish, then
/// stops the daemon.
///
/// Before any body byte is read, each request's head is checked (`RequestHead`): over-long
/// request lines (414), over-large heads (431), ambiguous framing (400, 501) and declared bodies
/// over the limit (413) are answered at once with the JSON error format and the connection is
/// closed. So is every request the head alone settles (`VaultRequestHandler.admit`): a path that
/// is not the API's, a missing or wrong credential (401), a rate limit: the body is never read,
/// so unauthenticated uploads cost no memory, and each failed authentication closes its
/// connection and is logged (`VaultServerLog`, never with the credential). A request must arrive
/// within `limits.requestTimeoutSeconds` of its request line, and one address may hold at most
/// `limits.maxConnectionsPerIP` connections. While it runs, a background task (`ExpiryPurger`)
/// removes tombstones and op records past the retention for every customer. Example:
///
/// ```swift
/// let server = VaultServer(configuration: config, storage: try SQLiteVaultServerStorage(path: "vault.db"))
/// let port = try server.start()
/// ```
///
/// **Credentials.** Every `/v1` request carries `Authorization: Bearer <token>`, one of two kinds:
/// - A *merchant API key* (`apiKeys` in the configuration): a backend's key, reaching every
///   customer of its merchant. An entry may be `sha256:` and the key's lowercase hex SHA-256
///   instead of the key; a merchant may have several entries, which is how keys are rotated. The
///   presented key is hashed and compared with every entry in constant time.
/// - An *ephemeral customer key*: minted by a backend with `POST /v1/customers/{customer}/ephemeral-keys`
///   (201 `{"id", "secret", "customer", "expiresAt", "expiresAtEpochSeconds", "scope"}`; ttl 1 s
///   to 24 h, scope `read` or `read-write`), revoked with `DELETE /v1/ephemeral-keys/{id}`. Its
///   secret (`eks_…`) goes to one customer's device, which then reaches that customer's
///   instruments, changes, ops and deletes and nothing else (any other customer is 404, a write
///   with a read key 403 `read-only-key`, minting or revoking 403 `forbidden`). After expiry it
///   gets 401 `key-expired`, after revocation 401 `key-revoked`. Storage keeps only an HMAC-SHA-256
///   of the secret, keyed from the storage's own secret; the secret is shown once and never logged.
public final class VaultServer: Sendable {
    let configuration: VaultServerConfiguration
    let handler: VaultRequestHandler
    private let purger: ExpiryPurger
    private let state = Locked(RunState())
    /// The change-feed answers being streamed, counted until libmicrohttpd releases them.
    fileprivate let feedStreams = FeedStreamTally()
    /// Deadlines on each phase of every connection, and the reserve of slots for fresh clients.
    let connections: ConnectionWatch
    /// Whose address a request counts against (`trustedProxies`).
    fileprivate let addressResolver: ClientAddressResolver

    private struct RunState {
        var daemon: MHDDaemon?
        var port: Int?
        var draining = false
        var inFlight = 0
        var stopped = false
        /// One per `drain` waiting for the in-flight requests: signalled when the last one finishes.
        var drainWaiters: [DispatchSemaphore] = []
    }

    /// True once started with a certificate: the server speaks HTTPS.
    public var isTLS: Bool { configuration.tls != nil }

    /// Creates a server; nothing listens until `start()`. Timestamps (tombstones, key expiry, purges)
    /// come from `clock`; the background purge waits its intervals on `sleepClock`; refusals of
    /// credentials go to `log`.
    public init(configuration: VaultServerConfiguration, storage: any VaultServerStorage, clock: WallClock = .system,
                sleepClock: any Clock<Duration> = ContinuousClock(), log: VaultServerLog = .standardError) {
        self.configuration = configuration
        self.handler = VaultRequestHandler(configuration: configuration, storage: storage, clock: clock, log: log)
        let limits = configuration.limits
        // validate() refuses malformed networks before the server starts; none are trusted until then.
        self.addressResolver = (try? ClientAddressResolver(cidrs: configuration.trustedProxies ?? [])) ?? ClientAddressResolver()
        self.connections = ConnectionWatch(
            limits: .init(headTimeout: .seconds(limits.effectiveHeadTimeoutSeconds),
                          requestTimeout: .seconds(limits.effectiveRequestTimeoutSeconds),
                          idleTimeout: .seconds(limits.effectiveIdleConnectionTimeoutSeconds),
                          minBodyBytesPerSecond: limits.effectiveMinBodyBytesPerSecond, bodyRateGrace: .seconds(5),
                          softLimit: VaultServerConfiguration.maxConnections - VaultServerConfiguration.reservedConnections),
            isTLS: configuration.tls != nil,
            lateHeadAnswer: VaultRequestHandler.errorResponse(.requestTimeout).rawHTTP(close: true))
        let retention = Int64((configuration.tombstoneRetentionSeconds * 1000).rounded())
        let opRetention = Int64((configuration.effectiveOpRecordRetentionSeconds * 1000).rounded())
        self.purger = ExpiryPurger(service: VaultService(storage: storage, retentionMillis: retention, opRetentionMillis: opRetention),
                                   clock: clock, sleepClock: sleepClock,
                                   interval: ExpiryPurger.interval(retentionSeconds: configuration.effectiveOpRecordRetentionSeconds))
    }

    /// Change-feed answers libmicrohttpd has not released yet: 0 once every answer is over,
    /// however it ended (tests check that a client leaving mid-page releases its stream).
    var openFeedStreams: Int { feedStreams.open }

    /// The bound port once started.
    public var port: Int? { state.withLock { $0.port } }

    /// Binds to the configured host and port (0 picks a free port) and starts serving.
    /// Returns the bound port. Throws `VaultServerStartError` when the address cannot be used.
    @discardableResult
    public func start() throws(VaultServerStartError) -> Int {
        do throws(VaultServerConfigurationError) {
            try configuration.validate()
        } catch {
            throw VaultServerStartError(error.message)
        }
        return try state.withLock { state throws(VaultServerStartError) -> Int in
            if let port = state.port { return port }
            guard !state.stopped else { throw VaultServerStartError("the server was stopped; create a new one") }
            let context = Unmanaged.passUnretained(self).toOpaque()
            let pem = try configuration.tls.map { tls throws(VaultServerStartError) -> TLSPEM in
                do throws(TLSPEMError) {
                    return try TLSPEM.read(certificate: tls.certificate, privateKey: tls.privateKey)
                } catch {
                    throw VaultServerStartError(error.message)
                }
            }
            let limits = configuration.limits
            // libmicrohttpd's per-connection pool holds the head and read buffers (bodies are
            // copied out as they arrive): big enough for every head up to our limits and well
            // beyond, so that libmicrohttpd's own HTML refusals start far above them.
            guard let daemon = MHDDaemon.start(host: configuration.listen.host, port: configuration.listen.port,
                                               threads: configuration.threads, tls: pem,
                                               tlsPriorities: configuration.tls?.priorities,
                                               connectionLimit: VaultServerConfiguration.maxConnections,
                                               perAddressLimit: limits.effectiveMaxConnectionsPerIP,
                                               idleTimeoutSeconds: limits.effectiveIdleConnectionTimeoutSeconds,
                                               connectionMemoryBytes: RequestHead.connectionMemoryBytes, context: context,
                                               access: vaultServerAccessHandler, requestLine: vaultServerRequestLineHandler,
                                               completed: vaultServerCompletedHandler,
                                               connections: vaultServerConnectionHandler) else {
                if pem != nil {
                    throw VaultServerStartError("cannot serve HTTPS on \(configuration.listen.host):\(configuration.listen.port): "
                        + "the address is in use, or GnuTLS refused the certificate or key (not PEM, encrypted, or not a pair)"
                        + (configuration.tls?.priorities == nil ? "" : ", or the TLS priority string"))
                }
                throw VaultServerStartError("cannot listen on \(configuration.listen.host):\(configuration.listen.port)")
            }
            state.daemon = daemon
            state.port = daemon.port
            connections.start()
            purger.start()
            return daemon.port
        }
    }

    /// Makes new requests fail with 503 `draining`; requests already running continue.
    public func beginDraining() {
        state.withLock { $0.draining = true }
    }

    /// Drains: new requests get 503 until in-flight ones finish (or `timeout` passes), then
    /// stops. Returns true when every in-flight request finished in time. Blocks the caller (it
    /// waits for libmicrohttpd's threads, woken when the last request finishes).
    @discardableResult
    public func drain(timeout: Duration = .seconds(10)) -> Bool {
        let finishedRequests = DispatchSemaphore(value: 0)
        let waiting = state.withLock { state -> Bool in
            state.draining = true
            guard state.inFlight > 0 else { return false }
            state.drainWaiters.append(finishedRequests)
            return true
        }
        let finished = !waiting || finishedRequests.wait(timeout: .now() + max(timeout, .zero).inSeconds) == .success
        stop()
        return finished
    }

    /// Whether `stop()` (or a drain that ended) has begun: the tests wait for it instead of a fixed time.
    var hasBegunStopping: Bool { state.withLock { $0.stopped } }

    /// Stops listening and closes every connection at once. Safe to call twice.
    public func stop() {
        let daemon = state.withLock { state -> MHDDaemon? in
            defer { state.daemon = nil; state.stopped = true }
            return state.daemon
        }
        // Outside the lock: stopping joins the worker threads, which take the lock.
        daemon?.stop()
        connections.stop()
        purger.stop()
    }

    deinit {
        connections.stop()
        purger.stop()
        state.withLock { $0.daemon }?.stop()
    }

    // MARK: Called from libmicrohttpd threads

    /// Registers a new request; false when draining (the request is answered 503).
    func admitRequest() -> Bool {
        state.withLock { state in
            if state.draining { return false }
            state.inFlight += 1
            return true
        }
    }

    func finishRequest() {
        let drained = state.withLock { state -> [DispatchSemaphore] in
            state.inFlight -= 1
            guard state.inFlight == 0 else { return [] }
            defer { state.drainWaiters.removeAll() }
            return state.drainWaiters
        }
        for waiter in drained { waiter.signal() }
    }

    fileprivate func admit(method: String, target: String, authorization: String?, address: String)
        -> Result<VaultRequestHandler.Admission, VaultHTTPError> {
        handler.admit(method: method, target: target, authorization: authorization, address: address)
    }

    fileprivate func respond(_ request: VaultHTTPRequest) -> VaultHTTPResponse {
        handler.handle(request)
    }

    fileprivate var maxBodyBytes: Int { configuration.limits.maxBodyBytes }
    fileprivate var requestTimeout: Duration { .seconds(configuration.limits.effectiveRequestTimeoutSeconds) }
    fileprivate var idleTimeoutSeconds: Int { configuration.limits.effectiveIdleConnectionTimeoutSeconds }
}

/// The server could not start listening.
public struct VaultServerStartError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public let message: String

    /// Creates the error with a message naming what is wrong.
    public init(_ message: String) { self.message = message }

    /// A one-line explanation, safe to log.
    public var description: String { "vault server cannot start: \(message)" }
}

// MARK: - libmicrohttpd callbacks

/// What one request accumulates between callbacks. Made when its request line arrives, released
/// by the completion callback (libmicrohttpd calls it for every request it announced, even one it
/// refused itself); libmicrohttpd calls both for one request on the same connection, one call at
/// a time, so the class is never touched concurrently.
private final class RequestContext {
    /// When the request line arrived: the request deadline counts from here.
    let started: ContinuousClock.Instant
    /// The raw request target, as on the request line (the access handler only sees it decoded);
    /// nil when it is not UTF-8.
    let target: String?
    /// The raw request target's length.
    let targetBytes: Int
    /// Set by the first access-handler call, once the head has been checked.
    var headChecked = false
    var admitted = false
    /// What the head established; set when the head was admitted.
    var admission: VaultRequestHandler.Admission?
    var body = RequestBodyBuffer()
    /// The connection's inactivity timeout while the body arrives (nil: the daemon's idle timeout).
    var bodyTimeoutSeconds: Int?

    init(started: ContinuousClock.Instant, target: UnsafePointer<CChar>?) {
        self.started = started
        self.target = target.flatMap { String(validatingCString: $0) }
        self.targetBytes = target.map { strlen($0) } ?? 0
    }
}

/// MHD_OPTION_URI_LOG_CALLBACK: the request line has arrived; the returned context is the
/// request's `requestContext` from now on.
private func vaultServerRequestLineHandler(
    _ cls: UnsafeMutableRawPointer?, _ uri: UnsafePointer<CChar>?, _ connection: OpaquePointer?
) -> UnsafeMutableRawPointer? {
    let context = RequestContext(started: ContinuousClock.now, target: uri)
    if let cls, let connection {
        Unmanaged<VaultServer>.fromOpaque(cls).takeUnretainedValue().connections.requestLineArrived(connection, now: context.started)
    }
    return Unmanaged.passRetained(context).toOpaque()
}

private func vaultServerAccessHandler(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ url: UnsafePointer<CChar>?,
    _ method: UnsafePointer<CChar>?, _ version: UnsafePointer<CChar>?, _ uploadData: UnsafePointer<CChar>?,
    _ uploadDataSize: UnsafeMutablePointer<Int>?, _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let cls, let connection, let pointer = requestContext?.pointee else { return cmhd_no() }
    let server = Unmanaged<VaultServer>.fromOpaque(cls).takeUnretainedValue()
    let context = Unmanaged<RequestContext>.fromOpaque(pointer).takeUnretainedValue()
    if !context.headChecked {
        context.headChecked = true
        return checkHead(context, server: server, connection: connection, method: method, version: version)
    }
    if let uploadDataSize, uploadDataSize.pointee > 0 {
        let count = uploadDataSize.pointee
        uploadDataSize.pointee = 0
        // Past the deadline: close. libmicrohttpd 0.9.75 cannot queue an answer while a body is
        // arriving, so the client gets no 408, only the closed connection.
        guard let timeout = remainingSeconds(context, server: server) else { return cmhd_no() }
        if timeout != context.bodyTimeoutSeconds {
            context.bodyTimeoutSeconds = timeout
            _ = cmhd_set_timeout(connection, UInt32(timeout))
        }
        context.body.append(uploadData, count: count, limit: server.maxBodyBytes)
        server.connections.bodyArrived(connection, count: count)
        return cmhd_yes()
    }

    // The whole request has arrived: the connection goes back to the idle timeout.
    if context.bodyTimeoutSeconds != nil {
        _ = cmhd_set_timeout(connection, UInt32(server.idleTimeoutSeconds))
        server.connections.bodyComplete(connection)
    }
    guard let admission = context.admission else { return cmhd_no() }
    let response = server.respond(VaultHTTPRequest(admission: admission, body: context.body.bytes,
                                                   bodyTooLarge: context.body.tooLarge))
    return queue(response, on: connection, close: context.body.tooLarge, feedStreams: server.feedStreams)
}

/// The first call of a request, its head complete and no body byte read yet: admits it, or
/// answers at once. An answer queued now makes libmicrohttpd close the connection after it
/// without reading the body (what makes the refusals safe against smuggling); `Connection: close`
/// says so to the client.
private func checkHead(_ context: RequestContext, server: VaultServer, connection: OpaquePointer,
                       method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?) -> MHD_Result {
    // The head is in: from here an answer is being written (or a body awaited, set below), and no
    // head deadline may close the connection under it.
    server.connections.headArrived(connection, requestStarted: context.started, expectsBody: false)
    context.admitted = server.admitRequest()
    guard context.admitted else { return refuse(.draining, on: connection) }
    let requestLineBytes = (method.map { strlen($0) } ?? 0) + context.targetBytes + (version.map { strlen($0) } ?? 0) + 4
    let head = RequestHead(requestLineBytes: requestLineBytes, headBytes: cmhd_head_size(connection),
                           contentLengths: headerValues(connection, "Content-Length"),
                           transferEncodings: headerValues(connection, "Transfer-Encoding"),
                           fieldNames: MicroRequestTarget.headers(connection).map(\.name))
    let framing: RequestHead.Framing
    switch head.framing(maxBodyBytes: server.maxBodyBytes) {
    case .failure(let error): return refuse(error, on: connection)
    case .success(let checked): framing = checked
    }
    guard let timeout = remainingSeconds(context, server: server) else { return refuse(.requestTimeout, on: connection) }
    // Route, credential and limits, from the head alone: a refusal here never reads the body.
    guard let target = context.target, let method, let methodName = String(validatingCString: method) else {
        return refuse(.badRequest("invalid-request-line", "the request line is not valid UTF-8"), on: connection)
    }
    let authorization = cmhd_header(connection, "Authorization").flatMap { String(validatingCString: $0) }
    switch server.admit(method: methodName, target: target, authorization: authorization, address: clientAddress(connection, resolver: server.addressResolver)) {
    case .failure(let error): return refuse(error, on: connection)
    case .success(let admission): context.admission = admission
    }
    // A body where the route takes none is never read: refused from the head, connection closed.
    if framing.expectsBody, !(context.admission?.route.takesBody ?? false) { return refuse(.bodyNotAllowed, on: connection) }
    if framing.expectsBody {
        server.connections.headArrived(connection, requestStarted: context.started, expectsBody: true)
        // Until the body is in, a silent client is closed at the deadline, not the idle timeout.
        context.bodyTimeoutSeconds = timeout
        _ = cmhd_set_timeout(connection, UInt32(timeout))
        if case .length(let length) = framing { context.body.reserve(length) }
    }
    return cmhd_yes()
}

/// The address the request's limits count against (`ClientAddressResolver`: the peer's, or the
/// client a trusted proxy reports; an IPv6 client's /64 prefix), or `unknown`.
private func clientAddress(_ connection: OpaquePointer, resolver: ClientAddressResolver) -> String {
    var buffer = [CChar](repeating: 0, count: 64)
    guard cmhd_peer_address(connection, &buffer, buffer.count) != 0 else { return "unknown" }
    let peer = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return resolver.resolve(peer: peer) { headerValues(connection, $0) }
}

/// Whole seconds left before the request deadline (at least 1), or nil when it has passed.
private func remainingSeconds(_ context: RequestContext, server: VaultServer) -> Int? {
    let left = context.started.advanced(by: server.requestTimeout) - ContinuousClock.now
    guard left > .zero else { return nil }
    let parts = left.components
    return max(1, Int(parts.seconds) + (parts.attoseconds > 0 ? 1 : 0))
}

/// Every value of the header field `name`, in order.
private func headerValues(_ connection: OpaquePointer, _ name: String) -> [String] {
    let count = cmhd_header_count(connection, name)
    guard count > 0 else { return [] }
    return (0..<count).map { index in
        cmhd_header_at(connection, name, index).map { String(decoding: UnsafeRawBufferPointer(start: $0, count: strlen($0)), as: UTF8.self) } ?? ""
    }
}

private func refuse(_ error: VaultHTTPError, on connection: OpaquePointer) -> MHD_Result {
    queue(VaultRequestHandler.errorResponse(error), on: connection, close: true)
}

/// Queues `response` on the connection. A change-feed page larger than one block
/// (`feedBlockBytes`) is streamed: libmicrohttpd asks `vaultServerFeedReader` for it a block at a
/// time, with the exact `Content-Length` known up front, and releases the `FeedStream` through
/// `vaultServerFeedRelease` once, however the answer ends. A smaller page is written whole first.
private func queue(_ response: VaultHTTPResponse, on connection: OpaquePointer, close: Bool,
                   feedStreams: FeedStreamTally? = nil) -> MHD_Result {
    let created: OpaquePointer?
    switch response.body {
    case .bytes(let body):
        created = body.withUnsafeBytes { bytes in cmhd_response_copy(bytes.count, bytes.baseAddress) }
    case .feed(let encoder) where encoder.byteCount <= feedBlockBytes:
        // A page within one block is written whole into memory libmicrohttpd takes over: no
        // more than the block a stream would get, and the head and body leave in one send.
        guard let memory = malloc(encoder.byteCount) else { return cmhd_no() }
        let written = FeedStream(encoder).read(into: UnsafeMutableRawBufferPointer(start: memory, count: encoder.byteCount))
        guard written == encoder.byteCount else {
            free(memory)
            return cmhd_no()
        }
        created = cmhd_response_take(encoder.byteCount, memory)
        if created == nil { free(memory) }
    case .feed(let encoder):
        let stream = Unmanaged.passRetained(FeedStream(encoder, tally: feedStreams))
        created = cmhd_response_stream(UInt64(encoder.byteCount), feedBlockBytes, vaultServerFeedReader, stream.toOpaque(),
                                       vaultServerFeedRelease)
        // On failure libmicrohttpd took nothing over: the stream is ours to release.
        if created == nil { stream.release() }
    }
    guard let created else { return cmhd_no() }
    for (name, value) in response.headers { _ = MHD_add_response_header(created, name, value) }
    if close { _ = MHD_add_response_header(created, "Connection", "close") }
    let result = MHD_queue_response(connection, UInt32(response.status), created)
    MHD_destroy_response(created)
    return result
}

/// The most a streamed response asks of its reader at once: libmicrohttpd's buffer for it.
private let feedBlockBytes = 64 * 1024

/// MHD_ContentReaderCallback of a change-feed page: the next bytes, from `position` (always
/// what was written so far: the response is used once). With the size known, libmicrohttpd
/// stops asking at the end; a reader that ran dry before it, or a position out of step, ends
/// the answer with an error (the connection is closed, the client sees a short body).
private func vaultServerFeedReader(_ cls: UnsafeMutableRawPointer?, _ position: UInt64,
                                   _ buffer: UnsafeMutablePointer<CChar>?, _ max: Int) -> Int {
    guard let cls, let buffer else { return cmhd_reader_error() }
    let stream = Unmanaged<FeedStream>.fromOpaque(cls).takeUnretainedValue()
    guard position == UInt64(stream.written) else { return cmhd_reader_error() }
    let count = stream.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: max))
    return count > 0 ? count : cmhd_reader_error()
}

/// MHD_ContentReaderFreeCallback: libmicrohttpd is done with the response (sent, or the client
/// went away); releases the stream `queue` retained.
private func vaultServerFeedRelease(_ cls: UnsafeMutableRawPointer?) {
    guard let cls else { return }
    Unmanaged<FeedStream>.fromOpaque(cls).release()
}

private func vaultServerCompletedHandler(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ termination: MHD_RequestTerminationCode
) {
    guard let cls, let requestContext, let pointer = requestContext.pointee else { return }
    let context = Unmanaged<RequestContext>.fromOpaque(pointer).takeRetainedValue()
    requestContext.pointee = nil
    let server = Unmanaged<VaultServer>.fromOpaque(cls).takeUnretainedValue()
    if let connection { server.connections.requestCompleted(connection) }
    if context.admitted { server.finishRequest() }
}

/// MHD_NotifyConnectionCallback: a connection opened or is about to close.
private func vaultServerConnectionHandler(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
    _ code: MHD_ConnectionNotificationCode
) {
    guard let cls, let connection else { return }
    let server = Unmanaged<VaultServer>.fromOpaque(cls).takeUnretainedValue()
    if cmhd_connection_opened(code) != 0 {
        server.connections.opened(connection)
    } else {
        server.connections.closed(connection)
    }
}
