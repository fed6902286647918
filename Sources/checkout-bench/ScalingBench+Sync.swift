import CheckoutKit
import Foundation

extension ScalingBench {
    /// The initial pull of the sync section at three sizes, 10k, 100k and 1M: one customer per
    /// size on one real server on loopback (seeded in its storage), each pulled by
    /// `SyncEngine.syncNow` over plain HTTP into an empty store, in the largest pages the server
    /// allows. The figure is the whole round; each size may take at most 11 times the one before.
    static func scaleSync(_ options: BenchOptions) async throws -> [Figure] {
        let sizes = options.quick ? [100, 1_000, 5_000] : [10_000, 100_000, 1_000_000]
        let harness = try await VaultServerHarness(options, name: "scaling-sync")
        defer { harness.stop() }
        let local = try ScratchDirectory("scaling-sync-client")
        defer { local.remove() }
        let merchant = VaultServerHarness.merchant
        for (index, size) in sizes.enumerated() {
            try harness.seedDirectly(VaultScope(merchantId: merchant, customerId: "c_pull_\(size)"), count: size,
                                     customerIndex: index)
        }
        let remote = harness.remote()
        var databases = 0
        let samples = try await rounds(options.quick ? 1 : 3, sizes: sizes, warmUp: [sizes[0]]) { size in
            databases += 1
            let path = local.url.appendingPathComponent("client\(databases).sqlite").path
            defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
            let scope = VaultScope(merchantId: merchant, customerId: "c_pull_\(size)")
            let store = try VaultStore(path: path)
            let engine = SyncEngine(store: store, remote: remote,
                                    configuration: .init(scopes: [scope], includePendingScopes: false,
                                                         pushBatchSize: harness.configuration.limits.maxOpsPerBatch,
                                                         interval: nil, maxPagesPerRound: 10_000))
            var report: SyncReport?
            let seconds = try await Measure.seconds { report = try await engine.syncNow(scope: scope) }
            guard report?.pulled == size, try await store.instruments(scope: scope).count == size else {
                throw BenchFailure("scaling: pulled \(report?.pulled ?? 0) of \(size) instruments")
            }
            return seconds * 1e3
        }
        return figures("sync_pull", unit: "ms", sizes: sizes, samples: samples, growth: .linearEachStep(slack: 1.1),
                       noun: "instruments", quick: options.quick,
                       what: "SyncEngine.syncNow initial pull into an empty VaultStore, plain HTTP on loopback, the largest pages the "
                           + "server allows (\(harness.configuration.limits.maxPageSize) changes)") { size in
            let median = Measure.summarize(samples[size] ?? []).median
            return "\(Figure.format(median * 1e3 / Double(size))) µs/instrument"
        }
    }
}
