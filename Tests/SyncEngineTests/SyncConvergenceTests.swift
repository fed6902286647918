import CheckoutCore
import CheckoutVault
import CheckoutVaultTesting
import Testing

/// End-to-end sync between local stores ("devices") through both remotes.
// A hang guard (the watchdog is the last one): generous, as the sanitized CI run on two loaded cores is slow.
@Suite("Sync convergence against both remotes", .timeLimit(.minutes(5)))
struct SyncConvergenceTests {
    let scope = Fixture.scope("cus_sync")

    /// The local rows of a store, as (token, version, deleted, isDefault, last4) for comparisons.
    static func rows(_ store: VaultStore, _ scope: VaultScope) throws -> [String] {
        try store.blocking.storedInstruments(scope: scope, includeDeleted: true)
            .map { "\($0.method.id) v\($0.version)\($0.isDeleted ? " deleted" : "")\($0.method.isDefault ? " default" : "") \($0.method.paymentInstrumentData.last4Digits ?? "-")" }
            .sorted()
    }

    @Test("a sync with nothing to do costs exactly one request (no push when the outbox is empty)",
          arguments: RemoteKind.doubleAndServer)
    func idleSyncIsOneRequest(kind: RemoteKind) async throws {
        let harness = try RemoteHarness(kind)
        let directory = try TestDirectory()
        let store = try directory.store("device")
        try await store.upsert(Fixture.card("tok_a"), scope: scope)
        let engine = SyncEngine.testing(store, harness.remote, scope: scope)
        let first = try await engine.syncNow(scope: scope)
        #expect(first.pushed == 1)
        _ = try await engine.syncNow(scope: scope)  // pulls the echo of its own change

        let before = harness.clientRequestCount
        let report = try await engine.syncNow(scope: scope)
        #expect(harness.clientRequestCount - before == 1)
        #expect(report == SyncReport(pulled: 0, pushed: 0, rejected: 0, pending: 0, cursor: try await store.cursor(scope: scope)))
        #expect(report.cursor != nil)
    }

    @Test("two devices of one customer edit offline, then converge", arguments: RemoteKind.doubleAndServer)
    func twoDevicesConverge(kind: RemoteKind) async throws {
        let harness = try RemoteHarness(kind)
        let directory = try TestDirectory()
        let phone = try directory.store("phone")
        let laptop = try directory.store("laptop")
        let phoneEngine = SyncEngine.testing(phone, harness.remote, scope: scope, pageSize: 2, pushBatchSize: 2)
        let laptopEngine = SyncEngine.testing(laptop, harness.remote, scope: scope, pageSize: 2, pushBatchSize: 2)

        // Shared starting point: three cards, synced to both.
        try await phone.upsert([Fixture.card("tok_a"), Fixture.card("tok_b"), Fixture.card("tok_c")], scope: scope)
        try await phoneEngine.syncNow(scope: scope)
        try await laptopEngine.syncNow(scope: scope)
        #expect(try Self.rows(laptop, scope) == ["tok_a v1 4242", "tok_b v1 4242", "tok_c v1 4242"])

        // Offline: each device makes its own changes.
        try await phone.upsert(Fixture.card("tok_d", last4: "0004"), scope: scope)
        try await phone.setDefault(token: "tok_a", scope: scope)
        try await phone.delete(token: "tok_c", scope: scope)
        try await laptop.upsert(Fixture.card("tok_e", last4: "0005"), scope: scope)
        try await laptop.upsert(Fixture.card("tok_b", last4: "1234"), scope: scope)
        try await laptop.setDefault(token: "tok_e", scope: scope)

        // Online again, in turn: phone, laptop, phone.
        let phoneReport = try await phoneEngine.syncNow(scope: scope)
        #expect(phoneReport.pushed == 3)
        let laptopReport = try await laptopEngine.syncNow(scope: scope)
        #expect(laptopReport.pushed == 3)
        #expect(laptopReport.rejected == 0)
        try await phoneEngine.syncNow(scope: scope)
        try await laptopEngine.syncNow(scope: scope)

        let server = try await harness.serverInstruments(scope)
        #expect(server.map(\.id) == ["tok_e", "tok_a", "tok_b", "tok_d"])
        #expect(Set(try await phone.instruments(scope: scope).map(\.id)) == Set(server.map(\.id)))
        #expect(try Self.rows(phone, scope) == Self.rows(laptop, scope))
        #expect(try await phone.instruments(scope: scope).filter(\.isDefault).map(\.id) == ["tok_e"])
        #expect(try await phone.instrument(token: "tok_b", scope: scope)?.method.paymentInstrumentData.last4Digits == "1234")
        #expect(try await phone.instrument(token: "tok_c", scope: scope)?.isDeleted == true)
        #expect(try await phone.pendingCount(scope: scope) == 0)
        #expect(try await laptop.pendingCount(scope: scope) == 0)
    }

    /// Which device reaches the server first.
    enum Order: String, CaseIterable, Sendable { case deleteFirst, defaultFirst }

    @Test("delete on one device while the other sets it default: delete wins",
          arguments: RemoteKind.doubleAndServer, Order.allCases)
    func deleteWinsOverDefault(kind: RemoteKind, order: Order) async throws {
        let harness = try RemoteHarness(kind)
        let directory = try TestDirectory()
        let deleter = try directory.store("deleter")
        let defaulter = try directory.store("defaulter")
        let deleterEngine = SyncEngine.testing(deleter, harness.remote, scope: scope)
        let defaulterEngine = SyncEngine.testing(defaulter, harness.remote, scope: scope)
        try await deleter.upsert([Fixture.card("tok_a", isDefault: true), Fixture.card("tok_b")], scope: scope)
        try await deleterEngine.syncNow(scope: scope)
        try await defaulterEngine.syncNow(scope: scope)

        try await deleter.delete(token: "tok_b", scope: scope)
        try await defaulter.setDefault(token: "tok_b", scope: scope)
        let rejections = StreamRecorder(defaulterEngine.rejections())

        if order == .deleteFirst {
            try await deleterEngine.syncNow(scope: scope)
            let report = try await defaulterEngine.syncNow(scope: scope)
            #expect(report.rejected == 1)
            #expect(report.rejections.map(\.reason) == ["deleted"])
            #expect(await rejections.waitUntil { $0.count == 1 })
            #expect(rejections.all.map(\.verdict) == [.conflict])
        } else {
            try await defaulterEngine.syncNow(scope: scope)
            let report = try await deleterEngine.syncNow(scope: scope)
            #expect(report.pushed == 1)
            #expect(report.rejected == 0)
        }
        try await deleterEngine.syncNow(scope: scope)
        try await defaulterEngine.syncNow(scope: scope)

        #expect(try await harness.serverInstruments(scope).map(\.id) == ["tok_a"])
        for store in [deleter, defaulter] {
            #expect(try await store.instruments(scope: scope).map(\.id) == ["tok_a"])
            #expect(try await store.instrument(token: "tok_b", scope: scope)?.isDeleted == true)
            #expect(try await store.pendingCount(scope: scope) == 0)
        }
    }

    @Test("a row with a queued local edit is not overwritten by older server state; the server decides at push",
          arguments: RemoteKind.doubleAndServer)
    func pendingRowsKeepLocalState(kind: RemoteKind) async throws {
        let harness = try RemoteHarness(kind)
        let directory = try TestDirectory()
        let mine = try directory.store("mine")
        let other = try directory.store("other")
        let mineEngine = SyncEngine.testing(mine, harness.remote, scope: scope)
        let otherEngine = SyncEngine.testing(other, harness.remote, scope: scope)
        try await mine.upsert(Fixture.card("tok_a"), scope: scope)
        try await mineEngine.syncNow(scope: scope)
        try await otherEngine.syncNow(scope: scope)

        // The other device edits first and wins; my queued edit of the same card is based on v1.
        try await other.upsert(Fixture.card("tok_a", last4: "2222"), scope: scope)
        try await otherEngine.syncNow(scope: scope)
        try await mine.upsert(Fixture.card("tok_a", last4: "1111"), scope: scope)

        // Pull alone (the push is held off by a failing push) keeps my local edit on screen.
        if let memory = harness.memory {
            memory.failNext(1, .push, with: .unauthorized)
            await #expect(throws: SyncError.self) { try await mineEngine.syncNow(scope: scope) }
            #expect(try await mine.instrument(token: "tok_a", scope: scope)?.method.paymentInstrumentData.last4Digits == "1111")
            #expect(try await mine.pendingCount(scope: scope) == 1)
        }

        let report = try await mineEngine.syncNow(scope: scope)
        #expect(report.rejected == 1)
        #expect(report.rejections.map(\.reason) == ["version-mismatch"])
        // The server's state was adopted.
        let row = try #require(try await mine.instrument(token: "tok_a", scope: scope))
        #expect(row.method.paymentInstrumentData.last4Digits == "2222")
        #expect(row.version == 2)
        #expect(try await mine.pendingCount(scope: scope) == 0)
    }

    @Test("410: the customer is reset and pulled from scratch, queued ops survive and are pushed",
          arguments: RemoteKind.doubleAndServer)
    func expiredCursorKeepsPendingOps(kind: RemoteKind) async throws {
        let harness = try RemoteHarness(kind, retentionSeconds: 60)
        let directory = try TestDirectory()
        let device = try directory.store("device")
        let other = try directory.store("other")
        let engine = SyncEngine.testing(device, harness.remote, scope: scope)
        let otherEngine = SyncEngine.testing(other, harness.remote, scope: scope)
        try await other.upsert([Fixture.card("tok_a"), Fixture.card("tok_b"), Fixture.card("tok_c")], scope: scope)
        try await otherEngine.syncNow(scope: scope)
        try await engine.syncNow(scope: scope)
        let staleCursor = try await device.cursor(scope: scope)

        // Meanwhile: tok_b is deleted elsewhere and its tombstone purged; this device queues an edit.
        try await other.delete(token: "tok_b", scope: scope)
        try await otherEngine.syncNow(scope: scope)
        harness.time.advance(seconds: 120)
        try await device.upsert(Fixture.card("tok_new", last4: "7777"), scope: scope)

        let report = try await engine.syncNow(scope: scope)
        #expect(report.didReset)
        #expect(report.pushed == 1)
        #expect(report.pending == 0)
        #expect(report.pulled == 2)  // tok_a and tok_c again, from scratch
        #expect(staleCursor != nil)
        #expect(try await device.instruments(scope: scope).map(\.id).sorted() == ["tok_a", "tok_c", "tok_new"])
        #expect(try await harness.serverInstruments(scope).map(\.id).sorted() == ["tok_a", "tok_c", "tok_new"])
    }

    @Test("a cursor the server does not recognise (400 invalid-cursor: a replaced vault) resets like 410, ops kept",
          arguments: RemoteKind.doubleAndServer)
    func unrecognisedCursorResets(kind: RemoteKind) async throws {
        let harness = try RemoteHarness(kind)
        let directory = try TestDirectory()
        let device = try directory.store("device")
        let engine = SyncEngine.testing(device, harness.remote, scope: scope)
        try await device.upsert(Fixture.card("tok_a"), scope: scope)
        try await engine.syncNow(scope: scope)
        // The device holds a cursor the server no longer accepts (a v2 cursor from before the upgrade,
        // or one of some other vault), and has queued an edit meanwhile.
        _ = try await device.applyRemotePage(scope: scope, changes: [], newCursor: "v2." + String(repeating: "b", count: 32))
        try await device.upsert(Fixture.card("tok_new", last4: "7777"), scope: scope)

        let report = try await engine.syncNow(scope: scope)
        #expect(report.didReset)
        #expect(report.pulled == 1)  // tok_a again, from scratch
        #expect(report.pushed == 1)
        #expect(report.pending == 0)
        #expect(try await device.cursor(scope: scope) != "v2." + String(repeating: "b", count: 32))
        #expect(try await device.instruments(scope: scope).map(\.id).sorted() == ["tok_a", "tok_new"])
        #expect(try await harness.serverInstruments(scope).map(\.id).sorted() == ["tok_a", "tok_new"])
    }

    @Test("two queued edits of one instrument are pushed one after the other, both applied",
          arguments: RemoteKind.doubleAndServer)
    func repeatedEditsRebase(kind: RemoteKind) async throws {
        let harness = try RemoteHarness(kind)
        let directory = try TestDirectory()
        let device = try directory.store("device")
        let engine = SyncEngine.testing(device, harness.remote, scope: scope)
        try await device.upsert(Fixture.card("tok_a", last4: "0001"), scope: scope)
        try await device.upsert(Fixture.card("tok_b"), scope: scope)
        try await device.upsert(Fixture.card("tok_a", last4: "0002"), scope: scope)
        try await device.setDefault(token: "tok_a", scope: scope)

        let report = try await engine.syncNow(scope: scope)
        #expect(report.pushed == 4)
        #expect(report.rejected == 0)
        let server = try await harness.serverInstruments(scope)
        #expect(server.map(\.id) == ["tok_a", "tok_b"])
        #expect(server.first?.method.paymentInstrumentData.last4Digits == "0002")
        #expect(server.first?.version == 3)
        #expect(try await device.instrument(token: "tok_a", scope: scope)?.version == 3)
    }
}
