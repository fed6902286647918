import CheckoutCore
import CheckoutTestSupport
import CheckoutVault
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import CheckoutLocking
import Testing
@testable import VaultServer
@testable import VaultServerPostgres

/// The storages every applicable test runs against.
///
/// This file is also compiled into VaultServerPostgresTests (through a symbolic link there), so
/// both test targets start their servers the same way.
enum StorageKind: String, Sendable, CustomTestStringConvertible {
    case memory, sqlite, postgres
    var testDescription: String { rawValue }

    /// The kinds this run can test: PostgreSQL only when `CHECKOUTKIT_POSTGRES_URL` is set (the
    /// always-running `PostgresAvailabilityTests` reports the skip otherwise).
    static let available: [StorageKind] = PostgresTestEnvironment.isConfigured ? [.memory, .sqlite, .postgres]
                                                                               : [.memory, .sqlite]
}

/// A storage wrapper that can hold an op apply open until the test releases it.
///
/// The gate is the first `opRecord` lookup of a transaction (the start of an op batch's apply),
/// not merely the next transaction: the server's background purge runs transactions of its own
/// (`ExpiryPurger`, every minute), and a gate taken by one of them would let the push under test
/// through ungated on a slow run.
final class GatedStorage: VaultServerStorage {
    private let inner: any VaultServerStorage
    private let armed = Locked(false)
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)

    init(_ inner: any VaultServerStorage) { self.inner = inner }

    /// The next op apply signals `entered` and waits for `release`.
    func arm() { armed.withLock { $0 = true } }

    func transaction<T: Sendable>(_ body: (any VaultStorageTransaction) throws -> T) throws -> T {
        try inner.transaction { tx in try body(GatedTransaction(inner: tx, storage: self)) }
    }

    func read<T: Sendable>(_ body: (any VaultStorageTransaction) throws -> T) throws -> T {
        try inner.read(body)
    }

    /// Called at every op lookup: the first one after `arm()` holds its thread at the gate.
    fileprivate func opLookup() {
        let gate = armed.withLock { armed in defer { armed = false }; return armed }
        guard gate else { return }
        entered.signal()
        _ = release.waitBounded()  // a test that never releases fails on its own expectations
    }
}

/// A transaction that forwards every call, passing the gate of its `GatedStorage` at `opRecord`.
private struct GatedTransaction: VaultStorageTransaction {
    let inner: any VaultStorageTransaction
    let storage: GatedStorage

    func instrument(_ key: CustomerKey, id: String) throws -> InstrumentRecord? { try inner.instrument(key, id: id) }
    func liveInstruments(_ key: CustomerKey) throws -> [InstrumentRecord] { try inner.liveInstruments(key) }
    func changes(_ key: CustomerKey, after: Int64, limit: Int, maxBytes: Int) throws -> [InstrumentRecord] {
        try inner.changes(key, after: after, limit: limit, maxBytes: maxBytes)
    }
    func put(_ key: CustomerKey, _ instrument: InstrumentRecord) throws { try inner.put(key, instrument) }
    func nextSequence() throws -> Int64 { try inner.nextSequence() }
    func hasTombstones(_ key: CustomerKey, deletedAtOrBefore: Int64) throws -> Bool {
        try inner.hasTombstones(key, deletedAtOrBefore: deletedAtOrBefore)
    }
    func purgeHorizon(_ key: CustomerKey) throws -> Int64 { try inner.purgeHorizon(key) }
    func purgeTombstones(_ key: CustomerKey, deletedAtOrBefore: Int64) throws {
        try inner.purgeTombstones(key, deletedAtOrBefore: deletedAtOrBefore)
    }
    func tombstoneCutoff(_ key: CustomerKey, keeping: Int) throws -> Int64? { try inner.tombstoneCutoff(key, keeping: keeping) }
    func opRecordCutoff(_ key: CustomerKey, keeping: Int) throws -> Int64? { try inner.opRecordCutoff(key, keeping: keeping) }
    func purgeOpRecords(_ key: CustomerKey, createdAtOrBefore: Int64) throws {
        try inner.purgeOpRecords(key, createdAtOrBefore: createdAtOrBefore)
    }
    func purgeExpired(tombstonesDeletedAtOrBefore: Int64, opsCreatedAtOrBefore: Int64) throws {
        try inner.purgeExpired(tombstonesDeletedAtOrBefore: tombstonesDeletedAtOrBefore, opsCreatedAtOrBefore: opsCreatedAtOrBefore)
    }
    func opRecord(_ key: CustomerKey, opId: String) throws -> StoredOpRecord? {
        storage.opLookup()
        return try inner.opRecord(key, opId: opId)
    }
    func putOpRecord(_ key: CustomerKey, _ record: StoredOpRecord) throws { try inner.putOpRecord(key, record) }
    func cursorSecret() throws -> [UInt8] { try inner.cursorSecret() }
    func insertEphemeralKey(_ record: EphemeralKeyRecord) throws { try inner.insertEphemeralKey(record) }
    func ephemeralKey(secretHash: String) throws -> EphemeralKeyRecord? { try inner.ephemeralKey(secretHash: secretHash) }
    func revokeEphemeralKey(merchant: String, id: String, at: Int64) throws -> Bool {
        try inner.revokeEphemeralKey(merchant: merchant, id: id, at: at)
    }
    func purgeEphemeralKeys(merchant: String, expiredAtOrBefore: Int64) throws {
        try inner.purgeEphemeralKeys(merchant: merchant, expiredAtOrBefore: expiredAtOrBefore)
    }
}

/// A raw HTTP answer.
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

/// A real `VaultServer` on a free loopback port, with clients for it.
final class TestServer: Sendable {
    static let keyA = "key-merchant-a-\(UUID().uuidString)"
    static let keyB = "key-merchant-b-\(UUID().uuidString)"

    let server: VaultServer
    let storage: any VaultServerStorage
    let baseURL: URL
    let databasePath: String?
    /// The PostgreSQL schema of a `.postgres` server (shared by servers started on it).
    let schema: PostgresTestSchema?
    private let postgres: PostgresVaultServerStorage?
    private let session: URLSession

    /// The API keys every test server accepts unless a test names its own.
    static let defaultAPIKeys = [keyA: "merchant_a", keyB: "merchant_b"]

    /// Starts a server on `kind`; a `.postgres` server gets a fresh schema, or `schema` to be
    /// another instance of the same vault.
    init(_ kind: StorageKind, schema: PostgresTestSchema? = nil, limits: VaultServerConfiguration.Limits = .init(),
         retentionSeconds: Double = 3600, clock: WallClock = .system, sleepClock: any Clock<Duration> = ContinuousClock(),
         apiKeys: [String: String] = defaultAPIKeys, trustedProxies: [String]? = nil,
         log: VaultServerLog = .standardError, wrap: (any VaultServerStorage) -> any VaultServerStorage = { $0 }) throws {
        let inner: any VaultServerStorage
        switch kind {
        case .memory:
            inner = InMemoryVaultServerStorage()
            databasePath = nil
            self.schema = nil
            postgres = nil
        case .sqlite:
            let path = FileManager.default.temporaryDirectory
                .appendingPathComponent("vault-server-test-\(UUID().uuidString).sqlite").path
            inner = try SQLiteVaultServerStorage(path: path)
            databasePath = path
            self.schema = nil
            postgres = nil
        case .postgres:
            let schema = try schema ?? PostgresTestSchema()
            let storage = try schema.storage()
            inner = storage
            databasePath = nil
            self.schema = schema
            postgres = storage
        }
        storage = wrap(inner)
        let configuration = VaultServerConfiguration(
            listen: .init(host: "127.0.0.1", port: 0),
            apiKeys: apiKeys,
            tombstoneRetentionSeconds: retentionSeconds, limits: limits, threads: 4, trustedProxies: trustedProxies)
        server = VaultServer(configuration: configuration, storage: storage, clock: clock, sleepClock: sleepClock, log: log)
        let port = try server.start()
        guard let url = URL(string: "http://127.0.0.1:\(port)") else { throw VaultServerStartError("bad URL") }
        baseURL = url
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.timeoutIntervalForRequest = 120
        session = URLSession(configuration: sessionConfiguration)
    }

    /// The bound port, for raw-socket tests.
    var port: UInt16 { UInt16(baseURL.port ?? 0) }

    deinit {
        // A request held at a gate would keep the stop below joining its worker: whatever the
        // test did, the gate opens first.
        (storage as? GatedStorage)?.release.signal()
        server.stop()
        session.finishTasksAndInvalidate()
        postgres?.closeIdleConnections()
        if let databasePath {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: databasePath + suffix) }
        }
    }

    /// An `HTTPRemoteVault` authenticated as merchant A (or with `apiKey`). Its timeouts are
    /// generous: these tests are not about timeouts, and under the sanitizer on a loaded machine
    /// hundreds of parallel requests can queue for the client's connections for over a minute.
    func remote(apiKey: String = keyA) -> HTTPRemoteVault {
        HTTPRemoteVault(baseURL: baseURL, apiKey: apiKey, timeout: 120, resourceTimeout: 300)
    }

    /// Sends a raw request; `authorization` nil sends none.
    func send(_ method: String, _ path: String, authorization: String? = "Bearer \(keyA)",
              body: Data? = nil) async throws -> RawResponse {
        guard let url = URL(string: baseURL.absoluteString + path) else { throw URLError(.badURL) }
        var request = URLRequest(url: url)
        request.httpMethod = method
        // Each raw request on a connection of its own: the server closes a kept-alive connection
        // after its idle timeout (30 s), and URLSession, which has no idle limit of its own, may
        // reuse one just as it closes ("Broken pipe", "Empty reply from server" in slow runs).
        // The product's client (HTTPTransport) closes idle connections before the server does.
        request.setValue("close", forHTTPHeaderField: "Connection")
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

/// Builders for test instruments and ops.
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

/// An ephemeral customer key as `POST /v1/customers/{customer}/ephemeral-keys` answered it.
struct MintedKey: Sendable {
    var id: String
    var secret: String
    var customer: String
    var expiresAt: String
    var expiresAtEpochSeconds: Int64
    var scope: String
    /// The `Authorization` header a device sends with this key.
    var authorization: String { "Bearer \(secret)" }
}

extension RawResponse {
    /// The body as a JSON object, or nil.
    var object: [String: Any]? { try? JSONSerialization.jsonObject(with: body) as? [String: Any] }
}

extension TestServer {
    /// The body of a mint request naming `ttlSeconds` and `scope` when given.
    static func mintBody(ttlSeconds: Int? = nil, scope: String? = nil) -> Data {
        var fields: [String] = []
        if let ttlSeconds { fields.append(#""ttlSeconds":\#(ttlSeconds)"#) }
        if let scope { fields.append(#""scope":"\#(scope)""#) }
        return Data("{\(fields.joined(separator: ","))}".utf8)
    }

    /// Mints an ephemeral key for `customer` with a merchant API key; fails the test unless the
    /// server answers 201 with the documented shape.
    func mintKey(customer: String = "c1", ttlSeconds: Int? = nil, scope: String? = nil,
                 apiKey: String = keyA) async throws -> MintedKey {
        let response = try await send("POST", "/v1/customers/\(customer)/ephemeral-keys", authorization: "Bearer \(apiKey)",
                                      body: Self.mintBody(ttlSeconds: ttlSeconds, scope: scope))
        try #require(response.status == 201, "mint answered \(response.status): \(response.text)")
        let object = try #require(response.object, "mint answered \(response.text)")
        return MintedKey(id: try #require(object["id"] as? String), secret: try #require(object["secret"] as? String),
                         customer: try #require(object["customer"] as? String),
                         expiresAt: try #require(object["expiresAt"] as? String),
                         expiresAtEpochSeconds: try #require((object["expiresAtEpochSeconds"] as? NSNumber)?.int64Value),
                         scope: try #require(object["scope"] as? String))
    }
}
