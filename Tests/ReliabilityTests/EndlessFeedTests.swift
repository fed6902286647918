import CheckoutCore
import CheckoutCoreTesting
import CheckoutLocking
import CheckoutVault
import CheckoutVaultTesting
import Foundation
import Testing

/// A server that always answers `hasMore` cannot keep a round running. Each
/// round ends after `maxPagesPerRound` pages or `roundTimeBudget`, says it is partial, and the
/// next round resumes from the stored cursor.
///
/// The limit is a hang guard only: these tests assert what ends a round (on a manual clock), not
/// how fast. The default round is 1,000 page requests, each with its own SQLite commit: 7 s on an
/// idle machine, nearly 3 minutes at the start of a full parallel run.
@Suite(.timeLimit(.minutes(8)))
struct EndlessFeed {
    static let scope = VaultScope(merchantId: "merchant_a", customerId: "endless")

    /// A hostile vault: every page holds one new instrument, a fresh cursor and `hasMore: true`.
    /// Its answers are honest HTTP (complete, keep-alive); only the feed never ends. Records the
    /// cursor of every feed request; `onPage` runs before each feed answer.
    final class Server: Sendable {
        final class CursorLog: Sendable {
            let seen = Locked<[String?]>([])
        }

        let stub: StubHTTPServer
        let log = CursorLog()
        let url: URL
        var cursors: [String?] { log.seen.withLock { $0 } }

        init(onPage: @escaping @Sendable () -> Void = {}) throws {
            let log = self.log
            let encoder = JSONEncoder()
            stub = try StubHTTPServer { request in
                if request.startLine.hasPrefix("GET /v1/whoami ") {
                    return (200, Array(#"{"credential":"api-key","merchant":"merchant_a"}"#.utf8))
                }
                guard request.startLine.hasPrefix("GET /v1/customers/endless/changes?") else {
                    return (404, Array(#"{"error":{"code":"not-found","message":"no such resource"}}"#.utf8))
                }
                let target = request.startLine.split(separator: " ")[1]
                let cursor = URLComponents(string: String(target))?.queryItems?.first { $0.name == "cursor" }?.value
                log.seen.withLock { $0.append(cursor) }
                onPage()
                let next = (cursor.flatMap { Int($0.dropFirst()) } ?? 0) + 1
                let page = ChangePage(changes: [.upsert(ReliabilityFixture.card("tok_\(next)"), version: 1)],
                                      cursor: "p\(next)", hasMore: true)
                return (200, (try? Array(encoder.encode(page))) ?? [])
            }
            url = try #require(URL(string: "http://127.0.0.1:\(stub.port)"))
        }

        deinit { stub.stop() }
    }

    static func store() throws -> VaultStore {
        try VaultStore(path: try ReliabilityTemp.directory("endless").appendingPathComponent("vault.sqlite").path)
    }

    @Test("a page limit ends the round: partial, the cursor kept, and the next round resumes from it")
    func pageLimit() async throws {
        let server = try Server()
        let store = try Self.store()
        let engine = SyncEngine(store: store, remote: HTTPRemoteVault(baseURL: server.url, apiKey: "stub-key", timeout: 30),
                                configuration: .init(scopes: [Self.scope], interval: nil, retry: .noRetry, maxPagesPerRound: 5),
                                clock: TestClock())
        let first = try await engine.syncNow(scope: Self.scope)
        #expect(first.partial == .pageLimit(pages: 5))
        #expect(first.pulled == 5)
        #expect(first.cursor == "p5")
        #expect(engine.currentStatus.isPartial)
        #expect(server.cursors == [nil, "p1", "p2", "p3", "p4"], "no page fetched beyond the limit")

        let second = try await engine.syncNow(scope: Self.scope)
        #expect(second.partial == .pageLimit(pages: 5))
        #expect(Array(server.cursors.dropFirst(5)) == ["p5", "p6", "p7", "p8", "p9"])
        #expect(try await store.cursor(scope: Self.scope) == "p10")
        #expect(try await store.instruments(scope: Self.scope).count == 10)
    }

    @Test("a time budget ends the round after the page in hand")
    func timeBudget() async throws {
        let clock = TestClock()
        // Every feed request takes 100 s of the engine's clock.
        let server = try Server { clock.advance(by: .seconds(100)) }
        let store = try Self.store()
        let engine = SyncEngine(store: store, remote: HTTPRemoteVault(baseURL: server.url, apiKey: "stub-key", timeout: 30),
                                configuration: .init(scopes: [Self.scope], interval: nil, retry: .noRetry,
                                                     roundTimeBudget: .seconds(10)),
                                clock: clock, wallClock: clock.wallClock)
        let report = try await engine.syncNow(scope: Self.scope)
        #expect(report.partial == .timeBudget(.seconds(10)))
        #expect(report.pulled == 1)
        #expect(server.cursors == [nil])
        #expect(engine.currentStatus.isPartial)
    }

    @Test("with the default settings a round against an endless feed ends, at the documented page limit")
    func defaultsAreBounded() async throws {
        let server = try Server()
        let store = try Self.store()
        let engine = SyncEngine(store: store, remote: HTTPRemoteVault(baseURL: server.url, apiKey: "stub-key", timeout: 30),
                                configuration: .init(scopes: [Self.scope], interval: nil, retry: .noRetry),
                                clock: TestClock())
        let report = try await engine.syncNow(scope: Self.scope)
        #expect(report.partial == .pageLimit(pages: SyncEngine.Configuration.defaultMaxPagesPerRound))
        #expect(report.pulled == 1000)
        #expect(SyncEngine.Configuration.defaultMaxPagesPerRound == 1000, "the docs give 1,000")
        #expect(SyncEngine.Configuration.defaultRoundTimeBudget == .seconds(120), "the docs give 120 s")
    }

    @Test("a round that reaches the end of the feed is not partial, and clears the status")
    func catchesUp() async throws {
        let remote = InMemoryRemoteVault(merchantId: "merchant_a")
        _ = try await remote.push(scope: Self.scope, ops: (1...6).map {
            OutboundOp(opId: "op-\($0)", kind: .upsert, instrumentId: "tok_\($0)", baseVersion: nil,
                       method: ReliabilityFixture.card("tok_\($0)"))
        })
        let store = try Self.store()
        let engine = SyncEngine(store: store, remote: remote,
                                configuration: .init(scopes: [Self.scope], pageSize: 2, interval: nil, retry: .noRetry,
                                                     maxPagesPerRound: 2),
                                clock: TestClock())
        #expect(try await engine.syncNow(scope: Self.scope).partial == .pageLimit(pages: 2))
        #expect(engine.currentStatus.isPartial)
        let last = try await engine.syncNow(scope: Self.scope)
        #expect(last.partial == nil)
        #expect(last.pulled == 2)
        #expect(!engine.currentStatus.isPartial)
        #expect(try await store.instruments(scope: Self.scope).count == 6)
    }
}
