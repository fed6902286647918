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
    /// Requests in flight, and the drain that waits for them.
    let gate = RequestGate()
    /// The change-feed answers being streamed, counted until libmicrohttpd releases them.
    fileprivate let feedStreams = FeedStreamTally()
    /// Deadlines on each phase of every connection, and the reserve of slots for fresh clients.
    let connections: ConnectionWatch
    /// What the server answers, on the package's one HTTP server core.
    private let exchanges: VaultExchangeHandler

    private struct RunState {
        var core: HTTPServerCore?
        var port: Int?
        var stopped = false
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
        let addressResolver = (try? ClientAddressResolver(cidrs: configuration.trustedProxies ?? [])) ?? ClientAddressResolver()
        self.connections = ConnectionWatch(
            limits: .init(headTimeout: .seconds(limits.effectiveHeadTimeoutSeconds),
                          requestTimeout: .seconds(limits.effectiveRequestTimeoutSeconds),
                          idleTimeout: .seconds(limits.effectiveIdleConnectionTimeoutSeconds),
                          minBodyBytesPerSecond: limits.effectiveMinBodyBytesPerSecond, bodyRateGrace: .seconds(5),
                          softLimit: VaultServerConfiguration.maxConnections - VaultServerConfiguration.reservedConnections),
            isTLS: configuration.tls != nil,
            lateHeadAnswer: VaultRequestHandler.errorResponse(.requestTimeout).rawHTTP(close: true))
        self.exchanges = VaultExchangeHandler(handler: handler, gate: gate, addressResolver: addressResolver,
                                              feedStreams: feedStreams, maxBodyBytes: limits.maxBodyBytes)
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
            let core = HTTPServerCore(
                configuration: .init(host: configuration.listen.host, port: configuration.listen.port,
                                     threads: configuration.threads, tls: pem, tlsPriorities: configuration.tls?.priorities,
                                     connectionLimit: VaultServerConfiguration.maxConnections,
                                     perAddressLimit: limits.effectiveMaxConnectionsPerIP,
                                     idleTimeoutSeconds: limits.effectiveIdleConnectionTimeoutSeconds,
                                     connectionMemoryBytes: RequestHead.connectionMemoryBytes, maxBodyBytes: limits.maxBodyBytes,
                                     requestTimeout: .seconds(limits.effectiveRequestTimeoutSeconds)),
                handler: exchanges, watch: connections)
            guard let port = core.start() else {
                if pem != nil {
                    throw VaultServerStartError("cannot serve HTTPS on \(configuration.listen.host):\(configuration.listen.port): "
                        + "the address is in use, or GnuTLS refused the certificate or key (not PEM, encrypted, or not a pair)"
                        + (configuration.tls?.priorities == nil ? "" : ", or the TLS priority string"))
                }
                throw VaultServerStartError("cannot listen on \(configuration.listen.host):\(configuration.listen.port)")
            }
            state.core = core
            state.port = port
            purger.start()
            return port
        }
    }

    /// Makes new requests fail with 503 `draining`; requests already running continue.
    public func beginDraining() {
        gate.beginDraining()
    }

    /// Drains: new requests get 503 until in-flight ones finish (or `timeout` passes), then
    /// stops. Returns true when every in-flight request finished in time. Blocks the caller (it
    /// waits for libmicrohttpd's threads, woken when the last request finishes).
    @discardableResult
    public func drain(timeout: Duration = .seconds(10)) -> Bool {
        let finished = gate.drain(timeout: timeout)
        stop()
        return finished
    }

    /// Whether `stop()` (or a drain that ended) has begun: the tests wait for it instead of a fixed time.
    var hasBegunStopping: Bool { state.withLock { $0.stopped } }

    /// Stops listening and closes every connection at once. Safe to call twice.
    public func stop() {
        let core = state.withLock { state -> HTTPServerCore? in
            defer { state.core = nil; state.stopped = true }
            return state.core
        }
        // Outside the lock: stopping joins the worker threads.
        core?.stop()
        connections.stop()
        purger.stop()
    }

    deinit {
        connections.stop()
        purger.stop()
        state.withLock { $0.core }?.stop()
    }
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

/// The requests in flight, and the drains waiting for them to finish.
final class RequestGate: Sendable {
    private struct State {
        var draining = false
        var inFlight = 0
        /// One per `drain` waiting for the in-flight requests: signalled when the last one finishes.
        var drainWaiters: [DispatchSemaphore] = []
    }

    private let state = Locked(State())

    /// Registers a new request; false when draining (the request is answered 503).
    func admit() -> Bool {
        state.withLock { state in
            if state.draining { return false }
            state.inFlight += 1
            return true
        }
    }

    /// An admitted request is over.
    func finish() {
        let drained = state.withLock { state -> [DispatchSemaphore] in
            state.inFlight -= 1
            guard state.inFlight == 0 else { return [] }
            defer { state.drainWaiters.removeAll() }
            return state.drainWaiters
        }
        for waiter in drained { waiter.signal() }
    }

    func beginDraining() {
        state.withLock { $0.draining = true }
    }

    /// Refuses new requests and waits up to `timeout` for those in flight; true when they all finished.
    func drain(timeout: Duration) -> Bool {
        let finishedRequests = DispatchSemaphore(value: 0)
        let waiting = state.withLock { state -> Bool in
            state.draining = true
            guard state.inFlight > 0 else { return false }
            state.drainWaiters.append(finishedRequests)
            return true
        }
        return !waiting || finishedRequests.wait(timeout: .now() + max(timeout, .zero).inSeconds) == .success
    }
}

/// What one request of the vault keeps between the core's calls.
private final class VaultExchange {
    /// Counted in flight (so its completion must be counted out).
    var admitted = false
    /// What the head established; set when the head was admitted.
    var admission: VaultRequestHandler.Admission?
}

/// The vault's answers on `HTTPServerCore`.
///
/// Before any body byte is read, each request's head is checked (`RequestHead`: framing and
/// sizes), then settled where the head alone settles it (`VaultRequestHandler.admit`: route,
/// credential, limits). An answer given from the head makes libmicrohttpd close the connection
/// after it without reading the body (what makes the refusals safe against smuggling).
private final class VaultExchangeHandler: HTTPExchangeHandler {
    let handler: VaultRequestHandler
    let gate: RequestGate
    /// Whose address a request counts against (`trustedProxies`).
    let addressResolver: ClientAddressResolver
    let feedStreams: FeedStreamTally
    let maxBodyBytes: Int

    init(handler: VaultRequestHandler, gate: RequestGate, addressResolver: ClientAddressResolver, feedStreams: FeedStreamTally,
         maxBodyBytes: Int) {
        self.handler = handler
        self.gate = gate
        self.addressResolver = addressResolver
        self.feedStreams = feedStreams
        self.maxBodyBytes = maxBodyBytes
    }

    func head(_ head: ServedHead, of exchange: ServedExchange) -> HeadVerdict {
        let request = VaultExchange()
        exchange.state = request
        request.admitted = gate.admit()
        guard request.admitted else { return refuse(.draining) }
        let checked = RequestHead(requestLineBytes: head.requestLineBytes, headBytes: head.headBytes,
                                  contentLengths: head.headerValues("Content-Length"),
                                  transferEncodings: head.headerValues("Transfer-Encoding"),
                                  fieldNames: head.fields.map(\.name))
        let framing: RequestHead.Framing
        switch checked.framing(maxBodyBytes: maxBodyBytes) {
        case .failure(let error): return refuse(error)
        case .success(let found): framing = found
        }
        guard !head.isPastDeadline else { return refuse(.requestTimeout) }
        // Route, credential and limits, from the head alone: a refusal here never reads the body.
        guard let target = exchange.target, let method = head.method else {
            return refuse(.badRequest("invalid-request-line", "the request line is not valid UTF-8"))
        }
        // The address the limits count against: the peer's, or the client a trusted proxy
        // reports; an IPv6 client's /64 prefix.
        let address = head.peerAddress.map { peer in addressResolver.resolve(peer: peer) { head.headerValues($0) } } ?? "unknown"
        switch handler.admit(method: method, target: target, authorization: head.header("Authorization"), address: address) {
        case .failure(let error): return refuse(error)
        case .success(let admission): request.admission = admission
        }
        // A body where the route takes none is never read: refused from the head, connection closed.
        if framing.expectsBody, !(request.admission?.route.takesBody ?? false) { return refuse(.bodyNotAllowed) }
        if case .length(let length) = framing { return .readBody(expectsBody: framing.expectsBody, reserve: length) }
        return .readBody(expectsBody: framing.expectsBody, reserve: nil)
    }

    func answer(_ head: ServedHead, of exchange: ServedExchange) -> CoreAnswer {
        guard let admission = (exchange.state as? VaultExchange)?.admission else {
            return answer(VaultRequestHandler.errorResponse(.internalError), close: true)
        }
        let response = handler.handle(VaultHTTPRequest(admission: admission, body: exchange.body.bytes,
                                                       bodyTooLarge: exchange.body.tooLarge))
        return answer(response, close: exchange.body.tooLarge)
    }

    func completed(_ exchange: ServedExchange) {
        if (exchange.state as? VaultExchange)?.admitted == true { gate.finish() }
    }

    private func refuse(_ error: VaultHTTPError) -> HeadVerdict {
        .refuse(answer(VaultRequestHandler.errorResponse(error), close: true))
    }

    /// A change-feed page is streamed from its encoder (written whole by the core when it fits
    /// one block); every other body is bytes.
    private func answer(_ response: VaultHTTPResponse, close: Bool) -> CoreAnswer {
        let body: CoreAnswer.Body
        switch response.body {
        case .bytes(let bytes): body = .bytes(bytes)
        case .feed(let encoder): body = .stream(FeedStream(encoder, tally: feedStreams))
        }
        return CoreAnswer(status: response.status, headers: response.headers.map { (name: $0.0, value: $0.1) }, body: body,
                          close: close)
    }
}
