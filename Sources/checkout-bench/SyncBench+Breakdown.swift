import CheckoutKit
import VaultServer
import Foundation

extension SyncBench {
    /// Where one pulled instrument's time goes: the pull's pages, each stage measured alone over
    /// all of them on one thread, in µs per instrument. The server's answer (`VaultServer.respond`,
    /// in process: admission, authentication, the SQLite read, the encoding), the decode
    /// (`ChangePage(wireBytes:)`), the payment-data guard and the store's other checks
    /// (`VaultStore.checkRemotePage`), and the SQLite write (`VaultStore.applyRemotePage` of the
    /// checked pages into an empty store). Transport is what the fetch-only pass took beyond the
    /// server and the decode: libcurl, libmicrohttpd and loopback TCP on both sides.
    static func pullBreakdown(_ harness: VaultServerHarness, scope: VaultScope, count: Int, fetchSeconds: Double,
                              pullSeconds: Double, rounds: Int,
                              freshStore: () throws -> VaultStore) async throws -> [Figure] {
        // The pull's requests and answers, in order (not timed).
        let authorization = VaultServerHeader(name: "Authorization", value: "Bearer \(VaultServerHarness.apiKey)")
        func request(_ cursor: String?) -> VaultServerRequest {
            var target = "/v1/customers/\(scope.customerId)/changes?limit=\(SyncEngine.Configuration.largestPage)"
            if let cursor { target += "&cursor=" + (cursor.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? cursor) }
            return VaultServerRequest(method: "GET", target: target, headers: [authorization])
        }
        var requests: [VaultServerRequest] = []
        var bodies: [[UInt8]] = []
        var cursor: String?
        repeat {
            let next = request(cursor)
            let answer = harness.server.respond(to: next)
            guard answer.status == 200 else { throw BenchFailure("sync breakdown: the server answered \(answer.status)") }
            let page = try ChangePage(wireBytes: answer.body)
            requests.append(next)
            bodies.append(answer.body)
            cursor = page.hasMore ? page.cursor : nil
        } while cursor != nil

        func perInstrument(_ body: () async throws -> Void) async throws -> (median: Double, spread: Double) {
            let seconds = try await Measure.repeated(rounds) { try await Measure.seconds(body) }
            return (seconds.median * 1e6 / Double(count), seconds.spread)
        }
        var served = 0
        let server = try await perInstrument {
            served = 0
            for next in requests where harness.server.respond(to: next).status == 200 { served += 1 }
        }
        guard served == requests.count else { throw BenchFailure("sync breakdown: \(served) answers served") }
        var pages: [ChangePage] = []
        let decode = try await perInstrument {
            pages = try bodies.map { try ChangePage(wireBytes: $0) }
        }
        var checked: [VaultStore.CheckedRemotePage] = []
        let guardCost = try await perInstrument {
            checked = try pages.map { try VaultStore.checkRemotePage(scope: scope, changes: $0.changes, newCursor: $0.cursor) }
        }
        var applied = 0
        let apply = try await perInstrument {
            let store = try freshStore()
            applied = 0
            for page in checked { applied += try await store.applyRemotePage(page).applied }
        }
        guard applied == count, checked.reduce(0, { $0 + $1.changes.count }) == count else {
            throw BenchFailure("sync breakdown: \(applied) of \(count) instruments applied")
        }
        let transport = fetchSeconds * 1e6 / Double(count) - server.median - decode.median
        let pullMicros = pullSeconds * 1e6 / Double(count)
        let stages = server.median + transport + decode.median + guardCost.median + apply.median
        let pageNote = "\(requests.count) pages of up to \(harness.configuration.limits.maxPageSize) changes"
        return [
            Figure(name: "sync.pull_cost_server", value: server.median, unit: "µs/instrument", spread: server.spread,
                   note: "the server's answers in process (VaultServer.respond: admission, authentication, SQLite read, "
                       + "encoding), \(pageNote)"),
            Figure(name: "sync.pull_cost_transport", value: transport, unit: "µs/instrument",
                   note: "the fetch-only pass (sync.fetch_only) less the server and the decode: libcurl, libmicrohttpd, loopback TCP"),
            Figure(name: "sync.pull_cost_decode", value: decode.median, unit: "µs/instrument", spread: decode.spread,
                   note: "ChangePage(wireBytes:) over the same pages"),
            Figure(name: "sync.pull_cost_guard", value: guardCost.median, unit: "µs/instrument", spread: guardCost.spread,
                   note: "VaultStore.checkRemotePage: the payment-data guard on every value and the store's row rules"),
            Figure(name: "sync.pull_cost_apply", value: apply.median, unit: "µs/instrument", spread: apply.spread,
                   note: "VaultStore.applyRemotePage of the checked pages into an empty store (the SQLite write)"),
            Figure(name: "sync.pull_cost_total", value: stages, unit: "µs/instrument",
                   note: "the five stages one after another; the pull took \(Figure.format(pullMicros)) µs per instrument "
                       + "of wall time, its pipeline overlapping the next page's fetch, decode and checks with the "
                       + "current page's write on two cores"),
        ]
    }
}
