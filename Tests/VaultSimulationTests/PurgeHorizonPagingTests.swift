import CheckoutCore
import CheckoutVault
import Foundation
import Testing
import VaultServer
import VaultSimulation

/// Found by the simulator (seed 42): a device pulling the feed from the start, in pages, of a
/// customer whose tombstones were purged before the pull began, got 410 on its second page (its
/// cursor lay below the purge horizon), reset, and got 410 again, for ever. A cursor is expired
/// only when tombstones after it were purged since it was issued.
@Suite("Paging below an older purge horizon")
struct PurgeHorizonPagingTests {
    let scope = VaultScope(merchantId: "m_replay", customerId: "c_horizon")

    /// A server in process on a clock the test moves (tombstones kept 60 s), and its devices.
    final class World {
        let scope: VaultScope
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("horizon-\(UUID().uuidString)")
        let time = SimulatedTime()
        let server: VaultServer

        init(scope: VaultScope) throws {
            self.scope = scope
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            server = VaultServer(configuration: VaultServerConfiguration(
                apiKeys: [LostAnswerReplayTests.key: scope.merchantId], tombstoneRetentionSeconds: 60,
                limits: VaultServerConfiguration.Limits().withoutRateLimits),
                storage: InMemoryVaultServerStorage(), clock: time.wallClock, log: VaultServerLog { _ in })
        }

        deinit { try? FileManager.default.removeItem(at: folder) }

        /// A device with its own store; `pageSize` changes per feed page.
        func device(_ name: String, pageSize: Int = 1000) async throws -> (VaultStore, SyncEngine) {
            let store = try await VaultStore.open(path: folder.appendingPathComponent("\(name).sqlite").path)
            let remote = HTTPRemoteVault(baseURL: URL(string: "https://vault.test")!, credentials: .apiKey(LostAnswerReplayTests.key),
                                         exchange: LostAnswerReplayTests.Link(server))
            let engine = await SyncEngine.open(store: store, remote: remote, configuration: .init(
                scopes: [scope], includePendingScopes: false, pageSize: pageSize, interval: nil, retry: RetryPolicy(maxAttempts: 1)))
            return (store, engine)
        }
    }

    @Test("a fresh device pages through, and a device whose cursor predates the purge resets once and converges")
    func freshPullPagesThrough() async throws {
        let world = try World(scope: scope)
        let time = world.time
        func device(_ name: String) async throws -> (VaultStore, SyncEngine) { try await world.device(name, pageSize: 1) }
        let helper = LostAnswerReplayTests()
        let (writer, writerEngine) = try await device("writer")
        let (old, oldEngine) = try await device("old")
        try await writer.upsert([helper.card("tok_a"), helper.card("tok_b"), helper.card("tok_c")], scope: scope)
        try await writerEngine.syncNow(scope: scope)
        try await oldEngine.syncNow(scope: scope)
        #expect(try await old.instruments(scope: scope).count == 3)
        // tok_c is deleted after tok_a and tok_b were written: its tombstone is the newest change.
        #expect(try await writer.delete(token: "tok_c", scope: scope))
        try await writerEngine.syncNow(scope: scope)
        time.advance(by: .seconds(120))

        // A device that never synced pulls one change per page: the purge happened before it began.
        let (fresh, freshEngine) = try await device("fresh")
        let report = try await freshEngine.syncNow(scope: scope)
        #expect(!report.didReset)
        #expect(try await fresh.instruments(scope: scope).map(\.id).sorted() == ["tok_a", "tok_b"])

        // The old device's cursor predates the purge and tok_c's tombstone is gone: it must start over, once.
        let reset = try await oldEngine.syncNow(scope: scope)
        #expect(reset.didReset)
        #expect(try await old.instruments(scope: scope).map(\.id).sorted() == ["tok_a", "tok_b"])
    }

    @Test("a device whose cursor was issued on an empty feed learns that its card's tombstone was purged (seed 1014)")
    func cursorAtZeroExpires() async throws {
        let world = try World(scope: scope)
        let time = world.time
        func device(_ name: String) async throws -> (VaultStore, SyncEngine) { try await world.device(name) }
        let (phone, phoneEngine) = try await device("phone")
        let (laptop, laptopEngine) = try await device("laptop")
        // The phone's first round pulls an empty feed (its cursor: sequence 0), then pushes its card.
        try await phone.upsert(LostAnswerReplayTests().card("tok_a"), scope: scope)
        try await phoneEngine.syncNow(scope: scope)
        // The laptop deletes it; the tombstone is purged.
        try await laptopEngine.syncNow(scope: scope)
        #expect(try await laptop.delete(token: "tok_a", scope: scope))
        try await laptopEngine.syncNow(scope: scope)
        time.advance(by: .seconds(120))

        let report = try await phoneEngine.syncNow(scope: scope)
        #expect(report.didReset)
        #expect(try await phone.instruments(scope: scope).isEmpty)
    }
}
