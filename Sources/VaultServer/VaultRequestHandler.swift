import CheckoutCore
import CheckoutCrypto
import CheckoutJSON
import Foundation

/// Routes a request, authenticates it, applies limits and answers with JSON.
///
/// Two steps. `admit` judges the head, before any body byte is read: a request it refuses is
/// answered at once and its body never read, so an unauthenticated client costs no body memory.
/// `handle` then serves an admitted request with its body.
///
/// Synchronous by design: it runs on libmicrohttpd's threads and only calls the synchronous,
/// lock-guarded storage. Every query is scoped by the merchant behind the credential and the
/// customer in the path, so another merchant's ids simply do not exist (404). A device's
/// ephemeral key reaches its own customer only: any other customer's path is the 404 of a
/// missing resource, whatever that customer holds.
///
/// Order of checks on the head: the client address's rate (429 `rate-limited`), the raw path
/// (400 `invalid-path`, `RequestTarget`), the route (404), the query (400 `invalid-query`),
/// `/health`, the failed-authentication budgets of the presented credential and, unless that
/// credential authenticated within the hour (`ProvenCredentials`), of the address (429
/// `auth-throttled`), credential (401, counted against both budgets and logged), the merchant's
/// rate (429), what a device's key may reach (403 `forbidden` on key management, 404 on another
/// customer), customer id (400), method (405 with the path's `Allow`), read-only key on a write
/// (403 `read-only-key`), the customer's rate (429). Then, with the body: its size (413), the
/// write budgets of the customer and the device key (429 `write-budget-exhausted`), then the
/// request itself.
final class VaultRequestHandler: Sendable {
    private let configuration: VaultServerConfiguration
    private let authenticator: VaultAuthenticator
    private let service: VaultService
    private let clock: WallClock
    private let log: VaultServerLog
    private let merchantLimiter: RateLimiter
    private let customerLimiter: RateLimiter
    private let addressLimiter: RateLimiter
    /// Failed authentications per client address: only failures spend it.
    private let failedAuthBudget: RateLimiter
    /// Failed authentications per presented credential (its fingerprint), the same budget as an
    /// address's: a credential that keeps failing is throttled wherever it comes from.
    private let failedCredentialBudget: RateLimiter
    /// Credentials that authenticated recently: never refused for their address's failures.
    private let provenCredentials = ProvenCredentials()
    /// Ops written per ephemeral key, and per customer whoever writes (each op may leave a
    /// tombstone and an op record behind, kept for their retentions).
    private let deviceWriteBudget: RateLimiter
    private let customerWriteBudget: RateLimiter
    private let inFlight = InFlightOps()

    /// What the head of a request established: its route and, for every route but `/health`, the
    /// caller behind its credential.
    struct Admission: Sendable {
        let route: VaultRoute
        let caller: VaultCaller?
        /// The query arguments (`RequestTarget.query`).
        var query: [String: String] = [:]
    }

    init(configuration: VaultServerConfiguration, storage: any VaultServerStorage, clock: WallClock,
         log: VaultServerLog = .standardError) {
        self.configuration = configuration
        self.authenticator = VaultAuthenticator(merchantKeys: MerchantKeys(configuration.apiKeys),
                                                ephemeralKeys: EphemeralKeyService(storage: storage))
        self.service = VaultService(storage: storage,
                                    retentionMillis: Int64((configuration.tombstoneRetentionSeconds * 1000).rounded()),
                                    maxInstruments: configuration.limits.effectiveMaxInstrumentsPerCustomer,
                                    maxPageBytes: configuration.limits.effectiveMaxFeedPageBytes,
                                    caps: .init(maxTombstones: configuration.limits.effectiveMaxTombstonesPerCustomer,
                                                maxOpRecords: configuration.limits.effectiveMaxOpRecordsPerCustomer))
        self.clock = clock
        self.log = log
        let limits = configuration.limits
        merchantLimiter = RateLimiter(perSecond: limits.rateLimitPerSecond, burst: limits.rateLimitBurst)
        customerLimiter = RateLimiter(perSecond: limits.effectiveCustomerRateLimitPerSecond,
                                      burst: limits.effectiveCustomerRateLimitBurst)
        addressLimiter = RateLimiter(perSecond: limits.effectiveAddressRateLimitPerSecond,
                                     burst: limits.effectiveAddressRateLimitBurst)
        failedAuthBudget = RateLimiter(perSecond: limits.effectiveFailedAuthBurst > 0 ? 1 / limits.effectiveFailedAuthRefillSeconds : 0,
                                       burst: limits.effectiveFailedAuthBurst)
        failedCredentialBudget = RateLimiter(perSecond: limits.effectiveFailedAuthBurst > 0 ? 1 / limits.effectiveFailedAuthRefillSeconds : 0,
                                             burst: limits.effectiveFailedAuthBurst)
        deviceWriteBudget = RateLimiter(perSecond: limits.effectiveDeviceWriteOpsPerHour / 3600,
                                        burst: limits.effectiveDeviceWriteOpsBurst)
        customerWriteBudget = RateLimiter(perSecond: limits.effectiveCustomerWriteOpsPerHour / 3600,
                                          burst: limits.effectiveCustomerWriteOpsBurst)
    }

    /// Judges a request's head (`target` is the raw request target, as on the request line;
    /// `address` the client's, from `ClientAddressResolver`): the admission, or the error to answer
    /// at once without reading the body.
    func admit(method: String, target: String, authorization: String?, address: String) -> Result<Admission, VaultHTTPError> {
        Self.answer { () throws -> Admission in
            try admission(method: method, target: target, authorization: authorization, address: address)
        }
    }

    /// Serves an admitted request, its body read.
    func handle(_ request: VaultHTTPRequest) -> VaultHTTPResponse {
        switch Self.answer({ () throws -> VaultHTTPResponse in try serve(request) }) {
        case .success(let response): response
        case .failure(let error): Self.errorResponse(error)
        }
    }

    /// Runs `body`, turning every error into the answer it gets.
    private static func answer<T>(_ body: () throws -> T) -> Result<T, VaultHTTPError> {
        do {
            return .success(try body())
        } catch let error as VaultHTTPError {
            return .failure(error)
        } catch let error as any TemporaryStorageFailure where error.isTemporary {
            return .failure(.storageUnavailable)
        } catch {
            return .failure(.internalError)
        }
    }

    static func errorResponse(_ error: VaultHTTPError) -> VaultHTTPResponse {
        // Without Cache-Control: an error carries no secret, and libmicrohttpd must fit it into what
        // is left of a connection's memory after the largest heads (`RequestHeadLimitTests`).
        var response = json(error.status, WireError(error: .init(code: error.code, message: error.message)),
                            headers: [("Content-Type", "application/json")])
        if let retryAfter = error.retryAfterSeconds { response.headers.append(("Retry-After", String(retryAfter))) }
        if !error.allowedMethods.isEmpty { response.headers.append(("Allow", error.allowedMethods.joined(separator: ", "))) }
        return response
    }

    // MARK: Routing

    private func admission(method: String, target: String, authorization: String?, address: String) throws -> Admission {
        let now = clock.nowMillis
        if let wait = addressLimiter.acquire(address, now: now) { throw VaultHTTPError.rateLimited(retryAfter: wait) }
        guard let segments = try RequestTarget.segments(of: target), let route = VaultRoute(segments: segments) else {
            throw VaultHTTPError.notFound
        }
        let query = try RequestTarget.query(of: target)
        if route == .health {
            guard route.methods.contains(method) else { throw VaultHTTPError.methodNotAllowed(route) }
            return Admission(route: route, caller: nil)
        }
        // A credential that proved itself lately is judged on its own: guesses from its address
        // cannot lock it out. Any other is throttled, unchecked, once its address or it itself
        // has spent its failure budget.
        let fingerprint = authorization.map(ProvenCredentials.fingerprint)
        let credentialKey = fingerprint.map(NibbleLetters.string) ?? "none"
        let proven = fingerprint.map { provenCredentials.contains($0, now: now) } ?? false
        if let wait = failedCredentialBudget.wait(credentialKey, now: now) ?? (proven ? nil : failedAuthBudget.wait(address, now: now)) {
            let error = VaultHTTPError.authThrottled(retryAfter: wait)
            log.record(AuthRefusalEvent(event: "auth-throttled", status: error.status, code: error.code, address: address,
                                        method: method, route: route.name, retryAfter: wait))
            throw error
        }
        let caller: VaultCaller
        do {
            caller = try authenticator.caller(authorization, now: now)
        } catch let error as VaultHTTPError {
            failedAuthBudget.consume(address, now: now)
            failedCredentialBudget.consume(credentialKey, now: now)
            if let fingerprint { provenCredentials.forget(fingerprint) }
            log.record(AuthRefusalEvent(event: "auth-refused", status: error.status, code: error.code, address: address,
                                        method: method, route: route.name, retryAfter: nil))
            throw error
        }
        if let fingerprint, !proven { provenCredentials.prove(fingerprint, now: now) }
        let merchant = caller.merchant
        if let wait = merchantLimiter.acquire(merchant, now: now) { throw VaultHTTPError.rateLimited(retryAfter: wait) }
        if case .device(let key) = caller {
            if route.managesKeys { throw VaultHTTPError.forbidden }
            // Exactly the answer of a customer that does not exist: nothing tells the two apart.
            // Bytes, not `String ==`, which is Unicode-canonical ("\u{212A}" KELVIN SIGN equals "K").
            // `whoami` names no customer: it tells the device whose key it holds.
            guard route == .whoami || route.customer.map({ $0.utf8.elementsEqual(key.customer.utf8) }) == true else {
                throw VaultHTTPError.notFound
            }
        }
        if let customer = route.customer, !Identifier.isValid(customer) {
            throw VaultHTTPError.badRequest("invalid-customer", "customer ids are 1–128 letters, digits or -._:")
        }
        guard route.methods.contains(method) else { throw VaultHTTPError.methodNotAllowed(route) }
        if case .device(let key) = caller, key.scope == .read, route.writes { throw VaultHTTPError.readOnlyKey }
        if let customer = route.customer,
           let wait = customerLimiter.acquire(merchant + "\u{0}" + customer, now: now) {
            throw VaultHTTPError.rateLimited(retryAfter: wait)
        }
        return Admission(route: route, caller: caller, query: query)
    }

    private func serve(_ request: VaultHTTPRequest) throws -> VaultHTTPResponse {
        if request.bodyTooLarge { throw VaultHTTPError.bodyTooLarge }
        guard let caller = request.admission.caller else { return Self.json(200, WireHealth(status: "ok")) }
        let merchant = caller.merchant

        switch request.admission.route {
        case .instruments(let customer):
            let key = CustomerKey(merchant: merchant, customer: customer)
            return Self.json(200, WireInstrumentList(instruments: try service.instruments(key)))
        case .instrument(let customer, let id):
            let key = CustomerKey(merchant: merchant, customer: customer)
            try spendWriteBudget(caller, key, ops: 1)
            guard Identifier.isValid(id), let change = try service.delete(key, id: id, now: clock.nowMillis) else {
                throw VaultHTTPError.notFound
            }
            return Self.json(200, WireDeleted(change: change))
        case .changes(let customer):
            let page = try changes(CustomerKey(merchant: merchant, customer: customer), query: request.query)
            return VaultHTTPResponse(status: 200, body: .feed(try FeedEncoder(page)), headers: Self.jsonHeaders)
        case .ops(let customer):
            let results = try ops(CustomerKey(merchant: merchant, customer: customer), caller: caller, body: request.body)
            return VaultHTTPResponse(status: 200, body: .bytes(try OpResultEncoder.encodeResults(results)),
                                     headers: Self.jsonHeaders)
        case .mintKey(let customer):
            return try mintKey(merchant: merchant, customer: customer, body: request.body)
        case .revokeKey(let id):
            guard try authenticator.ephemeralKeys.revoke(merchant: merchant, id: id, now: clock.nowMillis) else {
                throw VaultHTTPError.notFound
            }
            return Self.json(200, WireRevokedKey(id: id, revoked: true))
        case .whoami:
            return Self.json(200, WireWhoami(caller))
        case .health:
            throw VaultHTTPError.notFound
        }
    }

    /// `POST /v1/customers/{customer}/ephemeral-keys`: 201 with the secret, shown this once.
    private func mintKey(merchant: String, customer: String, body: [UInt8]) throws -> VaultHTTPResponse {
        let request = try EphemeralKeyRequest.parse(body)
        let minted = try authenticator.ephemeralKeys.mint(merchant: merchant, customer: customer,
                                                          ttlSeconds: request.ttlSeconds, scope: request.scope,
                                                          now: clock.nowMillis)
        let expiresAtSeconds = minted.record.expiresAt / 1000
        return Self.json(201, WireEphemeralKey(
            id: minted.record.id, secret: minted.secret, customer: customer,
            expiresAt: Date(timeIntervalSince1970: Double(expiresAtSeconds)).formatted(.iso8601),
            expiresAtEpochSeconds: expiresAtSeconds, scope: minted.record.scope.rawValue))
    }

    private func changes(_ key: CustomerKey, query: [String: String]) throws -> VaultService.FeedPage {
        var limit = configuration.limits.defaultPageSize
        if let text = query["limit"] {
            guard let value = Int(text), value > 0 else {
                throw VaultHTTPError.badRequest("invalid-limit", "limit must be a positive integer")
            }
            limit = min(value, configuration.limits.maxPageSize)
        }
        return try service.changes(key, after: query["cursor"], limit: limit, now: clock.nowMillis)
    }

    private func ops(_ key: CustomerKey, caller: VaultCaller, body: [UInt8]) throws -> [WireOpResult] {
        let prepared = try OpsRequestParser.parse(body, maxOps: configuration.limits.maxOpsPerBatch)
        try spendWriteBudget(caller, key, ops: prepared.count)
        let opIds = prepared.map(\.opId)
        guard inFlight.reserve(key, opIds) else { throw VaultHTTPError.opInFlight }
        defer { inFlight.release(key, opIds) }
        return try service.apply(key, ops: prepared, now: clock.nowMillis)
    }

    /// Takes `ops` from the customer's write budget and, for a device, its key's: 429
    /// `write-budget-exhausted` (nothing applied) when either is short. A replayed op counts too:
    /// the budget bounds requests, and a device replays only what it was not answered.
    private func spendWriteBudget(_ caller: VaultCaller, _ key: CustomerKey, ops: Int) throws {
        guard ops > 0 else { return }
        let now = clock.nowMillis
        let customer = key.merchant + "\u{0}" + key.customer
        if let wait = customerWriteBudget.wait(customer, now: now, count: ops) {
            throw VaultHTTPError.writeBudgetExhausted(retryAfter: wait)
        }
        if case .device(let record) = caller {
            if let wait = deviceWriteBudget.acquire(record.id, now: now, count: ops) {
                throw VaultHTTPError.writeBudgetExhausted(retryAfter: wait)
            }
        }
        _ = customerWriteBudget.acquire(customer, now: now, count: ops)
    }

    /// The headers of every answer but the errors: JSON, never stored by a cache (answers carry
    /// key secrets, masked instruments and cursors).
    static let jsonHeaders = [("Content-Type", "application/json"), ("Cache-Control", "no-store")]

    static func json(_ status: Int, _ value: some Encodable,
                     headers: [(String, String)] = jsonHeaders) -> VaultHTTPResponse {
        guard let data = try? JSONWriter.encode(value) else {
            return VaultHTTPResponse(status: 500, body: .bytes(Array(#"{"error":{"code":"internal","message":"encoding failed"}}"#.utf8)),
                                     headers: Self.jsonHeaders)
        }
        return VaultHTTPResponse(status: status, body: .bytes(Array(data)), headers: headers)
    }
}
