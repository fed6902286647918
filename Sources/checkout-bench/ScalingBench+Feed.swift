import CheckoutKit
import Foundation

extension ScalingBench {
    /// The server's change feed with more and more stored instruments: one server per size
    /// (VaultServerHarness, SQLite storage, seeded in one transaction), each holding the size's
    /// instruments across the same customers plus one customer with 20. The load generator of the
    /// server section (a second process, one keep-alive connection, so requests go one at a time)
    /// asks for that customer's first page (20 changes); the figure is the median latency.
    static func scaleFeed(_ options: BenchOptions) async throws -> [Figure] {
        let sizes = options.quick ? [1_000, 2_000, 5_000] : [10_000, 100_000, 1_000_000]
        let customers = options.quick ? 500 : 10_000
        let seconds = options.quick ? 0.3 : 1.5
        var harnesses: [Int: VaultServerHarness] = [:]
        defer { harnesses.values.forEach { $0.stop() } }
        var seedSeconds: [Int: Double] = [:]
        let scope = VaultScope(merchantId: VaultServerHarness.merchant, customerId: "c_feed")
        for size in sizes {
            let harness = try await VaultServerHarness(options, name: "scaling-feed-\(size)")
            harnesses[size] = harness
            seedSeconds[size] = try Measure.seconds {
                try harness.seedDirectly(customers: customers, total: size)
                try harness.seedDirectly(scope, count: 20, customerIndex: 7)
            }
            let page = try await harness.remote().changes(scope: scope, cursor: nil, limit: 200)
            guard page.changes.count == 20, !page.hasMore else {
                throw BenchFailure("scaling: the feed of \(size) instruments gave \(page.changes.count) changes")
            }
        }
        var p99: [Int: [Double]] = [:], rates: [Int: [Double]] = [:]
        let samples = try await rounds(options.quick ? 1 : 3, sizes: sizes, warmUp: sizes) { size in
            guard let harness = harnesses[size] else { throw BenchFailure("scaling: no server for \(size)") }
            let url = "http://127.0.0.1:\(harness.port)/v1/customers/\(scope.customerId)/changes?limit=200"
            let report = try await ServerBench.generateLoad(options, url: url, connections: 1, seconds: seconds)
            guard report.errors == 0 else { throw BenchFailure("scaling: \(report.errors) failed feed requests (\(report.detail))") }
            p99[size, default: []].append(report.p99)
            rates[size, default: []].append(report.rate)
            return report.p50
        }
        return figures("feed_latency", unit: "µs", sizes: sizes, samples: samples, growth: .flat(limit: 1.5),
                       noun: "stored instruments", quick: options.quick,
                       what: "p50 latency of one customer's 20-change page, the others spread over \(customers) customers; "
                           + "one connection from a second process, \(Figure.format(seconds)) s per round") { size in
            // The warm-up run is the first of each size's extra samples.
            let tail = { (values: [Double]) in Measure.summarize(Array(values.dropFirst())).median }
            return "p99 \(Figure.format(tail(p99[size] ?? []))) µs, \(Figure.format(tail(rates[size] ?? []))) req/s; "
                + "seeded in \(Figure.format(seedSeconds[size] ?? .nan)) s"
        }
    }
}
