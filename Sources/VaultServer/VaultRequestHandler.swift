import CheckoutCrypto
import Foundation

/// Routes a request, authenticates it, applies limits and answers with JSON.
///
/// Synchronous by design: it runs on libmicrohttpd's threads and only calls the synchronous,
/// lock-guarded storage. Every query is scoped by the merchant behind the credential and the
/// customer in the path, so another merchant's ids simply do not exist (404). A device's
/// ephemeral key reaches its own customer only: any other customer's path is the 404 of a
/// missing resource, whatever that customer holds.
///
/// Order of checks: body size (413), path (404), `/health`, credential (401), rate limit (429),
/// what a device's key may reach (403 `forbidden` on key management, 404 on another customer),
/// customer id (400), method (405 with the path's `Allow`), read-only key on a write (403
/// `read-only-key`), then the request itself.
final class VaultRequestHandler: Sendable {
    private let configuration: VaultServerConfiguration
    private let authenticator: VaultAuthenticator
    private let service: VaultService
    private let clock: VaultServerClock
    private let rateLimiter: RateLimiter
    private let inFlight = InFlightOps()

    init(configuration: VaultServerConfiguration, storage: any VaultServerStorage, clock: VaultServerClock) {
        self.configuration = configuration
        self.authenticator = VaultAuthenticator(merchantKeys: MerchantKeys(configuration.apiKeys),
                                                ephemeralKeys: EphemeralKeyService(storage: storage))
        self.service = VaultService(storage: storage,
                                    retentionMillis: Int64((configuration.tombstoneRetentionSeconds * 1000).rounded()))
        self.clock = clock
        self.rateLimiter = RateLimiter(perSecond: configuration.limits.rateLimitPerSecond,
                                       burst: configuration.limits.rateLimitBurst)
    }

    func handle(_ request: VaultHTTPRequest) -> VaultHTTPResponse {
        do {
            return try route(request)
        } catch let error as VaultHTTPError {
            return Self.errorResponse(error)
        } catch let error as any TemporaryStorageFailure where error.isTemporary {
            return Self.errorResponse(.storageUnavailable)
        } catch {
            return Self.errorResponse(.internalError)
        }
    }

    static func errorResponse(_ error: VaultHTTPError) -> VaultHTTPResponse {
        var response = json(error.status, WireError(error: .init(code: error.code, message: error.message)))
        if let retryAfter = error.retryAfterSeconds { response.headers.append(("Retry-After", String(retryAfter))) }
        if !error.allowedMethods.isEmpty { response.headers.append(("Allow", error.allowedMethods.joined(separator: ", "))) }
        return response
    }

    // MARK: Routing

    private func route(_ request: VaultHTTPRequest) throws -> VaultHTTPResponse {
        if request.bodyTooLarge { throw VaultHTTPError.bodyTooLarge }
        guard let route = VaultRoute(path: request.path) else { throw VaultHTTPError.notFound }
        if route == .health {
            guard route.methods.contains(request.method) else { throw VaultHTTPError.methodNotAllowed(route) }
            return Self.json(200, WireHealth(status: "ok"))
        }
        let caller = try authenticator.caller(request.authorization, now: clock.nowMillis)
        let merchant = caller.merchant
        if let wait = rateLimiter.acquire(merchant, now: clock.nowMillis) { throw VaultHTTPError.rateLimited(retryAfter: wait) }
        if case .device(let key) = caller {
            if route.managesKeys { throw VaultHTTPError.forbidden }
            // Exactly the answer of a customer that does not exist: nothing tells the two apart.
            // Bytes, not `String ==`, which is Unicode-canonical ("\u{212A}" KELVIN SIGN equals "K").
            guard let customer = route.customer, customer.utf8.elementsEqual(key.customer.utf8) else {
                throw VaultHTTPError.notFound
            }
        }
        if let customer = route.customer, !Identifier.isValid(customer) {
            throw VaultHTTPError.badRequest("invalid-customer", "customer ids are 1–128 letters, digits or -._:")
        }
        guard route.methods.contains(request.method) else { throw VaultHTTPError.methodNotAllowed(route) }
        if case .device(let key) = caller, key.scope == .read, route.writes { throw VaultHTTPError.readOnlyKey }

        switch route {
        case .instruments(let customer):
            let key = CustomerKey(merchant: merchant, customer: customer)
            return Self.json(200, WireInstrumentList(instruments: try service.instruments(key)))
        case .instrument(let customer, let id):
            let key = CustomerKey(merchant: merchant, customer: customer)
            guard Identifier.isValid(id), let change = try service.delete(key, id: id, now: clock.nowMillis) else {
                throw VaultHTTPError.notFound
            }
            return Self.json(200, WireDeleted(change: change))
        case .changes(let customer):
            let page = try changes(CustomerKey(merchant: merchant, customer: customer), query: request.query)
            return VaultHTTPResponse(status: 200, body: try FeedEncoder.encode(page), headers: [("Content-Type", "application/json")])
        case .ops(let customer):
            let results = try ops(CustomerKey(merchant: merchant, customer: customer), body: request.body)
            return VaultHTTPResponse(status: 200, body: try OpResultEncoder.encodeResults(results),
                                     headers: [("Content-Type", "application/json")])
        case .mintKey(let customer):
            return try mintKey(merchant: merchant, customer: customer, body: request.body)
        case .revokeKey(let id):
            guard try authenticator.ephemeralKeys.revoke(merchant: merchant, id: id, now: clock.nowMillis) else {
                throw VaultHTTPError.notFound
            }
            return Self.json(200, WireRevokedKey(id: id, revoked: true))
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

    private func ops(_ key: CustomerKey, body: [UInt8]) throws -> [WireOpResult] {
        // Ops over the field limits are answered before the parser's card-number scan sees them.
        let screened = try OpLimitScreen.screen(body)
        var prepared = try OpsRequestParser.parse(screened.body, maxOps: configuration.limits.maxOpsPerBatch)
        for (index, result) in screened.rejected where prepared.indices.contains(index) { prepared[index] = .rejected(result) }
        let opIds = prepared.map(\.opId)
        guard inFlight.reserve(key, opIds) else { throw VaultHTTPError.opInFlight }
        defer { inFlight.release(key, opIds) }
        return try service.apply(key, ops: prepared, now: clock.nowMillis)
    }

    static func json(_ status: Int, _ value: some Encodable) -> VaultHTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(value) else {
            return VaultHTTPResponse(status: 500, body: Array(#"{"error":{"code":"internal","message":"encoding failed"}}"#.utf8),
                                     headers: [("Content-Type", "application/json")])
        }
        return VaultHTTPResponse(status: status, body: Array(data), headers: [("Content-Type", "application/json")])
    }
}
