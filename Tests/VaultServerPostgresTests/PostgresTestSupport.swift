import CheckoutCore
import CheckoutVault
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing
import VaultServer
@testable import VaultServerPostgres

/// Where the PostgreSQL tests find their server: `CHECKOUTKIT_POSTGRES_URL`, exported by
/// `scripts/with-postgres.sh`. Unset means every PostgreSQL suite is skipped, and says so.
enum PostgresTestEnvironment {
    /// The environment variable naming the test database.
    static let variable = "CHECKOUTKIT_POSTGRES_URL"

    /// The database URL, or nil when the variable is unset or empty.
    static let url: String? = {
        guard let value = ProcessInfo.processInfo.environment[variable], !value.isEmpty else { return nil }
        return value
    }()

    /// True when the PostgreSQL suites can run.
    static var isConfigured: Bool { url != nil }

    /// What the skipped suites report.
    static let skipMessage = "PostgreSQL tests skipped: CHECKOUTKIT_POSTGRES_URL not set "
        + "(run them with: scripts/with-postgres.sh swift test)"

    /// The configured URL, or a thrown error for a suite that was enabled without one.
    static func requireURL() throws -> String {
        guard let url else { throw PostgresError(.invalidURL, message: skipMessage) }
        return url
    }
}

/// A fresh PostgreSQL schema for one test, dropped when the last user lets go of it.
///
/// Tests share one database; each gets its own schema through libpq's `options=-csearch_path=`,
/// so tables, the change sequence and the migration record start empty for every test.
final class PostgresTestSchema: Sendable {
    /// The schema's name (`ck_` + random hex).
    let name: String
    /// The database URL with the schema as search path.
    let url: String
    private let baseURL: String

    init() throws {
        baseURL = try PostgresTestEnvironment.requireURL()
        name = "ck_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        let separator = baseURL.contains("?") ? "&" : "?"
        url = baseURL + separator + "options=-csearch_path%3D" + name
        let admin = try PostgresConnection(url: baseURL)
        try admin.execute("CREATE SCHEMA \(name)")
    }

    deinit {
        if let admin = try? PostgresConnection(url: baseURL) {
            _ = try? admin.execute("DROP SCHEMA IF EXISTS \(name) CASCADE")
        }
    }

    /// A connection on the schema, for assertions on the stored rows.
    func connect() throws -> PostgresConnection { try PostgresConnection(url: url) }

    /// A storage on the schema (migrating it on first use).
    func storage(poolSize: Int = 4) throws -> PostgresVaultServerStorage {
        try PostgresVaultServerStorage(url: url, options: .init(poolSize: poolSize))
    }
}

/// A clock the test moves by hand (as in VaultServerTests).
final class ManualClock: Sendable {
    private let now = Mutex<Int64>(1_800_000_000_000)
    var clock: VaultServerClock { VaultServerClock { [self] in now.withLock { $0 } } }
    func advance(seconds: Double) { now.withLock { $0 += Int64(seconds * 1000) } }
}

/// A raw HTTP answer (as in VaultServerTests).
struct RawResponse: Sendable {
    var status: Int
    var headers: [String: String]
    var body: Data
    var text: String { String(decoding: body, as: UTF8.self) }
    /// The `error.code` of an error body, if any.
    var errorCode: String? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
              let error = object["error"] as? [String: Any] else { return nil }
        return error["code"] as? String
    }
}

/// A real `VaultServer` on a free loopback port over a PostgreSQL storage: the PostgreSQL twin
/// of VaultServerTests' `TestServer`. Several of them on one schema are several instances of one
/// vault.
final class PostgresTestServer: Sendable {
    static let keyA = "key-merchant-a-0123456789"
    static let keyB = "key-merchant-b-9876543210"

    let server: VaultServer
    let storage: PostgresVaultServerStorage
    let schema: PostgresTestSchema
    let baseURL: URL
    private let session: URLSession

    init(schema: PostgresTestSchema? = nil, limits: VaultServerConfiguration.Limits = .init(),
         retentionSeconds: Double = 3600, clock: VaultServerClock = .system) throws {
        self.schema = try schema ?? PostgresTestSchema()
        storage = try self.schema.storage()
        let configuration = VaultServerConfiguration(
            listen: .init(host: "127.0.0.1", port: 0),
            apiKeys: [Self.keyA: "merchant_a", Self.keyB: "merchant_b"],
            tombstoneRetentionSeconds: retentionSeconds, limits: limits, threads: 4)
        server = VaultServer(configuration: configuration, storage: storage, clock: clock)
        let port = try server.start()
        guard let url = URL(string: "http://127.0.0.1:\(port)") else { throw VaultServerStartError("bad URL") }
        baseURL = url
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.timeoutIntervalForRequest = 60
        session = URLSession(configuration: sessionConfiguration)
    }

    deinit {
        server.stop()
        session.finishTasksAndInvalidate()
        storage.closeIdleConnections()
    }

    /// An `HTTPRemoteVault` authenticated as merchant A (or with `apiKey`).
    func remote(apiKey: String = keyA) -> HTTPRemoteVault {
        HTTPRemoteVault(baseURL: baseURL, apiKey: apiKey, timeout: 60)
    }

    /// Sends a raw request; `authorization` nil sends none.
    func send(_ method: String, _ path: String, authorization: String? = "Bearer \(keyA)",
              body: Data? = nil) async throws -> RawResponse {
        guard let url = URL(string: baseURL.absoluteString + path) else { throw URLError(.badURL) }
        var request = URLRequest(url: url)
        request.httpMethod = method
        if let authorization { request.setValue(authorization, forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        return RawResponse(status: http.statusCode, headers: headers, body: data)
    }
}

/// Builders for test instruments and ops (as in VaultServerTests).
enum Fixture {
    static func card(_ id: String, last4: String = "4242", isDefault: Bool = false, name: String? = nil) -> VaultedPaymentMethod {
        VaultedPaymentMethod(id: id, paymentMethodType: .paymentCard, paymentInstrumentType: .paymentCard,
                             paymentInstrumentData: PaymentInstrumentData(network: .visa, first6Digits: "424242",
                                                                         last4Digits: last4, expirationMonth: 12,
                                                                         expirationYear: 2030, cardholderName: name),
                             analyticsId: "analytics-\(id)", isDefault: isDefault)
    }

    static func upsert(_ opId: String, _ method: VaultedPaymentMethod, base: Int64? = nil) -> OutboundOp {
        OutboundOp(opId: opId, kind: .upsert, instrumentId: method.id, baseVersion: base, method: method)
    }

    static func delete(_ opId: String, _ id: String, base: Int64? = nil) -> OutboundOp {
        OutboundOp(opId: opId, kind: .delete, instrumentId: id, baseVersion: base)
    }

    static func setDefault(_ opId: String, _ id: String, base: Int64? = nil) -> OutboundOp {
        OutboundOp(opId: opId, kind: .setDefault, instrumentId: id, baseVersion: base)
    }

    static func scope(_ customer: String, merchant: String = "merchant_a") -> VaultScope {
        VaultScope(merchantId: merchant, customerId: customer)
    }

    /// Every change of the customer, paging through the whole feed.
    static func allChanges(_ remote: HTTPRemoteVault, _ scope: VaultScope, limit: Int = 100) async throws -> [RemoteChange] {
        var cursor: String?
        var changes: [RemoteChange] = []
        while true {
            let page = try await remote.changes(scope: scope, cursor: cursor, limit: limit)
            changes += page.changes
            cursor = page.cursor
            if !page.hasMore { return changes }
        }
    }
}
