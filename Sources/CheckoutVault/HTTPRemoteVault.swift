import CheckoutCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `RemoteVault` that talks to `vault-server` over HTTP with `URLSession`.
///
/// One long-lived session per instance (create one per process and share it): connections are
/// reused across sync rounds. Responses are decoded strictly; anything that is not the promised
/// JSON becomes `RemoteVaultError.malformedResponse` and nothing of it is returned. The API key
/// is never included in errors or descriptions.
public final class HTTPRemoteVault: RemoteVault, CustomStringConvertible {
    private let baseURL: URL
    private let authorization: String
    private let session: URLSession
    private let requestTimeout: TimeInterval

    /// Creates a client for the server at `baseURL` (e.g. `http://127.0.0.1:8080`), authenticating
    /// with `apiKey`. `timeout` bounds each request; `resourceTimeout` bounds a request's retries.
    public init(baseURL: URL, apiKey: String, timeout: TimeInterval = 15, resourceTimeout: TimeInterval = 60) {
        self.baseURL = baseURL
        self.authorization = "Bearer \(apiKey)"
        self.requestTimeout = timeout
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = resourceTimeout
        configuration.httpMaximumConnectionsPerHost = 8
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        self.session = URLSession(configuration: configuration)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// A one-line explanation, safe to log.
    public var description: String { "HTTPRemoteVault(\(baseURL.absoluteString))" }

    /// Fetches one page of the change feed (`GET /v1/customers/{customer}/changes`).
    public func changes(scope: VaultScope, cursor: String?, limit: Int) async throws -> ChangePage {
        var query = [URLQueryItem(name: "limit", value: String(limit))]
        if let cursor { query.append(URLQueryItem(name: "cursor", value: cursor)) }
        let data = try await send(method: "GET", path: customerPath(scope) + "/changes", query: query, body: nil)
        // Fast path: a hand-written strict reader; anything it does not take goes through JSONDecoder.
        if let page = try? WireJSON.scan(data, WireJSON.changePage) { return page }
        return try decode(ChangePage.self, from: data)
    }

    /// Sends a batch (`POST /v1/customers/{customer}/ops`); the results match the ops one to one.
    public func push(scope: VaultScope, ops: [OutboundOp]) async throws -> [OpResult] {
        let body = WireJSON.opsRequest(ops)
        let data = try await send(method: "POST", path: customerPath(scope) + "/ops", query: [], body: body)
        let results: [OpResult]
        if let fast = try? WireJSON.scan(data, WireJSON.opResults) {
            results = fast
        } else {
            results = try decode(OpsResponseBody.self, from: data).results
        }
        guard results.map(\.opId) == ops.map(\.opId) else {
            throw RemoteVaultError.malformedResponse(reason: "the results do not match the ops sent")
        }
        return results
    }

    /// Lists live instruments (`GET /v1/customers/{customer}/instruments`).
    public func instruments(scope: VaultScope) async throws -> [RemoteInstrument] {
        let data = try await send(method: "GET", path: customerPath(scope) + "/instruments", query: [], body: nil)
        return try decode(InstrumentsResponseBody.self, from: data).instruments
    }

    // MARK: - Transport

    private struct OpsResponseBody: Decodable { var results: [OpResult] }
    private struct InstrumentsResponseBody: Decodable { var instruments: [RemoteInstrument] }
    private struct ErrorBody: Decodable {
        struct Detail: Decodable { var code: String; var message: String }
        var error: Detail
    }

    /// The path of a customer's resources, with the customer id percent-encoded as one segment.
    private func customerPath(_ scope: VaultScope) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let segment = scope.customerId.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
        return "/v1/customers/\(segment)"
    }

    private func send(method: String, path: String, query: [URLQueryItem], body: Data?) async throws -> Data {
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) else {
            throw RemoteVaultError.unreachable(reason: "invalid server URL")
        }
        let basePath = components.percentEncodedPath.hasSuffix("/")
            ? String(components.percentEncodedPath.dropLast()) : components.percentEncodedPath
        components.percentEncodedPath = basePath + path
        components.queryItems = query.isEmpty ? nil : query
        guard let url = components.url else { throw RemoteVaultError.unreachable(reason: "invalid server URL") }
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: requestTimeout)
        request.httpMethod = method
        request.setValue(authorization, forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch let error as URLError {
            throw RemoteVaultError.unreachable(reason: "\(error.code.rawValue) \(error.localizedDescription)")
        } catch {
            throw RemoteVaultError.unreachable(reason: String(describing: type(of: error)))
        }
        guard let http = response as? HTTPURLResponse else {
            throw RemoteVaultError.malformedResponse(reason: "not an HTTP response")
        }
        switch http.statusCode {
        case 200..<300:
            return data
        case 401:
            throw RemoteVaultError.unauthorized
        case 410:
            throw RemoteVaultError.cursorExpired
        default:
            let detail = try? JSONDecoder().decode(ErrorBody.self, from: data)
            let retryAfter = (http.value(forHTTPHeaderField: "Retry-After"))
                .flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
                .map { max(0, $0) }
            // The error body is the server's text: never keep a card number in it (dump and Mirror show it raw).
            throw RemoteVaultError.httpStatus(status: http.statusCode,
                                              code: detail.map { PaymentDataRedactor.redact($0.error.code) },
                                              message: detail.map { PaymentDataRedactor.redact($0.error.message) },
                                              retryAfterSeconds: retryAfter)
        }
    }

    private func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let error as DecodingError {
            throw RemoteVaultError.malformedResponse(reason: DecodingErrorDescription.describe(error))
        } catch {
            throw RemoteVaultError.malformedResponse(reason: "not valid JSON")
        }
    }
}
