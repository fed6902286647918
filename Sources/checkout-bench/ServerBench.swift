import CBenchBaselines
import CheckoutJSON
import CheckoutKit
import CheckoutLocking
import Foundation
import HTTPTransport
import Spawning

/// The vault server's change feed under load from a second process: this executable started
/// again in `--load-generator` mode, keep-alive connections on loopback, bounded in time and count.
enum ServerBench {
    /// What the load generator printed.
    struct LoadReport {
        var requests: Int
        var errors: Int
        var seconds: Double
        var p50: Double
        var p99: Double
        var detail: String
        /// CPU seconds, user and system, of this process and of the load generator while the load
        /// ran (its start included): meaningful when one load runs at a time.
        var cpuSeconds: Double
        var rate: Double { Double(requests) / seconds }
        /// CPU time per request, in µs.
        var cpuPerRequest: Double { cpuSeconds / Double(max(1, requests)) * 1e6 }
    }

    /// The one JSON line the load generator prints.
    struct LoadGeneratorOutput: Codable {
        var requests: Int
        var errors: Int
        var seconds: Double
        var connections: Int
        var p50_us: Double
        var p90_us: Double
        var p99_us: Double
        var max_us: Double
        var statusErrors: [String: Int]
        var firstError: String
    }

    /// Runs the load generator as a child process and parses its one JSON line.
    static func generateLoad(_ options: BenchOptions, url: String, connections: Int, seconds: Double,
                             caBundle: String? = nil) async throws -> LoadReport {
        let cpuBefore = cbench_cpu_seconds(0) + cbench_cpu_seconds(1)
        let process = try ChildProcess(
            executable: options.executablePath,
            arguments: [LoadGenerator.flag, url, "--api-key", VaultServerHarness.apiKey, "--connections", String(connections),
                        "--seconds", String(seconds), "--max-requests", "10000000"] + (caBundle.map { ["--ca-bundle", $0] } ?? []),
            standardOutput: .pipe)
        // Bounded: the child stops itself after `seconds`; stop it if it has not exited well after.
        let watchdog = Task {
            try await Task.sleep(for: .seconds(seconds + 30))
            process.terminate()
        }
        // The blocking read runs on a thread of its own, so several loads can run at once without
        // tying up the cooperative pool (the watchdog needs it).
        guard let reader = process.standardOutput else { throw BenchFailure("server: no pipe from the load generator") }
        let data = await onOwnThread { reader.readDataToEndOfFile() }
        let termination = await process.waitForExit()
        let cpuSeconds = cbench_cpu_seconds(0) + cbench_cpu_seconds(1) - cpuBefore
        watchdog.cancel()
        guard termination == .exited(0),
              let output = try? JSONReader.decode(LoadGeneratorOutput.self, from: data) else {
            throw BenchFailure("server: the load generator failed (\(termination)): "
                               + String(decoding: data.prefix(500), as: UTF8.self))
        }
        var detail = ""
        if output.errors > 0 { detail = "statuses \(output.statusErrors), first error: \(output.firstError)" }
        return LoadReport(requests: output.requests, errors: output.errors, seconds: output.seconds, p50: output.p50_us, p99: output.p99_us,
                          detail: detail, cpuSeconds: cpuSeconds)
    }

    static func run(_ options: BenchOptions) async throws -> [Figure] {
        let harness = try await VaultServerHarness(options, name: "server")
        defer { harness.stop() }
        let tlsHarness = try await VaultServerHarness(options, name: "server-tls", tls: true)
        defer { tlsHarness.stop() }
        let scope = VaultScope(merchantId: VaultServerHarness.merchant, customerId: "c_feed")
        var cursors: [String] = []
        for server in [harness, tlsHarness] {
            _ = try await server.seed(scope, count: 20, customerIndex: 7)
            let page = try await server.remote().changes(scope: scope, cursor: nil, limit: 200)
            guard page.changes.count == 20, !page.hasMore else { throw BenchFailure("server: the seeded feed is wrong") }
            cursors.append(page.cursor)
        }

        let connections = 8
        let seconds = options.quick ? 1.0 : 2.0
        let runs = options.quick ? 1 : 7
        var figures: [Figure] = [try sqliteReadFloor(harness, scope: scope, runs: runs, rounds: options.quick ? 2_000 : 20_000)]
        // The ceilings: libmicrohttpd with the vault server's daemon settings answering a fixed
        // body under the same load: 2 bytes, and the 20-change page's own bytes (what an answer
        // of that size costs libmicrohttpd, the loopback and the load generator). Their runs
        // alternate with the plain 20-change page's (ceilings first in even rounds), so each
        // ratio is a median of pair ratios.
        let feedPath = "/v1/customers/\(scope.customerId)/changes?limit=200"
        let pageBytes = try await pageBody(harness, path: feedPath)
        let ceiling = try TrivialMHDServer(threads: harness.configuration.threads)
        defer { ceiling.stop() }
        let pageCeiling = try TrivialMHDServer(threads: harness.configuration.threads, body: pageBytes)
        defer { pageCeiling.stop() }
        let ceilingURL = "http://127.0.0.1:\(ceiling.port)\(feedPath)"
        let pageCeilingURL = "http://127.0.0.1:\(pageCeiling.port)\(feedPath)"
        for url in [ceilingURL, pageCeilingURL] {
            _ = try await generateLoad(options, url: url, connections: connections, seconds: options.quick ? 0.3 : 0.5)
        }
        var pageCeilingReports: [LoadReport] = []
        var ceilingReports: [LoadReport] = []
        var plainRates: [String: Double] = [:]
        for (index, server) in [harness, tlsHarness].enumerated() {
            let https = server.caBundle != nil
            let base = "\(https ? "https" : "http")://127.0.0.1:\(server.port)/v1/customers/\(scope.customerId)/changes"
            for (name, url, what) in [
                ("page_20", base + "?limit=200", "a first sync's page: 20 changes (about 7 KB of JSON)"),
                ("idle", base + "?limit=200&cursor=\(cursors[index])", "an idle sync: the cursor is current, empty page"),
            ] {
                _ = try await generateLoad(options, url: url, connections: connections, seconds: options.quick ? 0.3 : 0.5,
                                           caBundle: server.caBundle)   // warm-up
                let pairedWithCeiling = !https && name == "page_20"
                var reports: [LoadReport] = []
                for round in 0..<runs {
                    func runCeilings() async throws {
                        ceilingReports.append(try await generateLoad(options, url: ceilingURL, connections: connections,
                                                                     seconds: seconds))
                        pageCeilingReports.append(try await generateLoad(options, url: pageCeilingURL,
                                                                         connections: connections, seconds: seconds))
                    }
                    if pairedWithCeiling, round % 2 == 0 { try await runCeilings() }
                    reports.append(try await generateLoad(options, url: url, connections: connections, seconds: seconds,
                                                          caBundle: server.caBundle))
                    if pairedWithCeiling, round % 2 == 1 { try await runCeilings() }
                }
                let errors = reports.map(\.errors).reduce(0, +)
                guard errors == 0 else {
                    throw BenchFailure("server: \(errors) failed requests (\(reports.first { $0.errors > 0 }?.detail ?? ""))")
                }
                let rates = Measure.summarize(reports.map(\.rate))
                let median = reports.sorted { $0.rate < $1.rate }[reports.count / 2]
                let requests = reports.map(\.requests).reduce(0, +)
                let label = https ? "https_\(name)" : name
                if !https { plainRates[name] = rates.median }
                var baseline = https ? plainRates[name] : nil
                var baselineName = https ? "the same load over plain HTTP" : nil
                var ratio = https ? plainRates[name].map { $0 / rates.median } : nil
                var pairs: Int?
                if pairedWithCeiling {
                    guard (ceilingReports + pageCeilingReports).allSatisfy({ $0.errors == 0 }) else {
                        throw BenchFailure("server: the trivial libmicrohttpd daemon failed requests")
                    }
                    let pageCeilingRates = Measure.summarize(pageCeilingReports.map(\.rate))
                    figures.append(Figure(
                        name: "server.mhd_page_ceiling_requests_per_second", value: pageCeilingRates.median,
                        unit: "requests/s", spread: pageCeilingRates.spread,
                        baseline: Measure.summarize(ceilingReports.map(\.rate)).median,
                        baselineName: "the same daemon answering 2 bytes",
                        ratio: Measure.summarize(zip(ceilingReports, pageCeilingReports).map { $0.rate / $1.rate }).median,
                        pairs: pageCeilingReports.count,
                        note: "the trivial daemon answering the 20-change page's own \(pageBytes.count) bytes: what an answer "
                            + "of that size costs libmicrohttpd, the loopback and the load generator, with nothing looked up"))
                    figures.append(Figure(
                        name: "server.change_feed_page_20_vs_page_ceiling",
                        value: Measure.summarize(zip(pageCeilingReports, reports).map { $0.rate / $1.rate }).median,
                        unit: "x", pairs: reports.count,
                        note: "the page-sized ceiling's rate over the feed's, paired: what the server's own work "
                            + "(authentication, SQLite, encoding) costs on top of sending the same bytes"))
                    let ceilingRates = Measure.summarize(ceilingReports.map(\.rate))
                    figures.append(Figure(
                        name: "server.mhd_ceiling_requests_per_second", value: ceilingRates.median, unit: "requests/s",
                        spread: ceilingRates.spread,
                        note: "libmicrohttpd with the vault server's daemon settings (\(harness.configuration.threads) threads) "
                            + "answering a fixed 2-byte body, the same load generator and \(connections) connections, "
                            + "\(runs) x \(seconds) s alternated with the 20-change page"))
                    let cpu = Measure.summarize(reports.map(\.cpuPerRequest))
                    figures.append(Figure(
                        name: "server.change_feed_page_20_cpu_per_request", value: cpu.median, unit: "µs", spread: cpu.spread,
                        baseline: Measure.summarize(ceilingReports.map(\.cpuPerRequest)).median,
                        baselineName: "the 2-byte daemon's request",
                        ratio: Measure.summarize(zip(reports, ceilingReports).map { $0.cpuPerRequest / $1.cpuPerRequest }).median,
                        pairs: reports.count,
                        note: "CPU time per request of both processes, the server and the load generator, user and kernel "
                            + "(from getrusage around each load): what a request costs, whichever core ran it; with both "
                            + "cores busy the rates' ratio follows this one"))
                    baseline = ceilingRates.median
                    baselineName = "libmicrohttpd answering a fixed 2-byte body, same load"
                    ratio = Measure.summarize(zip(ceilingReports, reports).map { $0.rate / $1.rate }).median
                    pairs = reports.count
                }
                // The target is plain HTTP's; HTTPS is reported beside it, with its ratio.
                let target = name == "page_20" ? ">= 25,000/s" : ">= 10,000/s"
                let targetRate: Double = name == "page_20" ? 25_000 : 10_000
                figures.append(Figure(
                    name: "server.change_feed_\(label)_requests_per_second", value: rates.median, unit: "requests/s",
                    spread: rates.spread, baseline: baseline, baselineName: baselineName, ratio: ratio, pairs: pairs,
                    target: https ? nil : target, targetMet: https ? nil : rates.median >= targetRate,
                    note: "\(what)\(https ? " over HTTPS" : ""); second process (libcurl) with \(connections) keep-alive "
                        + "connections, \(runs) x \(seconds) s, \(requests) requests, 0 errors; server threads "
                        + "\(server.configuration.threads), rate limit off"))
                figures.append(Figure(name: "server.change_feed_\(label)_latency_p50", value: median.p50, unit: "µs"))
                figures.append(Figure(name: "server.change_feed_\(label)_latency_p99", value: median.p99, unit: "µs"))
            }
        }
        return figures
    }

    /// The feed's storage read alone (the 20-change page's three queries in one read transaction)
    /// through SQLite's C API on the server's own database file: the floor under the SQLite part of
    /// a feed request, with no HTTP, authentication or encoding around it.
    private static func sqliteReadFloor(_ harness: VaultServerHarness, scope: VaultScope, runs: Int, rounds: Int) throws -> Figure {
        var rows = 0
        let read = try Measure.repeated(runs) {
            try Measure.seconds {
                try VaultBench.check(cbench_feed_read(harness.sqlitePath, scope.merchantId, scope.customerId, rounds, &rows), "feed read")
            }
        }
        guard rows == 20 else { throw BenchFailure("server: the C feed read found \(rows) rows") }
        return Figure(name: "server.change_feed_sqlite_read_c", value: read.median / Double(rounds) * 1e6, unit: "µs",
                      spread: read.spread,
                      note: "the 20-change page's storage read in C: BEGIN, the tombstone probe, the purge horizon, "
                          + "the changes (201 asked, the 20 there read with every column copied), COMMIT, "
                          + "on a connection of its own to the server's file, "
                          + "\(rounds) reads x \(runs)")
    }

    /// The bytes of one answer of the feed at `path` (for the page-sized ceiling).
    private static func pageBody(_ harness: VaultServerHarness, path: String) async throws -> [UInt8] {
        let transport = HTTPTransport(baseURL: harness.baseURL)
        let response = try await transport.send(HTTPRequest(
            method: "GET", path: path, headers: [HTTPHeaderField(name: "Authorization", value: "Bearer \(VaultServerHarness.apiKey)")]))
        guard response.status == 200, !response.body.isEmpty else {
            throw BenchFailure("server: the feed answered \(response.status) to the page-size probe")
        }
        return response.body
    }
}
