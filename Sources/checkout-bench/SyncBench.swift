import CheckoutKit
import HTTPTransport
import Foundation

/// Sync against the real vault server on loopback: the initial pull of many instruments into a
/// local store, a push of queued ops, the cost of a sync with nothing to do, and the bytes a
/// 10-change delta puts on the wire after a full sync.
enum SyncBench {
    /// Published throughput of the best-known offline-sync engine, per client: quoted, not measured.
    static let publishedReference = "best-known offline-sync engine, published 2,000-20,000 ops/s per client; quoted, not measured here"

    static func run(_ options: BenchOptions) async throws -> [Figure] {
        let harness = try await VaultServerHarness(options, name: "sync")
        defer { harness.stop() }
        let tlsHarness = try await VaultServerHarness(options, name: "sync-tls", tls: true)
        defer { tlsHarness.stop() }
        let local = try ScratchDirectory("sync-client")
        defer { local.remove() }
        var databases = 0
        func freshStore() throws -> VaultStore {
            databases += 1
            return try VaultStore(path: local.url.appendingPathComponent("client\(databases).sqlite").path)
        }
        let merchant = VaultServerHarness.merchant
        let pageSize = harness.configuration.limits.maxPageSize
        let pushBatch = harness.configuration.limits.maxOpsPerBatch
        var figures: [Figure] = []

        // Initial pull: N instruments of one customer, into an empty store, through the engine, over
        // plain HTTP and over HTTPS (each server seeded alike), in alternating pairs.
        let pullCount = options.scale(100_000, quick: 10_000)
        let pullScope = VaultScope(merchantId: merchant, customerId: "c_pull")
        try harness.seedDirectly(pullScope, count: pullCount, customerIndex: 0)
        try tlsHarness.seedDirectly(pullScope, count: pullCount, customerIndex: 0)
        let remote = harness.remote()
        let tlsRemote = tlsHarness.remote()
        let configuration = SyncEngine.Configuration(scopes: [pullScope], includePendingScopes: false,
                                                     pushBatchSize: pushBatch, interval: nil)
        var lastStore: VaultStore?
        func pullSeconds(_ remote: HTTPRemoteVault) async throws -> Double {
            let store = try freshStore()
            let engine = SyncEngine(store: store, remote: remote, configuration: configuration)
            var report: SyncReport?
            let seconds = try await Measure.seconds { report = try await engine.syncNow(scope: pullScope) }
            guard report?.pulled == pullCount, try await store.instruments(scope: pullScope).count == pullCount else {
                throw BenchFailure("sync: pulled \(report?.pulled ?? 0) of \(pullCount) instruments")
            }
            lastStore = store
            return seconds
        }
        let pulls = try await Measure.paired(options.quick ? 1 : 7, { try await pullSeconds(tlsRemote) },
                                             baseline: { try await pullSeconds(remote) })
        let pull = pulls.baseline
        let pullRate = Double(pullCount) / pull.median
        figures.append(Figure(
            name: "sync.initial_pull_\(pullCount / 1000)k", value: pullRate, unit: "instruments/s", spread: pull.spread,
            target: ">= 150,000/s", targetMet: pullRate >= 150_000, reference: publishedReference,
            note: "SyncEngine.syncNow + HTTPRemoteVault (libcurl) from the real server on loopback over plain HTTP, the "
                + "largest pages the server allows (\(pageSize) changes), applied to an empty VaultStore; "
                + "\(Figure.format(pull.median)) s (the server was seeded in its storage)"))
        let tlsPullRate = Double(pullCount) / pulls.subject.median
        figures.append(Figure(
            name: "sync.initial_pull_https_\(pullCount / 1000)k", value: tlsPullRate, unit: "instruments/s",
            spread: pulls.subject.spread, baseline: pullRate, baselineName: "the same pull over plain HTTP",
            ratio: pulls.ratio, pairs: pulls.pairs, target: ">= 120,000/s", targetMet: tlsPullRate >= 120_000,
            note: "the same pull over HTTPS (TLS 1.3, GnuTLS server, OpenSSL client), pairs alternated with the HTTP pull; "
                + "ratio = HTTPS time / HTTP time"))

        // TLS handshakes once the connection is up: idle rounds on the same client.
        let handshakesBefore = tlsRemote.transportStatistics.tlsHandshakes
        let idleRounds = 20
        let idleEngine = SyncEngine(store: try lastStore ?? freshStore(), remote: tlsRemote, configuration: configuration)
        for _ in 0..<idleRounds { _ = try await idleEngine.syncNow(scope: pullScope) }
        let handshakes = tlsRemote.transportStatistics.tlsHandshakes - handshakesBefore
        figures.append(Figure(
            name: "sync.tls_handshakes_per_round", value: Double(handshakes) / Double(idleRounds), unit: "handshakes",
            target: "0 after the first", targetMet: handshakes == 0,
            note: "\(idleRounds) sync rounds over HTTPS after the pull on the same HTTPRemoteVault: \(handshakes) handshakes "
                + "(kept-alive connections; \(tlsRemote.transportStatistics.tlsHandshakes) in the whole run of this client)"))

        // Where the pull's time goes: the same pages fetched and decoded, not applied.
        let fetch = try await Measure.repeated(1) {
            try await Measure.seconds {
                var cursor: String?
                var received = 0
                while true {
                    let page = try await remote.changes(scope: pullScope, cursor: cursor,
                                                        limit: SyncEngine.Configuration.largestPage)
                    received += page.changes.count
                    cursor = page.cursor
                    if !page.hasMore { break }
                }
                guard received == pullCount else { throw BenchFailure("sync: fetched \(received) changes") }
            }
        }
        figures.append(Figure(
            name: "sync.fetch_only_\(pullCount / 1000)k", value: Double(pullCount) / fetch.median, unit: "instruments/s",
            spread: fetch.spread,
            note: "breakdown of the pull: HTTPRemoteVault.changes pages fetched and decoded, nothing applied; "
                + "the rest of the pull's time is the store (see vault.bulk_upsert)"))
        figures += try await pullBreakdown(harness, scope: pullScope, count: pullCount, fetchSeconds: fetch.median,
                                           pullSeconds: pull.median, rounds: options.quick ? 1 : 5, freshStore: freshStore)

        // Idle sync and a 10-change delta, through a proxy that counts the bytes on the wire.
        guard let synced = lastStore else { throw BenchFailure("sync: no synced store") }
        let proxy = try ByteCountingProxy(forwardingTo: UInt16(harness.port))
        defer { proxy.stop() }
        guard let proxyURL = URL(string: "http://127.0.0.1:\(proxy.port)") else { throw BenchFailure("sync: proxy URL") }
        let counting = CountingRemote(HTTPRemoteVault(baseURL: proxyURL, apiKey: VaultServerHarness.apiKey))
        let proxied = SyncEngine(store: synced, remote: counting, configuration: configuration)
        _ = try await proxied.syncNow(scope: pullScope)   // opens the connection
        counting.reset()
        proxy.reset()
        let idleReport = try await proxied.syncNow(scope: pullScope)
        let idleRequests = counting.requests, idleBytes = proxy.totalBytes
        guard idleReport.pulled == 0, idleReport.pushed == 0 else { throw BenchFailure("sync: the idle round did work") }
        figures.append(Figure(
            name: "sync.idle_round_requests", value: Double(idleRequests), unit: "requests",
            target: "1", targetMet: idleRequests == 1,
            note: "a round with nothing to do (\(counting.breakdown)); \(idleBytes) bytes on the wire"))

        // Ten instruments change on the server (another device), then one sync brings them.
        let direct = harness.remote()
        let changed = (0..<10).map { index -> OutboundOp in
            var method = VaultBench.method(index * 97, customer: 0)
            method.paymentInstrumentData.cardholderName = "Renamed \(index)"
            return OutboundOp(opId: "edit-i\(index)", kind: .upsert, instrumentId: method.id, baseVersion: 1,
                              method: method)
        }
        let results = try await direct.push(scope: pullScope, ops: changed)
        guard results.allSatisfy({ $0.status == .applied }) else { throw BenchFailure("sync: the 10 edits were refused") }
        counting.reset()
        proxy.reset()
        let deltaReport = try await proxied.syncNow(scope: pullScope)
        let deltaBytes = proxy.totalBytes
        guard deltaReport.pulled == 10 else { throw BenchFailure("sync: the delta pulled \(deltaReport.pulled) changes") }
        figures.append(Figure(
            name: "sync.delta_10_changes_bytes", value: Double(deltaBytes), unit: "bytes",
            target: "< 10 KB", targetMet: deltaBytes < 10 * 1024,
            note: "wire bytes both ways, headers included (\(proxy.upstreamBytes.load(ordering: .relaxed)) up, "
                + "\(proxy.downstreamBytes.load(ordering: .relaxed)) down) for one round after a full sync; \(counting.breakdown)"))

        // Push: ops queued locally for a few customers, sent by one round, over HTTP and HTTPS in pairs.
        let pushCustomers = 50
        let pushCount = options.scale(10_000, quick: 2_000)
        let perCustomer = pushCount / pushCustomers
        func pushSeconds(_ remote: HTTPRemoteVault) async throws -> Double {
            let store = try freshStore()
            let base = 1_000 + databases * pushCustomers
            for customer in 0..<pushCustomers {
                let scope = VaultScope(merchantId: merchant, customerId: "c_\(base + customer)")
                try await store.upsert((0..<perCustomer).map { VaultBench.method($0, customer: base + customer) }, scope: scope)
            }
            let engine = SyncEngine(store: store, remote: remote,
                                    configuration: .init(scopes: [], includePendingScopes: true, pageSize: pageSize,
                                                         pushBatchSize: pushBatch, interval: nil))
            var report: SyncReport?
            let seconds = try await Measure.seconds { report = try await engine.syncNow() }
            guard report?.pushed == pushCount, report?.pending == 0 else {
                throw BenchFailure("sync: pushed \(report?.pushed ?? 0) of \(pushCount) ops (\(report?.rejected ?? 0) rejected)")
            }
            return seconds
        }
        let pushes = try await Measure.paired(options.quick ? 1 : 7, { try await pushSeconds(tlsRemote) },
                                              baseline: { try await pushSeconds(remote) })
        let push = pushes.baseline
        let pushRate = Double(pushCount) / push.median
        figures.append(Figure(
            name: "sync.push_\(pushCount / 1000)k_ops", value: pushRate, unit: "ops/s", spread: push.spread,
            target: ">= 25,000 ops/s", targetMet: pushRate >= 25_000,
            note: "one SyncEngine.syncNow() round for \(pushCustomers) customers x \(perCustomer) queued upserts, "
                + "batches of \(pushBatch) (incl. each customer's pull first), plain HTTP"))
        let tlsPushRate = Double(pushCount) / pushes.subject.median
        figures.append(Figure(
            name: "sync.push_https_\(pushCount / 1000)k_ops", value: tlsPushRate, unit: "ops/s", spread: pushes.subject.spread,
            baseline: pushRate, baselineName: "the same push over plain HTTP", ratio: pushes.ratio, pairs: pushes.pairs,
            target: ">= 25,000 ops/s", targetMet: tlsPushRate >= 25_000,
            note: "the same round over HTTPS, pairs alternated with the HTTP push; ratio = HTTPS time / HTTP time"))
        return figures
    }
}
