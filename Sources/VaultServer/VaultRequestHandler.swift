import CheckoutCrypto
import Foundation

/// Routes a request, authenticates it, applies limits and answers with JSON.
///
/// Synchronous by design: it runs on libmicrohttpd's threads and only calls the synchronous,
/// lock-guarded storage. Every query is scoped by the merchant behind the API key and the
/// customer in the path, so another merchant's ids simply do not exist (404).
final class VaultRequestHandler: Sendable {
    private let configuration: VaultServerConfiguration
    private let apiKeys: [(key: [UInt8], merchant: String)]
    private let service: VaultService
    private let clock: VaultServerClock
    private let rateLimiter: RateLimiter
    private let inFlight = InFlightOps()

    init(configuration: VaultServerConfiguration, storage: any VaultServerStorage, clock: VaultServerClock) {
        self.configuration = configuration
        self.apiKeys = configuration.apiKeys.sorted { $0.key < $1.key }.map { (Array($0.key.utf8), $0.value) }
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
        if error.status == 405 { response.headers.append(("Allow", "GET, POST, DELETE")) }
        return response
    }

    // MARK: Routing

    private func route(_ request: VaultHTTPRequest) throws -> VaultHTTPResponse {
        if request.bodyTooLarge { throw VaultHTTPError.bodyTooLarge }
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        if segments == ["health"] {
            guard request.method == "GET" || request.method == "HEAD" else { throw VaultHTTPError.methodNotAllowed() }
            return Self.json(200, WireHealth(status: "ok"))
        }
        guard segments.count >= 4, segments[0] == "v1", segments[1] == "customers" else { throw VaultHTTPError.notFound }
        let merchant = try authenticate(request.authorization)
        if let wait = rateLimiter.acquire(merchant, now: clock.nowMillis) { throw VaultHTTPError.rateLimited(retryAfter: wait) }
        guard Identifier.isValid(segments[2]) else {
            throw VaultHTTPError.badRequest("invalid-customer", "customer ids are 1–128 letters, digits or -._:")
        }
        let key = CustomerKey(merchant: merchant, customer: segments[2])
        switch (segments.count, segments[3]) {
        case (4, "instruments"):
            guard request.method == "GET" else { throw VaultHTTPError.methodNotAllowed() }
            return Self.json(200, WireInstrumentList(instruments: try service.instruments(key)))
        case (5, "instruments"):
            guard request.method == "DELETE" else { throw VaultHTTPError.methodNotAllowed() }
            guard Identifier.isValid(segments[4]),
                  let change = try service.delete(key, id: segments[4], now: clock.nowMillis) else {
                throw VaultHTTPError.notFound
            }
            return Self.json(200, WireDeleted(change: change))
        case (4, "changes"):
            guard request.method == "GET" else { throw VaultHTTPError.methodNotAllowed() }
            let page = try changes(key, query: request.query)
            return VaultHTTPResponse(status: 200, body: try FeedEncoder.encode(page), headers: [("Content-Type", "application/json")])
        case (4, "ops"):
            guard request.method == "POST" else { throw VaultHTTPError.methodNotAllowed() }
            let results = try ops(key, body: request.body)
            return VaultHTTPResponse(status: 200, body: try OpResultEncoder.encodeResults(results),
                                     headers: [("Content-Type", "application/json")])
        default:
            throw VaultHTTPError.notFound
        }
    }

    /// The merchant of the bearer token, comparing against every configured key in constant time.
    private func authenticate(_ header: String?) throws -> String {
        guard let header, header.hasPrefix("Bearer ") else { throw VaultHTTPError.unauthorized }
        let presented = Array(header.utf8.dropFirst(7))
        guard let merchant = Self.merchant(presenting: presented, among: apiKeys), !presented.isEmpty else {
            throw VaultHTTPError.unauthorized
        }
        return merchant
    }

    /// The merchant whose key is `presented`, or nil. Every key is compared, each with
    /// `ConstantTime.equals` (libcrypto's `CRYPTO_memcmp`), and the loop never stops at a match, so
    /// the time taken tells neither how much of a guess was right nor which key matched.
    /// `equals` is a parameter only so that a test can count the comparisons.
    static func merchant(presenting presented: [UInt8], among keys: [(key: [UInt8], merchant: String)],
                         equals: ([UInt8], [UInt8]) -> Bool = { ConstantTime.equals($0, $1) }) -> String? {
        var merchant: String?
        for entry in keys {
            let matches = equals(entry.key, presented)
            if matches, merchant == nil { merchant = entry.merchant }
        }
        return merchant
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
        let prepared = try OpsRequestParser.parse(body, maxOps: configuration.limits.maxOpsPerBatch)
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
