import CheckoutKit
import Foundation

/// `checkout-bench --probe NAME --count N`: the fixed work whose instructions
/// `scripts/bench-instructions.sh` counts with valgrind's callgrind. Each probe does its setup, then
/// `N` operations (none for `N` = 0); the script runs it twice, with N = 0 and with N = K, and
/// divides the difference by K, so the setup (process start, server, seeding) cancels out and the
/// count is the operation's alone, every thread included (the client's and the server's).
///
/// - `card`: one number-only check by `CardValidator` (1,024 distinct 16-digit numbers, cycled).
/// - `feed`: one change-feed request of 20 changes, end to end over loopback HTTP (the client's
///   libcurl request, the server's parsing, authentication, SQLite read and encoding, the decode).
/// - `pull`: the initial pull of `probePullInstruments` instruments into an empty store, per
///   instrument (N is ignored past 0: the pull always moves them all).
enum InstructionProbes {
    static let names = ["card", "feed", "pull"]
    static let probePullInstruments = 5_000

    /// Runs `name` `count` times after its setup; prints what ran.
    static func run(_ name: String, count: Int, options: BenchOptions) async throws {
        var ran = 0
        switch name {
        case "card":
            let validator = CardValidator(table: try options.defaults().cardNetworks)
            let inputs = CardBench.makeInputs(count: 1_024, formatted: false)
            var valid = 0
            for index in 0..<count where validator.check(number: inputs.numbers[index % inputs.numbers.count]).isValid {
                valid &+= 1
            }
            guard valid == count else { throw BenchFailure("probe card: \(count - valid) numbers did not check") }
            ran = count
        case "feed":
            let harness = try await VaultServerHarness(options, name: "probe-feed")
            defer { harness.stop() }
            let scope = VaultScope(merchantId: VaultServerHarness.merchant, customerId: "c_feed")
            try harness.seedDirectly(scope, count: 20, customerIndex: 0)
            let remote = harness.remote()
            _ = try await remote.changes(scope: scope, cursor: nil, limit: 200)  // the connection is open from here
            for _ in 0..<count {
                let page = try await remote.changes(scope: scope, cursor: nil, limit: 200)
                guard page.changes.count == 20 else { throw BenchFailure("probe feed: \(page.changes.count) changes") }
                ran += 1
            }
        case "pull":
            let harness = try await VaultServerHarness(options, name: "probe-pull")
            defer { harness.stop() }
            let scope = VaultScope(merchantId: VaultServerHarness.merchant, customerId: "c_pull")
            try harness.seedDirectly(scope, count: probePullInstruments, customerIndex: 0)
            let local = try ScratchDirectory("probe-pull-client")
            defer { local.remove() }
            let store = try VaultStore(path: local.url.appendingPathComponent("client.sqlite").path)
            let configuration = SyncEngine.Configuration(scopes: [scope], includePendingScopes: false,
                                                         pageSize: harness.configuration.limits.maxPageSize, interval: nil)
            let engine = SyncEngine(store: store, remote: harness.remote(), configuration: configuration)
            if count > 0 {
                let report = try await engine.syncNow(scope: scope)
                guard report.pulled == probePullInstruments else { throw BenchFailure("probe pull: pulled \(report.pulled)") }
                ran = probePullInstruments
            }
        default:
            throw BenchFailure("unknown probe '\(name)' (expected one of \(names.joined(separator: ", ")))")
        }
        print("probe \(name): \(ran) operations")
    }
}
