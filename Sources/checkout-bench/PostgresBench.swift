import CLibPQ
import CheckoutKit
import Foundation
import VaultServer
import VaultServerPostgres

/// The vault server on PostgreSQL with one and with two instances on one database, beside the
/// same work on SQLite (one instance, the only way SQLite runs) in the same run: change-feed
/// requests from a second process, and op batches pushed by concurrent clients. The set-ups run
/// side by side and are measured in alternating rounds, so each ratio is a median of pair ratios.
///
/// Runs when `CHECKOUTKIT_POSTGRES_URL` names a database (`make bench` starts a throwaway cluster
/// through scripts/with-postgres.sh); otherwise the section prints that it was skipped and why.
/// Each configuration works in a schema of its own, dropped at the end.
enum PostgresBench {
    /// The environment variable naming the database (the same one the tests read).
    static let variable = "CHECKOUTKIT_POSTGRES_URL"

    /// The environment variable naming a database on a durable cluster (`fsync=on`,
    /// `synchronous_commit=on`; `scripts/with-postgres.sh --durable` starts one).
    static let durableVariable = "CHECKOUTKIT_POSTGRES_DURABLE_URL"

    /// One storage set-up under test.
    struct Backend {
        var label: String
        var name: String
        var instances: Int
        /// The database URL of a PostgreSQL set-up; nil for SQLite.
        var url: String?
        /// Whether the change feed is measured too (reads do not depend on durability: the
        /// durable set-up measures op batches only).
        var feed = true
        var postgres: Bool { url != nil }
    }

    static func run(_ options: BenchOptions) async throws -> [Figure] {
        guard let url = ProcessInfo.processInfo.environment[variable], !url.isEmpty else {
            return [Figure(name: "postgres.skipped", value: .nan, unit: "",
                           note: "\(variable) is not set; `make bench` runs this section on a throwaway cluster "
                               + "(scripts/with-postgres.sh swift run -c release checkout-bench --only postgres)",
                           skipped: true)]
        }
        var backends = [
            Backend(label: "SQLite, 1 instance", name: "sqlite_1", instances: 1, url: nil),
            Backend(label: "PostgreSQL (fsync=off), 1 instance", name: "postgres_1", instances: 1, url: url),
            Backend(label: "PostgreSQL (fsync=off), 2 instances", name: "postgres_2", instances: 2, url: url),
        ]
        let durableURL = ProcessInfo.processInfo.environment[durableVariable].flatMap { $0.isEmpty ? nil : $0 }
        if let durableURL {
            backends.append(Backend(label: "PostgreSQL (durable: fsync=on, synchronous_commit=on), 1 instance",
                                    name: "postgres_durable_1", instances: 1, url: durableURL, feed: false))
        }
        // Every set-up's servers run side by side for the whole section, and each round measures
        // all of them back to back in a rotated order: a PostgreSQL figure's ratio is the median of
        // the rounds' ratios to the SQLite run of the same round (paired, as the other sections).
        var schemas: [BenchSchema] = []
        defer { schemas.forEach { $0.drop() } }
        var servers: [String: [VaultServerHarness]] = [:]
        defer { servers.values.joined().forEach { $0.stop() } }
        for backend in backends {
            let schema = try backend.url.map { try BenchSchema(baseURL: $0) }
            if let schema { schemas.append(schema) }
            var harnesses: [VaultServerHarness] = []
            for index in 0..<backend.instances {
                if let schema {
                    harnesses.append(try await VaultServerHarness(options, name: "pg\(index)") { _, configuration in
                        try PostgresVaultServerStorage(url: schema.url, options: .init(poolSize: configuration.threads))
                    })
                } else {
                    harnesses.append(try await VaultServerHarness(options, name: "sqlite"))
                }
            }
            servers[backend.name] = harnesses
        }
        let clients = 8
        let seconds = options.quick ? 1.0 : 3.0
        let rounds = options.quick ? 1 : 3
        let batchesPerClient = options.quick ? 3 : 20
        var feedURLs: [String: [String]] = [:]
        for backend in backends {
            let harnesses = servers[backend.name] ?? []
            if backend.feed {
                feedURLs[backend.name] = try await prepareFeed(harnesses)
                _ = try await feedRun(options, urls: feedURLs[backend.name] ?? [], seconds: 0.5)   // warm-up
            }
            _ = try await opsRun(harnesses, round: 0, clients: clients, batchesPerClient: batchesPerClient,
                                 backend: backend.name)   // warm-up
        }
        var feed: [String: [(rate: Double, p99: Double)]] = [:]
        var ops: [String: [Double]] = [:]
        for round in 0..<rounds {
            let order = (0..<backends.count).map { backends[($0 + round) % backends.count] }
            for backend in order where backend.feed {
                feed[backend.name, default: []].append(try await feedRun(options, urls: feedURLs[backend.name] ?? [],
                                                                         seconds: seconds))
            }
            for backend in order {
                ops[backend.name, default: []].append(try await opsRun(servers[backend.name] ?? [], round: round + 1,
                                                                       clients: clients,
                                                                       batchesPerClient: batchesPerClient,
                                                                       backend: backend.name))
            }
        }
        guard let sqliteFeed = feed["sqlite_1"], let sqliteOps = ops["sqlite_1"] else { return [] }
        var figures: [Figure] = []
        for backend in backends {
            guard let o = ops[backend.name] else { continue }
            let isBaseline = !backend.postgres
            let opRates = Measure.summarize(o)
            let opsRatio = Measure.summarize(zip(sqliteOps, o).map { $0 / $1 }).median
            // The op-batch target holds for one instance, with either cluster's settings.
            let opsTarget = backend.instances == 1 && backend.postgres ? "<= 2x SQLite" : nil
            if let f = feed[backend.name] {
                let feedRates = Measure.summarize(f.map(\.rate))
                let feedRatio = Measure.summarize(zip(sqliteFeed, f).map { $0.rate / $1.rate }).median
                figures.append(Figure(
                    name: "postgres.change_feed_\(backend.name)_requests_per_second", value: feedRates.median, unit: "requests/s",
                    spread: feedRates.spread,
                    baseline: isBaseline ? nil : Measure.summarize(sqliteFeed.map(\.rate)).median,
                    baselineName: isBaseline ? nil : "SQLite, 1 instance",
                    ratio: isBaseline ? nil : feedRatio, pairs: isBaseline ? nil : f.count,
                    note: "\(backend.label): a 20-change page, 8 keep-alive connections from a second process per run, "
                        + "split over the instances; \(rounds) x \(seconds) s; p99 \(Figure.format(Measure.summarize(f.map(\.p99)).median)) µs"))
            }
            figures.append(Figure(
                name: "postgres.op_batches_\(backend.name)_ops_per_second", value: opRates.median, unit: "ops/s",
                spread: opRates.spread,
                baseline: isBaseline ? nil : Measure.summarize(sqliteOps).median,
                baselineName: isBaseline ? nil : "SQLite, 1 instance",
                ratio: isBaseline ? nil : opsRatio, pairs: isBaseline ? nil : o.count,
                target: opsTarget, targetMet: opsTarget == nil ? nil : opsRatio <= 2,
                note: "\(backend.label): \(clients) concurrent clients (a customer of their own per 1,000 ops, alternating over the instances) "
                    + "pushing \(batchesPerClient) batches of \(batchSize) upserts each through HTTPRemoteVault"
                    + (isBaseline ? "; SQLite in WAL mode with synchronous=NORMAL (a commit is not flushed to disk)" : "")))
        }
        figures += scalingFigures(feed: feed, ops: ops, rounds: rounds)
        if durableURL == nil {
            figures.append(Figure(name: "postgres.durable_skipped", value: .nan, unit: "",
                                  note: "\(durableVariable) is not set; scripts/with-postgres.sh --durable starts a durable "
                                      + "cluster (fsync=on, synchronous_commit=on) beside the throwaway one", skipped: true))
        }
        return figures
    }

    /// Two instances against one on the same (throwaway) cluster, paired by round: the change
    /// feed's gain and the op batches' (a ratio below 1 is slower).
    static func scalingFigures(feed: [String: [(rate: Double, p99: Double)]], ops: [String: [Double]], rounds: Int) -> [Figure] {
        guard let feed1 = feed["postgres_1"], let feed2 = feed["postgres_2"], let ops1 = ops["postgres_1"],
              let ops2 = ops["postgres_2"] else { return [] }
        let feedGain = Measure.summarize(zip(feed2, feed1).map { $0.rate / $1.rate }).median
        let opsGain = Measure.summarize(zip(ops2, ops1).map { $0 / $1 }).median
        return [
            Figure(name: "postgres.change_feed_2_vs_1_instances", value: feedGain, unit: "x",
                   target: ">= 1.3x", targetMet: feedGain >= 1.3,
                   note: "requests/s of 2 instances over 1 on one cluster (fsync=off), median of \(rounds) round ratios"),
            Figure(name: "postgres.op_batches_2_vs_1_instances", value: opsGain, unit: "x",
                   target: ">= 1x (not slower)", targetMet: opsGain >= 1,
                   note: "ops/s of 2 instances over 1 on one cluster (fsync=off), median of \(rounds) round ratios"),
        ]
    }

    static let batchSize = 100
    /// Batches pushed for one customer before the client moves to the next (10 x 100 = the cap).
    static let batchesPerCustomer = 10

    /// Seeds the feed's customer and returns the change-feed URL of every instance.
    static func prepareFeed(_ harnesses: [VaultServerHarness]) async throws -> [String] {
        let scope = VaultScope(merchantId: VaultServerHarness.merchant, customerId: "c_feed")
        _ = try await harnesses[0].seed(scope, count: 20, customerIndex: 7)
        return harnesses.map { "http://127.0.0.1:\($0.port)/v1/customers/\(scope.customerId)/changes?limit=200" }
    }

    /// One run of change-feed requests against all instances at once (8 connections split evenly):
    /// the total rate and the worst instance's p99.
    static func feedRun(_ options: BenchOptions, urls: [String], seconds: Double) async throws -> (rate: Double, p99: Double) {
        let connections = 8 / max(1, urls.count)
        let reports = try await withThrowingTaskGroup(of: ServerBench.LoadReport.self) { group in
            for url in urls {
                group.addTask { try await ServerBench.generateLoad(options, url: url, connections: connections, seconds: seconds) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        if let failed = reports.first(where: { $0.errors > 0 }) {
            throw BenchFailure("postgres: \(failed.errors) failed feed requests (\(failed.detail))")
        }
        return (reports.map(\.rate).reduce(0, +), reports.map(\.p99).max() ?? .nan)
    }

    /// One run of op batches: concurrent clients, a customer of their own per 1,000 ops (new ones per `round`),
    /// client i on instance i % n; ops applied per second.
    static func opsRun(_ harnesses: [VaultServerHarness], round: Int, clients: Int, batchesPerClient: Int,
                       backend: String) async throws -> Double {
        let remotes = harnesses.map { HTTPRemoteVault(baseURL: $0.baseURL, apiKey: VaultServerHarness.apiKey) }
        let seconds = try await Measure.seconds {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for client in 0..<clients {
                    let remote = remotes[client % remotes.count]
                    group.addTask {
                        for batch in 0..<batchesPerClient {
                            // A fresh customer every `batchesPerCustomer` batches: one customer holds at most
                            // `maxInstrumentsPerCustomer` (1,000) instruments.
                            let scope = VaultScope(merchantId: VaultServerHarness.merchant,
                                                   customerId: "c_ops_r\(round)_c\(client)_p\(batch / batchesPerCustomer)")
                            let ops = (0..<batchSize).map { item in
                                let index = batch * batchSize + item
                                let method = VaultBench.method(index, customer: client)
                                return OutboundOp(opId: "op-r\(round)-c\(client)-i\(index)", kind: .upsert,
                                                  instrumentId: method.id, baseVersion: nil, method: method)
                            }
                            let results = try await remote.push(scope: scope, ops: ops)
                            guard results.allSatisfy({ $0.status == .applied }) else {
                                throw BenchFailure("postgres (\(backend)): an op was not applied: "
                                                   + "\(results.first { $0.status != .applied }.map { "\($0)" } ?? "")")
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        return Double(clients * batchesPerClient * batchSize) / seconds
    }
}

/// A schema of its own in the benchmark database (libpq's `options=-csearch_path=`), so runs
/// start empty and leave nothing behind.
final class BenchSchema: Sendable {
    let name: String
    let url: String
    private let baseURL: String

    init(baseURL: String) throws {
        self.baseURL = baseURL
        name = "ck_bench_" + SafeIdentifier.random().replacingOccurrences(of: "-", with: "").prefix(12)
        url = baseURL + (baseURL.contains("?") ? "&" : "?") + "options=-csearch_path%3D" + name
        try Self.execute(baseURL, "CREATE SCHEMA \(name)")
    }

    func drop() {
        // Quietly: CASCADE's NOTICE listing every dropped object would land in the output.
        try? Self.execute(baseURL, "SET client_min_messages TO warning; DROP SCHEMA IF EXISTS \(name) CASCADE")
    }

    /// Runs one statement on a short-lived connection; the error never contains the URL.
    private static func execute(_ url: String, _ sql: String) throws {
        guard let connection = PQconnectdb(url) else { throw BenchFailure("postgres: out of memory") }
        defer { PQfinish(connection) }
        guard PQstatus(connection) == CONNECTION_OK else {
            throw BenchFailure("postgres: cannot connect: \(String(cString: PQerrorMessage(connection)))")
        }
        let result = PQexec(connection, sql)
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else {
            throw BenchFailure("postgres: \(sql.prefix(40)) failed: \(String(cString: PQerrorMessage(connection)))")
        }
    }
}
