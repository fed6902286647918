import CheckoutCore
import CheckoutCoreTesting
import CheckoutTestSupport
import CheckoutVault
import CheckoutVaultTesting
import Foundation
import HTTPTransport
import TLSTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import CheckoutLocking
import Synchronization
import Testing
@testable import VaultServer
import VaultServerPostgres

/// Builders for instruments and scopes.
enum Fixture {
    static let merchant = "merchant_a"

    static func card(_ id: String, last4: String = "4242", isDefault: Bool = false, name: String? = nil) -> VaultedPaymentMethod {
        VaultedPaymentMethod(id: id, paymentMethodType: .paymentCard, paymentInstrumentType: .paymentCard,
                             paymentInstrumentData: PaymentInstrumentData(network: .visa, first6Digits: "424242",
                                                                         last4Digits: last4, expirationMonth: 12,
                                                                         expirationYear: 2030, cardholderName: name),
                             analyticsId: "analytics-\(id)", isDefault: isDefault)
    }

    /// A saved PayPal billing agreement: no card fields, the payer's account instead.
    static func payPalAgreement(_ id: String, email: String? = "alex.jansen@example.com") -> VaultedPaymentMethod {
        VaultedPaymentMethod(id: id, paymentMethodType: "PAYPAL", paymentInstrumentType: .payPalBillingAgreement,
                             paymentInstrumentData: PaymentInstrumentData(externalPayerInfo: ExternalPayerInfo(
                                 externalPayerId: "PAYER-7Q2W9", email: email, firstName: "Alex", lastName: "Jansen")),
                             analyticsId: "analytics-\(id)")
    }

    static func scope(_ customer: String = "cus_1") -> VaultScope {
        VaultScope(merchantId: merchant, customerId: customer)
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
}

/// A temporary directory for store files, removed when the value goes away.
final class TestDirectory: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("sync-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// A new store ("device") in this directory.
    func store(_ name: String) throws -> VaultStore { try VaultStore(path: path(name + ".sqlite")) }
}

/// Server-side time that tests move by hand (tombstone retention, rate limits).
final class ServerTime: Sendable {
    private let millis = Locked<Int64>(1_800_000_000_000)
    var now: Int64 { millis.withLock { $0 } }
    func advance(seconds: Double) { millis.withLock { $0 += Int64(seconds * 1000) } }
    var serverClock: WallClock { WallClock { [self] in now } }
}

/// Counts the transactions and reads a `VaultServerStorage` runs: about one per authenticated API request.
final class CountingStorage: VaultServerStorage {
    let inner: any VaultServerStorage
    let counter: Atomic<Int>

    init(_ inner: any VaultServerStorage) {
        self.inner = inner
        self.counter = Atomic(0)
    }

    /// Read snapshots only. The server's background purge (`ExpiryPurger`, every minute) runs
    /// transactions, never reads, so a count of reads cannot be moved by it on a slow run.
    let reads = Atomic<Int>(0)

    var count: Int { counter.load(ordering: .sequentiallyConsistent) }

    func transaction<T: Sendable>(_ body: (any VaultStorageTransaction) throws -> T) throws -> T {
        counter.add(1, ordering: .sequentiallyConsistent)
        return try inner.transaction(body)
    }

    func read<T: Sendable>(_ body: (any VaultStorageTransaction) throws -> T) throws -> T {
        counter.add(1, ordering: .sequentiallyConsistent)
        reads.add(1, ordering: .sequentiallyConsistent)
        return try inner.read(body)
    }
}

/// A real `VaultServer` on a loopback port with an SQLite file, restartable on the same port and file.
final class LoopbackVaultServer: Sendable {
    static let keyA = "sync-test-key-merchant-a-\(UUID().uuidString)"
    static let keyB = "sync-test-key-merchant-b-\(UUID().uuidString)"

    let databasePath: String
    let port: Int
    let baseURL: URL
    let configuration: VaultServerConfiguration
    let time: ServerTime
    private let running = Locked<(server: VaultServer, storage: CountingStorage)?>(nil)
    private let previousCount = Atomic<Int>(0)
    /// The PostgreSQL schema the server stores into (nil: SQLite at `databasePath`).
    let postgres: PostgresTestSchema?

    init(retentionSeconds: Double = 3600, limits: VaultServerConfiguration.Limits = .init(), time: ServerTime = ServerTime(),
         tls: VaultServerConfiguration.TLS? = nil, onPostgres: Bool = false) throws {
        databasePath = FileManager.default.temporaryDirectory.appendingPathComponent("sync-server-\(UUID().uuidString).sqlite").path
        self.time = time
        var configuration = VaultServerConfiguration(
            listen: .init(host: "127.0.0.1", port: 0),
            apiKeys: [Self.keyA: Fixture.merchant, Self.keyB: "merchant_b"],
            tombstoneRetentionSeconds: retentionSeconds, limits: limits, threads: 4, tls: tls)
        postgres = onPostgres ? try PostgresTestSchema() : nil
        let storage = CountingStorage(try postgres.map { try $0.storage() as any VaultServerStorage }
                                      ?? SQLiteVaultServerStorage(path: databasePath))
        let server = VaultServer(configuration: configuration, storage: storage, clock: time.serverClock)
        port = try server.start()
        configuration.listen.port = port
        self.configuration = configuration
        guard let url = URL(string: "\(tls == nil ? "http" : "https")://127.0.0.1:\(port)") else { throw VaultServerStartError("bad URL") }
        baseURL = url
        running.withLock { $0 = (server, storage) }
    }

    deinit {
        stop()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: databasePath + suffix) }
    }

    /// Runs the server's background purge now, at the server's time: tombstones and op records
    /// past their retention go, as `ExpiryPurger` removes them between requests.
    func purgeExpiredNow() throws {
        guard let storage = running.withLock({ $0?.storage }) else { return }
        let retention = Int64((configuration.tombstoneRetentionSeconds * 1000).rounded())
        let opRetention = Int64((configuration.effectiveOpRecordRetentionSeconds * 1000).rounded())
        try VaultService(storage: storage, retentionMillis: retention, opRetentionMillis: opRetention).purgeExpired(now: time.now)
    }

    /// Read snapshots taken by the running server (requests that only read: the change feed, lists).
    var readCount: Int { running.withLock { $0?.storage.reads.load(ordering: .sequentiallyConsistent) } ?? 0 }

    /// Authenticated requests served so far (over restarts).
    var requestCount: Int {
        previousCount.load(ordering: .sequentiallyConsistent) + (running.withLock { $0?.storage.count } ?? 0)
    }

    /// Stops listening at once (connections are closed).
    func stop() {
        let current = running.withLock { running in
            defer { running = nil }
            return running
        }
        guard let current else { return }
        current.server.stop()
        previousCount.add(current.storage.count, ordering: .sequentiallyConsistent)
    }

    /// Starts a new server process-equivalent on the same port and database file.
    func restart() throws {
        stop()
        let storage = CountingStorage(try SQLiteVaultServerStorage(path: databasePath))
        let server = VaultServer(configuration: configuration, storage: storage, clock: time.serverClock)
        try server.start()
        running.withLock { $0 = (server, storage) }
    }

    /// A client authenticated as merchant A (or with `apiKey`). Its timeouts are generous: these
    /// tests are not about timeouts, and a sanitized run on a loaded machine can take tens of
    /// seconds for one exchange, which must not turn into a retry the test did not ask for.
    func remote(apiKey: String = keyA, idleTimeout: TimeInterval = 30, tls: TLSOptions = TLSOptions()) -> HTTPRemoteVault {
        HTTPRemoteVault(baseURL: baseURL, apiKey: apiKey, timeout: 120, resourceTimeout: 240, idleTimeout: idleTimeout, tls: tls)
    }

    /// The raw body of `GET path` as merchant A (to measure what a request transfers).
    func rawGet(_ path: String) async throws -> [UInt8] {
        let transport = HTTPTransport(baseURL: baseURL, configuration: HTTPTransportConfiguration(timeout: 120, exchangeTimeout: 240))
        let response = try await transport.send(HTTPRequest(method: "GET", path: path,
                                                            headers: [HTTPHeaderField(name: "Authorization", value: "Bearer \(Self.keyA)")]))
        #expect(response.status == 200)
        return response.body
    }
}

/// The two remotes the shared suites run against.
enum RemoteKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case inMemory, server, serverOnPostgres
    var testDescription: String { rawValue }

    /// The double and the real server on SQLite: what most tests run against.
    static let doubleAndServer: [RemoteKind] = [.inMemory, .server]

    /// The contract suite's remotes: the double, the server on SQLite and, where PostgreSQL is
    /// configured (`scripts/with-postgres.sh`; CI requires it), the server on PostgreSQL.
    static let contract: [RemoteKind] = PostgresTestEnvironment.isConfigured ? allCases : doubleAndServer
}

/// The server's limits a harness can lower, set alike on the double and on the server.
struct RemoteLimits: Sendable {
    var maxPageSize = 1000
    var maxOpsPerBatch = 500
    var maxInstrumentsPerCustomer: Int?
    var maxFeedPageBytes: Int?
    var opRecordRetentionSeconds: Double?
    var maxTombstonesPerCustomer: Int?
    var maxOpRecordsPerCustomer: Int?
    var customerWriteOpsBurst: Int?
    var customerWriteOpsPerHour: Double?

    var memory: InMemoryRemoteVault.Limits {
        let defaults = InMemoryRemoteVault.Limits()
        return InMemoryRemoteVault.Limits(
            maxPageSize: maxPageSize, maxOpsPerBatch: maxOpsPerBatch,
            maxInstrumentsPerCustomer: maxInstrumentsPerCustomer ?? defaults.maxInstrumentsPerCustomer,
            maxFeedPageBytes: maxFeedPageBytes ?? defaults.maxFeedPageBytes,
            maxTombstonesPerCustomer: maxTombstonesPerCustomer ?? defaults.maxTombstonesPerCustomer,
            maxOpRecordsPerCustomer: maxOpRecordsPerCustomer ?? defaults.maxOpRecordsPerCustomer,
            customerWriteOpsBurst: customerWriteOpsBurst ?? defaults.customerWriteOpsBurst,
            customerWriteOpsPerHour: customerWriteOpsPerHour ?? defaults.customerWriteOpsPerHour)
    }

    var server: VaultServerConfiguration.Limits {
        .init(maxPageSize: maxPageSize, defaultPageSize: min(200, maxPageSize), maxOpsPerBatch: maxOpsPerBatch,
              maxInstrumentsPerCustomer: maxInstrumentsPerCustomer, maxFeedPageBytes: maxFeedPageBytes,
              customerWriteOpsPerHour: customerWriteOpsPerHour, customerWriteOpsBurst: customerWriteOpsBurst,
              opRecordRetentionSeconds: opRecordRetentionSeconds, maxTombstonesPerCustomer: maxTombstonesPerCustomer,
              maxOpRecordsPerCustomer: maxOpRecordsPerCustomer)
    }
}

/// One remote vault for a test: the in-memory double or the real server over HTTP, with a
/// request counter and a server clock the test controls.
final class RemoteHarness: Sendable {
    let kind: RemoteKind
    let time: ServerTime
    let memory: InMemoryRemoteVault?
    let server: LoopbackVaultServer?
    let remote: any RemoteVault

    convenience init(_ kind: RemoteKind, retentionSeconds: Double = 3600, maxPageSize: Int = 1000, maxOpsPerBatch: Int = 500) throws {
        try self.init(kind, retentionSeconds: retentionSeconds, limits: RemoteLimits(maxPageSize: maxPageSize, maxOpsPerBatch: maxOpsPerBatch))
    }

    init(_ kind: RemoteKind, retentionSeconds: Double = 3600, limits: RemoteLimits) throws {
        self.kind = kind
        let time = ServerTime()
        self.time = time
        switch kind {
        case .inMemory:
            let memory = InMemoryRemoteVault(merchantId: Fixture.merchant, limits: limits.memory,
                                             tombstoneRetention: .milliseconds(Int64(retentionSeconds * 1000)),
                                             opRecordRetention: .milliseconds(Int64((limits.opRecordRetentionSeconds ?? 7 * 24 * 3600) * 1000)),
                                             clock: time.serverClock)
            self.memory = memory
            self.server = nil
            self.remote = memory
        case .server, .serverOnPostgres:
            let server = try LoopbackVaultServer(retentionSeconds: retentionSeconds, limits: limits.server, time: time,
                                                 onPostgres: kind == .serverOnPostgres)
            self.memory = nil
            self.server = server
            self.remote = ServerBoundRemote(server: server, inner: server.remote())
        }
    }

    /// Lets the server's background purge run now (the double purges at every call already).
    func purgeExpired() throws {
        try server?.purgeExpiredNow()
    }

    /// Requests the vault has served (the in-memory log, or the server's storage transactions).
    var requestCount: Int { memory?.requestCount() ?? server?.requestCount ?? 0 }

    /// Requests the client sent (the in-memory log, or the HTTP client's own count): unlike the
    /// server's storage transactions, these never include the server's background purge, which
    /// runs a minute after start and so lands inside a test on a slow (sanitized, loaded) run.
    var clientRequestCount: Int {
        if let memory { return memory.requestCount() }
        return (remote as? ServerBoundRemote)?.inner.transportStatistics.requests ?? 0
    }

    /// The customer's live instruments as the server holds them (one request on the real server).
    func serverInstruments(_ scope: VaultScope) async throws -> [RemoteInstrument] {
        if let memory { return memory.snapshot(customerId: scope.customerId) }
        return try await remote.instruments(scope: scope)
    }
}

/// An `HTTPRemoteVault` that keeps its in-process server alive for as long as it is used.
struct ServerBoundRemote: RemoteVault {
    let server: LoopbackVaultServer
    let inner: HTTPRemoteVault

    func identity(scope: VaultScope) async throws -> VaultIdentity {
        try await inner.identity(scope: scope)
    }

    func changes(scope: VaultScope, cursor: String?, limit: Int) async throws -> ChangePage {
        try await inner.changes(scope: scope, cursor: cursor, limit: limit)
    }

    func push(scope: VaultScope, ops: [OutboundOp]) async throws -> [OpResult] {
        try await inner.push(scope: scope, ops: ops)
    }

    func instruments(scope: VaultScope) async throws -> [RemoteInstrument] {
        try await inner.instruments(scope: scope)
    }
}

/// Every change of the customer, paging through the whole feed.
func allChanges(_ remote: any RemoteVault, _ scope: VaultScope, limit: Int = 100) async throws -> [RemoteChange] {
    var cursor: String?
    var changes: [RemoteChange] = []
    while true {
        let page = try await remote.changes(scope: scope, cursor: cursor, limit: limit)
        changes += page.changes
        cursor = page.cursor
        if !page.hasMore { return changes }
    }
}

/// A `RemoteVault` decorator that can run a hook around push calls (stop the server, lose the answer).
final class HookedRemote: RemoteVault {
    /// What to do around a push, given its 1-based index.
    enum PushAction: Sendable {
        /// Forward normally.
        case forward
        /// Forward, then throw `unreachable` as if the answer was lost.
        case forwardThenLoseAnswer
    }

    let inner: any RemoteVault
    private let pushCount = Atomic<Int>(0)
    private let action: @Sendable (Int) -> PushAction
    private let afterPush: @Sendable (Int) -> Void

    init(_ inner: any RemoteVault, action: @escaping @Sendable (Int) -> PushAction = { _ in .forward },
         afterPush: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.inner = inner
        self.action = action
        self.afterPush = afterPush
    }

    var pushes: Int { pushCount.load(ordering: .sequentiallyConsistent) }

    func identity(scope: VaultScope) async throws -> VaultIdentity {
        try await inner.identity(scope: scope)
    }

    func changes(scope: VaultScope, cursor: String?, limit: Int) async throws -> ChangePage {
        try await inner.changes(scope: scope, cursor: cursor, limit: limit)
    }

    func push(scope: VaultScope, ops: [OutboundOp]) async throws -> [OpResult] {
        let index = pushCount.add(1, ordering: .sequentiallyConsistent).newValue
        let results = try await inner.push(scope: scope, ops: ops)
        afterPush(index)
        if case .forwardThenLoseAnswer = action(index) {
            throw RemoteVaultError.unreachable(reason: "connection lost after the request was sent")
        }
        return results
    }

    func instruments(scope: VaultScope) async throws -> [RemoteInstrument] {
        try await inner.instruments(scope: scope)
    }
}

/// Collects values of an `AsyncStream` in the background for later assertions.
final class StreamRecorder<Value: Sendable>: Sendable {
    private let values = Locked<[Value]>([])
    private let task = Locked<Task<Void, Never>?>(nil)

    init(_ stream: AsyncStream<Value>) {
        let task = Task { [weak self] in
            for await value in stream { self?.values.withLock { $0.append(value) } }
        }
        self.task.withLock { $0 = task }
    }

    deinit { task.withLock { $0?.cancel() } }

    var all: [Value] { values.withLock { $0 } }

    /// Waits (through the one bounded `eventually`) until `predicate` holds for the recorded values.
    func waitUntil(_ predicate: ([Value]) -> Bool) async -> Bool {
        await eventually { predicate(all) }
    }
}

extension SyncEngine {
    /// An engine for one customer over `remote`, with a manual clock and a fixed jitter seed.
    static func testing(_ store: VaultStore, _ remote: any RemoteVault, scope: VaultScope? = nil,
                        clock: TestClock = TestClock(), pageSize: Int = 200, pushBatchSize: Int = 100,
                        interval: Duration? = nil, retry: RetryPolicy = .standard) -> SyncEngine {
        SyncEngine(store: store, remote: remote,
                   configuration: .init(scopes: scope.map { [$0] } ?? [], includePendingScopes: true, pageSize: pageSize,
                                        pushBatchSize: pushBatchSize, interval: interval, retry: retry,
                                        randomSeed: TestSeed.derived(42)),
                   clock: clock, wallClock: clock.wallClock)
    }
}

extension Task where Failure == any Error {
    /// The task's value; cancelling the waiting test cancels the task too. A test over its time
    /// limit is cancelled, and awaiting `value` alone would keep it waiting for a round parked on
    /// a clock nobody advances: this way it ends and fails instead of hanging the run.
    var cancellableValue: Success {
        get async throws {
            try await withTaskCancellationHandler { try await value } onCancel: { cancel() }
        }
    }
}

extension TestPKI {
    /// The vault server's TLS settings for certificate `name`.
    func tls(_ name: String) -> VaultServerConfiguration.TLS {
        let pair = pair(name)
        return VaultServerConfiguration.TLS(certificate: pair.certificate, privateKey: pair.privateKey)
    }
}
