import CheckoutCore
import CheckoutLocking
import CheckoutVault
import CheckoutVaultTesting
import Testing

/// A remote that records the `limit` of every feed request and can spoil one page (a full card
/// number in a holder's name, as a broken or hostile server might send).
final class PageSpoilingRemote: RemoteVault {
    let inner: any RemoteVault
    private let spoiledPage: Int?
    private let pages = Locked<[Int]>([])

    init(_ inner: any RemoteVault, spoilingPage spoiledPage: Int? = nil) {
        self.inner = inner
        self.spoiledPage = spoiledPage
    }

    /// The `limit` of each feed request, in order.
    var limitsAsked: [Int] { pages.withLock { $0 } }

    func identity(scope: VaultScope) async throws -> VaultIdentity { try await inner.identity(scope: scope) }

    func changes(scope: VaultScope, cursor: String?, limit: Int) async throws -> ChangePage {
        let index = pages.withLock { $0.append(limit); return $0.count }
        var page = try await inner.changes(scope: scope, cursor: cursor, limit: limit)
        if index == spoiledPage, var method = page.changes.first?.method {
            method.paymentInstrumentData.cardholderName = "4242 4242 4242 4242"
            page.changes[0] = .upsert(method, version: page.changes[0].version)
        }
        return page
    }

    func push(scope: VaultScope, ops: [OutboundOp]) async throws -> [OpResult] { try await inner.push(scope: scope, ops: ops) }

    func instruments(scope: VaultScope) async throws -> [RemoteInstrument] { try await inner.instruments(scope: scope) }
}

@Suite("The pull asks for the largest pages, and checks each page before any of it is written")
struct PipelinedPullTests {
    let scope = Fixture.scope()

    /// A server (the double) holding `count` instruments of the customer, in pages of at most 50.
    func server(holding count: Int) async throws -> InMemoryRemoteVault {
        let server = InMemoryRemoteVault(merchantId: Fixture.merchant, limits: .init(maxPageSize: 50))
        let ops = (0..<count).map { Fixture.upsert("op-\($0)", Fixture.card("tok_\($0)")) }
        let results = try await server.push(scope: scope, ops: ops)
        #expect(results.allSatisfy { $0.status == .applied })
        return server
    }

    @Test("the default configuration asks every page for more than any server allows, so the server's caps size the pages")
    func asksForTheLargestPage() async throws {
        let remote = PageSpoilingRemote(try await server(holding: 120))
        let directory = try TestDirectory()
        let engine = SyncEngine(store: try directory.store("device"), remote: remote,
                                configuration: .init(scopes: [scope], includePendingScopes: false, interval: nil))
        let report = try await engine.syncNow(scope: scope)
        #expect(report.pulled == 120)
        #expect(remote.limitsAsked == [SyncEngine.Configuration.largestPage, SyncEngine.Configuration.largestPage,
                                       SyncEngine.Configuration.largestPage])
    }

    @Test("a page the store refuses ends the round as a malformed answer; the pages before it stay written, the cursor after them")
    func refusedPageKeepsWhatCameBefore() async throws {
        let remote = PageSpoilingRemote(try await server(holding: 120), spoilingPage: 2)
        let directory = try TestDirectory()
        let store = try directory.store("device")
        let engine = SyncEngine.testing(store, remote, scope: scope, pageSize: 50)
        await #expect {
            _ = try await engine.syncNow(scope: scope)
        } throws: { error in
            (error as? SyncError)?.code == .malformedResponse
        }
        #expect(try await store.instruments(scope: scope).count == 50)
        // The next round (the server sends the page unspoiled now) starts from the first page's
        // cursor: two requests, not three.
        let before = remote.limitsAsked.count
        let report = try await engine.syncNow(scope: scope)
        #expect(report.pulled == 70)
        #expect(remote.limitsAsked.count == before + 2)
        let all = try await store.instruments(scope: scope)
        #expect(all.count == 120)
        #expect(!all.contains { $0.paymentInstrumentData.cardholderName?.contains("4242 4242") == true })
    }
}
