import CLibPQ
import CheckoutKit
import Foundation
import VaultServer
import VaultServerPostgres

/// The vault server on PostgreSQL with one and with two instances on one database, beside the
/// same work on SQLite (one instance, the only way SQLite runs) in the same run: change-feed
/// requests from a second process, and op batches pushed by concurrent clients.
///
/// Runs when `CHECKOUTKIT_POSTGRES_URL` names a database (`make bench` starts a throwaway cluster
/// through scripts/with-postgres.sh); otherwise the section prints that it was skipped and why.
/// Each configuration works in a schema of its own, dropped at the end.
enum PostgresBench {
    /// The environment variable naming the database (the same one the tests read).
    static let variable = "CHECKOUTKIT_POSTGRES_URL"

    /// One storage set-up under test.
    struct Backend {
        var label: String
        var name: String
        var instances: Int
        var postgres: Bool
    }

    static func run(_ options: BenchOptions) async throws -> [Figure] {
        guard let url = ProcessInfo.processInfo.environment[variable], !url.isEmpty else {
            return [Figure(name: "postgres.skipped", value: .nan, unit: "",
                           note: "\(variable) is not set; `make bench` runs this section on a throwaway cluster "
                               + "(scripts/with-postgres.sh swift run -c release checkout-bench --only postgres)")]
        }
        let backends = [
            Backend(label: "SQLite, 1 instance", name: "sqlite_1", instances: 1, postgres: false),
            Backend(label: "PostgreSQL, 1 instance", name: "postgres_1", instances: 1, postgres: true),
            Backend(label: "PostgreSQL, 2 instances", name: "postgres_2", instances: 2, postgres: true),
        ]
        var feed: [String: (median: Double, spread: Double, p99: Double)] = [:]
        var ops: [String: (median: Double, spread: Double)] = [:]
        for backend in backends {
            let schema = backend.postgres ? try BenchSchema(baseURL: url) : nil
            defer { schema?.drop() }
            var harnesses: [VaultServerHarness] = []
            defer { harnesses.forEach { $0.stop() } }
            for index in 0..<backend.instances {
                if let schema {
                    harnesses.append(try await VaultServerHarness(options, name: "pg\(index)") { _, configuration in
                        try PostgresVaultServerStorage(url: schema.url, options: .init(poolSize: configuration.threads))
                    })
                } else {
                    harnesses.append(try await VaultServerHarness(options, name: "sqlite"))
                }
            }
            feed[backend.name] = try await measureFeed(options, harnesses)
            ops[backend.name] = try await measureOps(options, harnesses, backend: backend.name)
        }
        guard let sqliteFeed = feed["sqlite_1"], let sqliteOps = ops["sqlite_1"] else { return [] }
        let clients = 8
        var figures: [Figure] = []
        for backend in backends {
            guard let f = feed[backend.name], let o = ops[backend.name] else { continue }
            let isBaseline = !backend.postgres
            figures.append(Figure(
                name: "postgres.change_feed_\(backend.name)_requests_per_second", value: f.median, unit: "requests/s",
                spread: f.spread,
                baseline: isBaseline ? nil : sqliteFeed.median, baselineName: isBaseline ? nil : "SQLite, 1 instance",
                ratio: isBaseline ? nil : sqliteFeed.median / f.median,
                note: "\(backend.label): a 20-change page, 8 keep-alive connections from a second process per run, "
                    + "split over the instances; p99 \(Figure.format(f.p99)) µs"))
            figures.append(Figure(
                name: "postgres.op_batches_\(backend.name)_ops_per_second", value: o.median, unit: "ops/s", spread: o.spread,
                baseline: isBaseline ? nil : sqliteOps.median, baselineName: isBaseline ? nil : "SQLite, 1 instance",
                ratio: isBaseline ? nil : sqliteOps.median / o.median,
                note: "\(backend.label): \(clients) concurrent clients (one customer each, alternating over the instances) "
                    + "pushing batches of \(batchSize) upserts through HTTPRemoteVault"))
        }
        return figures
    }

    static let batchSize = 100

    /// Change-feed requests per second against all instances at once (connections split evenly).
    static func measureFeed(_ options: BenchOptions, _ harnesses: [VaultServerHarness]) async throws
        -> (median: Double, spread: Double, p99: Double) {
        let scope = VaultScope(merchantId: VaultServerHarness.merchant, customerId: "c_feed")
        _ = try await harnesses[0].seed(scope, count: 20, customerIndex: 7)
        let urls = harnesses.map { "http://127.0.0.1:\($0.port)/v1/customers/\(scope.customerId)/changes?limit=200" }
        let connections = 8 / harnesses.count
        let seconds = options.quick ? 1.0 : 3.0
        let runs = options.quick ? 1 : 3
        func load(_ seconds: Double) async throws -> [ServerBench.LoadReport] {
            try await withThrowingTaskGroup(of: ServerBench.LoadReport.self) { group in
                for url in urls {
                    group.addTask { try await ServerBench.generateLoad(options, url: url, connections: connections, seconds: seconds) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        _ = try await load(0.5)   // warm-up: connections, caches, prepared statements
        var rates: [Double] = []
        var p99s: [Double] = []
        for _ in 0..<runs {
            let reports = try await load(seconds)
            if let failed = reports.first(where: { $0.errors > 0 }) {
                throw BenchFailure("postgres: \(failed.errors) failed feed requests (\(failed.detail))")
            }
            rates.append(reports.map(\.rate).reduce(0, +))
            p99s.append(reports.map(\.p99).max() ?? .nan)
        }
        let summary = Measure.summarize(rates)
        return (summary.median, summary.spread, Measure.summarize(p99s).median)
    }

    /// Ops applied per second: concurrent clients, one customer each, client i on instance i % n.
    static func measureOps(_ options: BenchOptions, _ harnesses: [VaultServerHarness], backend: String) async throws
        -> (median: Double, spread: Double) {
        let clients = 8
        let batchesPerClient = options.quick ? 3 : 20
        let remotes = harnesses.map { HTTPRemoteVault(baseURL: $0.baseURL, apiKey: VaultServerHarness.apiKey) }
        var run = 0
        let result = try await Measure.repeated(options.quick ? 1 : 2) { () async throws -> Double in
            run += 1
            let round = run
            let seconds = try await Measure.seconds {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for client in 0..<clients {
                        let remote = remotes[client % remotes.count]
                        group.addTask {
                            let scope = VaultScope(merchantId: VaultServerHarness.merchant, customerId: "c_ops_r\(round)_c\(client)")
                            for batch in 0..<batchesPerClient {
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
        return result
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
        name = "ck_bench_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(12)
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
