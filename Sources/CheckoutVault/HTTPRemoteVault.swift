import CheckoutCore
import CheckoutJSON
import CheckoutLocking
import Foundation
import HTTPTransport

/// A `RemoteVault` that talks to `vault-server` over HTTPS (or HTTP to loopback) with
/// `HTTPTransport`, libcurl underneath.
///
/// One instance per process and server, shared across tasks: kept-alive connections are reused
/// across sync rounds (no TLS handshake after the first), and no Swift task blocks on the network.
/// Certificates are verified against the system CA store, or `tls.caBundle` for a private CA,
/// optionally pinned; plain `http://` is refused for any host but loopback unless
/// `allowInsecureHTTP` is set. Responses are decoded strictly; anything that is not the promised
/// JSON becomes `RemoteVaultError.malformedResponse` and nothing of it is returned; a connection
/// that fails or ends before a whole response is `unreachable`, with a reason that names the
/// cause ("certificate not trusted", "host name mismatch", ...); a refused certificate is
/// `untrustedServer`. Credentials (an API key, or ephemeral customer keys from a provider, see
/// `VaultCredentials`) are never included in errors or descriptions.
///
/// Merchant binding: before the first request of each connection epoch the remote asks the
/// server whose credential it holds (`GET /v1/whoami`), and it sends nothing for a scope of
/// another merchant (or, with an ephemeral key, another customer): such a call throws
/// `RemoteVaultError.merchantMismatch`. See `identity(scope:)` and `HTTPRemoteVault+Identity`.
public final class HTTPRemoteVault: RemoteVault, CustomStringConvertible, CustomReflectable {
    private let baseURL: URL
    let credentials: Credentials
    private let transport: any HTTPExchange
    /// The merchant binding of each credential in use (`HTTPRemoteVault+Identity`).
    let bindings = Locked(Bindings())

    enum Credentials: Sendable {
        case apiKey(authorization: String)
        case ephemeral(EphemeralKeyCache)
    }

    /// Creates a client for the server at `baseURL` (e.g. `https://vault.example.com`).
    ///
    /// - Parameters:
    ///   - credentials: a merchant API key (backends) or an ephemeral-key provider (devices).
    ///   - timeout: bounds connecting (TLS handshake included) and each idle gap, in seconds.
    ///   - resourceTimeout: bounds a whole request.
    ///   - idleTimeout: a pooled connection idle for longer is closed instead of reused; keep it at
    ///     or below the server's `limits.idleConnectionTimeoutSeconds` (30 by default).
    ///   - tls: a private CA bundle, SPKI pins, or hosts exempt from verification.
    ///   - allowInsecureHTTP: allows plain `http://` to a host that is not loopback.
    ///   - keyRefreshMargin: an ephemeral key expiring within this is replaced before use.
    ///   - clock: the wall clock ephemeral-key expiry is judged by (tests inject a manual one).
    public convenience init(baseURL: URL, credentials: VaultCredentials, timeout: TimeInterval = 15,
                            resourceTimeout: TimeInterval = 60, idleTimeout: TimeInterval = 30, tls: TLSOptions = TLSOptions(),
                            allowInsecureHTTP: Bool = false, keyRefreshMargin: Duration = .seconds(60), clock: WallClock = .system) {
        let transport = HTTPTransport(
            baseURL: baseURL,
            configuration: HTTPTransportConfiguration(timeout: timeout, exchangeTimeout: resourceTimeout, maxConnections: 8,
                                                      idleTimeout: idleTimeout, tls: tls, allowInsecureHTTP: allowInsecureHTTP))
        self.init(baseURL: baseURL, credentials: credentials, exchange: transport, keyRefreshMargin: keyRefreshMargin,
                  clock: clock)
    }

    /// Creates a client that sends its requests through `exchange` instead of its own libcurl
    /// transport: every path, header, body, decoding rule and error mapping is the same.
    ///
    /// For a server in the same process (the deterministic simulator `vault-sim` puts a simulated
    /// network and the real server service behind `exchange`) or a host's own configured
    /// `HTTPTransport`. `baseURL` only names the server in `description`.
    public init(baseURL: URL, credentials: VaultCredentials, exchange: any HTTPExchange,
                keyRefreshMargin: Duration = .seconds(60), clock: WallClock = .system) {
        self.baseURL = baseURL
        switch credentials {
        case .apiKey(let key):
            self.credentials = .apiKey(authorization: "Bearer \(key)")
        case .ephemeral(let provider):
            self.credentials = .ephemeral(EphemeralKeyCache(provider: provider, clock: clock, refreshMargin: keyRefreshMargin))
        }
        self.transport = exchange
    }

    /// Creates a client authenticating with a merchant API key (`credentials: .apiKey(apiKey)`).
    public convenience init(baseURL: URL, apiKey: String, timeout: TimeInterval = 15, resourceTimeout: TimeInterval = 60,
                            idleTimeout: TimeInterval = 30, tls: TLSOptions = TLSOptions(), allowInsecureHTTP: Bool = false) {
        self.init(baseURL: baseURL, credentials: .apiKey(apiKey), timeout: timeout, resourceTimeout: resourceTimeout,
                  idleTimeout: idleTimeout, tls: tls, allowInsecureHTTP: allowInsecureHTTP)
    }

    /// How many times the ephemeral-key provider was asked for a key (0 with an API key).
    public var keyProviderCalls: Int {
        if case .ephemeral(let cache) = credentials { return cache.providerCalls }
        return 0
    }

    /// A one-line explanation, safe to log: the server's scheme, host and port, never a credential.
    public var description: String {
        "HTTPRemoteVault(\(URLCredentialRedactor.redact(baseURL.absoluteString)))"
    }

    /// What `dump` and debuggers show: the description, never the credentials.
    public var customMirror: Mirror { Mirror(self, children: ["server": description]) }

    /// The transport's counters (requests, connections opened and reused, TLS handshakes), for
    /// tests and benchmarks; all zero when the client sends through another `HTTPExchange`.
    public var transportStatistics: HTTPTransport.Statistics {
        (transport as? HTTPTransport)?.statistics
            ?? HTTPTransport.Statistics(requests: 0, connectionsOpened: 0, reusedConnections: 0, tlsHandshakes: 0)
    }

    /// Fetches one page of the change feed (`GET /v1/customers/{customer}/changes`).
    public func changes(scope: VaultScope, cursor: String?, limit: Int) async throws -> ChangePage {
        var query = "?limit=\(limit)"
        if let cursor { query += "&cursor=" + Self.percentEncoded(cursor) }
        return try ChangePage(wireBytes: try await send(scope, method: "GET", path: customerPath(scope) + "/changes" + query,
                                                        body: nil))
    }

    /// Sends a batch (`POST /v1/customers/{customer}/ops`); the results match the ops one to one.
    public func push(scope: VaultScope, ops: [OutboundOp]) async throws -> [OpResult] {
        let body = WireJSON.opsRequestBytes(ops)
        let data = try await send(scope, method: "POST", path: customerPath(scope) + "/ops", body: body)
        let results: [OpResult]
        if let fast = try? WireJSON.scan(data, WireJSON.opResults) {
            results = fast
        } else {
            results = try Self.decode(OpsResponseBody.self, from: data).results
        }
        guard results.map(\.opId) == ops.map(\.opId) else {
            throw RemoteVaultError.malformedResponse(reason: "the results do not match the ops sent")
        }
        return results
    }

    /// Lists live instruments (`GET /v1/customers/{customer}/instruments`).
    public func instruments(scope: VaultScope) async throws -> [RemoteInstrument] {
        let data = try await send(scope, method: "GET", path: customerPath(scope) + "/instruments", body: nil)
        return try Self.decode(InstrumentsResponseBody.self, from: data).instruments
    }

    // MARK: - Transport

    private struct OpsResponseBody: Decodable { var results: [OpResult] }
    private struct InstrumentsResponseBody: Decodable { var instruments: [RemoteInstrument] }
    struct ErrorBody: Decodable {
        struct Detail: Decodable { var code: String; var message: String }
        var error: Detail
    }

    /// The path of a customer's resources, with the customer id percent-encoded as one segment.
    func customerPath(_ scope: VaultScope) -> String {
        "/v1/customers/" + Self.percentEncoded(scope.customerId)
    }

    /// `text` with every byte but the unreserved ones (`A-Z a-z 0-9 - . _ ~`) percent-encoded.
    static func percentEncoded(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F, 0x7E:
                out.append(byte)
            default:
                out += [0x25, hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// One exchange with the scope's credentials, after the merchant binding check (see
    /// `identity(scope:)`). With ephemeral keys, a `key-expired` or `key-revoked` answer gets the
    /// provider asked once for a new key and the request sent once more: a 401 applied nothing,
    /// so nothing is lost or applied twice.
    private func send(_ scope: VaultScope, method: String, path: String, body: [UInt8]?) async throws -> [UInt8] {
        try await withAuthorization(scope) { authorization in
            try await boundExchange(scope, method: method, path: path, body: body, authorization: authorization)
        }
    }

    /// Runs `operation` with the scope's `Authorization` value. With ephemeral keys, a
    /// `key-expired` or `key-revoked` answer gets the provider asked once for a new key and
    /// `operation` run once more with it.
    func withAuthorization<T: Sendable>(_ scope: VaultScope, _ operation: (String) async throws -> T) async throws -> T {
        switch credentials {
        case .apiKey(let authorization):
            return try await operation(authorization)
        case .ephemeral(let cache):
            let key = try await cache.key(for: scope)
            do {
                return try await operation("Bearer \(key.secret)")
            } catch RemoteVaultError.keyExpired, RemoteVaultError.keyRevoked {
                let fresh = try await cache.key(for: scope, refused: key.secret)
                return try await operation("Bearer \(fresh.secret)")
            } catch RemoteVaultError.unauthorized {
                // The server does not know the key at all (forgotten after expiry, a new vault):
                // not retried now, but the next round asks the provider for a new one.
                cache.forget(key.secret, for: scope)
                throw RemoteVaultError.unauthorized
            }
        }
    }

    /// One request. libcurl may resend a request once after a stale kept-alive connection: GETs
    /// are idempotent by nature, and so is the ops POST, because every op carries its id as
    /// idempotency key (a replay is answered from the server's op log).
    func exchange(method: String, path: String, body: [UInt8]?, authorization: String) async throws -> [UInt8] {
        var headers = [HTTPHeaderField(name: "Authorization", value: authorization),
                       HTTPHeaderField(name: "Accept", value: "application/json")]
        if body != nil { headers.append(HTTPHeaderField(name: "Content-Type", value: "application/json")) }
        let response: HTTPResponse
        do {
            response = try await transport.send(HTTPRequest(method: method, path: path, headers: headers, body: body))
        } catch {
            if error.isCertificateProblem { throw RemoteVaultError.untrustedServer(reason: error.message) }
            if error.isLocalConfigurationProblem { throw RemoteVaultError.misconfigured(reason: error.message) }
            if error.code == .cancelled { throw CancellationError() }
            throw error.isMalformedResponse ? RemoteVaultError.malformedResponse(reason: error.message)
                                            : RemoteVaultError.unreachable(reason: error.message)
        }
        switch response.status {
        case 200..<300:
            return response.body
        case 401:
            switch (try? JSONReader.decode(ErrorBody.self, from: response.body))?.error.code {
            case "key-expired": throw RemoteVaultError.keyExpired
            case "key-revoked": throw RemoteVaultError.keyRevoked
            default: throw RemoteVaultError.unauthorized
            }
        case 410:
            throw RemoteVaultError.cursorExpired
        default:
            let detail = try? JSONReader.decode(ErrorBody.self, from: response.body)
            let retryAfter = response.header("Retry-After")
                .flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
                .map { max(0, $0) }
            // The error body is the server's text: never keep a card number in it (dump and Mirror show it raw).
            throw RemoteVaultError.httpStatus(status: response.status,
                                              code: detail.map { PaymentDataRedactor.redact($0.error.code) },
                                              message: detail.map { PaymentDataRedactor.redact($0.error.message) },
                                              retryAfterSeconds: retryAfter)
        }
    }

    /// Decodes an answer's body; what is not `T` is `malformedResponse`, with the reason.
    static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        do {
            return try JSONReader.decode(type, from: bytes)
        } catch {
            throw RemoteVaultError.malformedResponse(reason: DecodingErrorDescription.describe(error))
        }
    }
}
