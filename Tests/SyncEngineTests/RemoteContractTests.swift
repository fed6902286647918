import CheckoutCore
import CheckoutCoreTesting
import CheckoutVault
import CheckoutVaultTesting
import Testing

/// The same assertions against `InMemoryRemoteVault` and the real `VaultServer` over
/// `HTTPRemoteVault`: the double is only useful while it behaves like the server.
// A hang guard (the watchdog is the last one): generous, as the sanitized CI run on two loaded cores is slow.
@Suite("RemoteVault contract: in-memory double and real server", .timeLimit(.minutes(5)))
struct RemoteContractTests {
    let scope = Fixture.scope("cus_contract")

    @Test("created instruments start at version 1 and the feed is compacted and paged", arguments: RemoteKind.contract)
    func feedPaging(kind: RemoteKind) async throws {
        let harness = try RemoteHarness(kind)
        let remote = harness.remote
        let results = try await remote.push(scope: scope, ops: (1...5).map { Fixture.upsert("op-\($0)", Fixture.card("tok_\($0)")) })
        #expect(results.map(\.status) == Array(repeating: .applied, count: 5))
        #expect(results.map(\.version) == Array(repeating: 1, count: 5))
        // Edit tok_1 so it moves to the end of the feed (one entry per instrument).
        let edit = try await remote.push(scope: scope, ops: [Fixture.upsert("op-6", Fixture.card("tok_1", last4: "1111"), base: 1)])
        #expect(edit == [OpResult(opId: "op-6", status: .applied, version: 2)])

        let first = try await remote.changes(scope: scope, cursor: nil, limit: 2)
        #expect(first.changes.map(\.token) == ["tok_2", "tok_3"])
        #expect(first.hasMore)
        let second = try await remote.changes(scope: scope, cursor: first.cursor, limit: 2)
        #expect(second.changes.map(\.token) == ["tok_4", "tok_5"])
        #expect(second.hasMore)
        let third = try await remote.changes(scope: scope, cursor: second.cursor, limit: 2)
        #expect(third.changes == [.upsert(Fixture.card("tok_1", last4: "1111"), version: 2)])
        #expect(!third.hasMore)
        let empty = try await remote.changes(scope: scope, cursor: third.cursor, limit: 2)
        #expect(empty == ChangePage(changes: [], cursor: third.cursor, hasMore: false))
    }

    /// The seed's `paymentInstrumentData.externalPayerInfo`: a PayPal agreement's payer goes up with a push and
    /// comes back in the feed and the instrument list exactly as sent, and a device's store keeps it.
    @Test("a wallet agreement's external payer info travels through push, the feed and a store unchanged",
          arguments: RemoteKind.contract)
    func externalPayerInfo(kind: RemoteKind) async throws {
        let remote = try RemoteHarness(kind).remote
        let agreement = Fixture.payPalAgreement("tok_pp")
        let anonymous = Fixture.payPalAgreement("tok_pp2", email: nil)
        let results = try await remote.push(scope: scope, ops: [Fixture.upsert("op-1", agreement), Fixture.upsert("op-2", anonymous)])
        #expect(results.map(\.status) == [.applied, .applied])
        let page = try await remote.changes(scope: scope, cursor: nil, limit: 10)
        #expect(page.changes == [.upsert(agreement, version: 1), .upsert(anonymous, version: 1)])
        #expect(try await remote.instruments(scope: scope).map(\.method) == [agreement, anonymous])

        let directory = try TestDirectory()
        let store = try directory.store("device")
        let engine = SyncEngine(store: store, remote: remote, configuration: .init(interval: nil, retry: .noRetry),
                                clock: TestClock())
        _ = try await engine.syncNow(scope: scope)
        let saved = try await store.instruments(scope: scope)
        #expect(Set(saved.map(\.id)) == ["tok_pp", "tok_pp2"])
        #expect(saved.first { $0.id == "tok_pp" }?.paymentInstrumentData.externalPayerInfo == agreement.paymentInstrumentData.externalPayerInfo)
        #expect(saved.first { $0.id == "tok_pp2" }?.paymentInstrumentData.externalPayerInfo?.email == nil)
    }

    @Test("delete wins over a later edit and a later setDefault", arguments: RemoteKind.contract)
    func deleteWins(kind: RemoteKind) async throws {
        let remote = try RemoteHarness(kind).remote
        _ = try await remote.push(scope: scope, ops: [Fixture.upsert("op-1", Fixture.card("tok_a"))])
        let results = try await remote.push(scope: scope, ops: [
            Fixture.delete("op-2", "tok_a", base: 1),
            Fixture.upsert("op-3", Fixture.card("tok_a", last4: "9999"), base: 1),
            Fixture.setDefault("op-4", "tok_a", base: 1),
            Fixture.delete("op-5", "tok_a", base: 1),
        ])
        let tombstone = RemoteChange.delete(token: "tok_a", version: 2)
        #expect(results == [
            OpResult(opId: "op-2", status: .applied, version: 2),
            OpResult(opId: "op-3", status: .conflict, reason: "deleted", message: "the instrument was deleted", current: tombstone),
            OpResult(opId: "op-4", status: .conflict, reason: "deleted", message: "the instrument was deleted", current: tombstone),
            OpResult(opId: "op-5", status: .applied, version: 2),
        ])
        #expect(try await remote.instruments(scope: scope).isEmpty)
        #expect(try await allChanges(remote, scope) == [tombstone])
    }

    @Test("exactly one default: setting one clears the other as a change of its own", arguments: RemoteKind.contract)
    func exactlyOneDefault(kind: RemoteKind) async throws {
        let remote = try RemoteHarness(kind).remote
        _ = try await remote.push(scope: scope, ops: [
            Fixture.upsert("op-1", Fixture.card("tok_a", isDefault: true)),
            Fixture.upsert("op-2", Fixture.card("tok_b", isDefault: true)),
        ])
        var instruments = try await remote.instruments(scope: scope)
        #expect(instruments == [
            RemoteInstrument(id: "tok_b", version: 1, method: Fixture.card("tok_b", isDefault: true)),
            RemoteInstrument(id: "tok_a", version: 2, method: Fixture.card("tok_a")),
        ])
        let results = try await remote.push(scope: scope, ops: [Fixture.setDefault("op-3", "tok_a", base: 2)])
        #expect(results == [OpResult(opId: "op-3", status: .applied, version: 3)])
        instruments = try await remote.instruments(scope: scope)
        #expect(instruments == [
            RemoteInstrument(id: "tok_a", version: 3, method: Fixture.card("tok_a", isDefault: true)),
            RemoteInstrument(id: "tok_b", version: 2, method: Fixture.card("tok_b")),
        ])
    }

    @Test("an op sent twice is applied once and answered the same; another body under its id is 422",
          arguments: RemoteKind.contract)
    func idempotency(kind: RemoteKind) async throws {
        let remote = try RemoteHarness(kind).remote
        let op = Fixture.upsert("op-1", Fixture.card("tok_a"))
        let first = try await remote.push(scope: scope, ops: [op])
        let second = try await remote.push(scope: scope, ops: [op])
        #expect(first == [OpResult(opId: "op-1", status: .applied, version: 1)])
        #expect(second == first)
        #expect(try await allChanges(remote, scope) == [.upsert(Fixture.card("tok_a"), version: 1)])

        await #expect(throws: RemoteVaultError.httpStatus(status: 422, code: "idempotency-key-reused",
                                                          message: "an op id was reused with a different body",
                                                          retryAfterSeconds: nil)) {
            try await remote.push(scope: scope, ops: [Fixture.upsert("op-2", Fixture.card("tok_b")),
                                                      Fixture.upsert("op-1", Fixture.card("tok_a", last4: "0000"))])
        }
        // The whole batch was refused: tok_b was not created.
        #expect(try await remote.instruments(scope: scope).map(\.id) == ["tok_a"])
    }

    @Test("a stale base version conflicts and carries the server's state", arguments: RemoteKind.contract)
    func staleBase(kind: RemoteKind) async throws {
        let remote = try RemoteHarness(kind).remote
        _ = try await remote.push(scope: scope, ops: [Fixture.upsert("op-1", Fixture.card("tok_a"))])
        _ = try await remote.push(scope: scope, ops: [Fixture.upsert("op-2", Fixture.card("tok_a", last4: "2222"), base: 1)])
        let results = try await remote.push(scope: scope, ops: [Fixture.upsert("op-3", Fixture.card("tok_a", last4: "3333"), base: 1)])
        #expect(results == [OpResult(opId: "op-3", status: .conflict, reason: "version-mismatch",
                                     message: "the instrument changed on the server",
                                     current: .upsert(Fixture.card("tok_a", last4: "2222"), version: 2))])
    }

    @Test("a cursor older than a purged tombstone is 410; a fresh pull works", arguments: RemoteKind.contract)
    func expiredCursor(kind: RemoteKind) async throws {
        let harness = try RemoteHarness(kind, retentionSeconds: 60)
        let remote = harness.remote
        _ = try await remote.push(scope: scope, ops: [Fixture.upsert("op-1", Fixture.card("tok_a")),
                                                      Fixture.upsert("op-2", Fixture.card("tok_b"))])
        let early = try await remote.changes(scope: scope, cursor: nil, limit: 1)
        _ = try await remote.push(scope: scope, ops: [Fixture.delete("op-3", "tok_b", base: 1)])
        harness.time.advance(seconds: 61)
        await #expect(throws: RemoteVaultError.cursorExpired) {
            try await remote.changes(scope: scope, cursor: early.cursor, limit: 10)
        }
        #expect(try await allChanges(remote, scope) == [.upsert(Fixture.card("tok_a"), version: 1)])
    }

    @Test("bad requests: invalid cursor and limit are 400, too many ops 413", arguments: RemoteKind.contract)
    func badRequests(kind: RemoteKind) async throws {
        let remote = try RemoteHarness(kind, maxOpsPerBatch: 2).remote
        await #expect(throws: RemoteVaultError.httpStatus(status: 400, code: "invalid-cursor",
                                                          message: "the cursor was not issued by this server",
                                                          retryAfterSeconds: nil)) {
            try await remote.changes(scope: scope, cursor: "not-a-cursor", limit: 10)
        }
        await #expect(throws: RemoteVaultError.httpStatus(status: 400, code: "invalid-limit",
                                                          message: "limit must be a positive integer", retryAfterSeconds: nil)) {
            try await remote.changes(scope: scope, cursor: nil, limit: 0)
        }
        let ops = (1...3).map { Fixture.upsert("op-\($0)", Fixture.card("tok_\($0)")) }
        await #expect(throws: RemoteVaultError.httpStatus(status: 413, code: "too-many-ops",
                                                          message: "a batch may carry at most 2 ops", retryAfterSeconds: nil)) {
            try await remote.push(scope: scope, ops: ops)
        }
    }

    @Test("another customer's writes change nothing this customer reads", arguments: RemoteKind.contract)
    func otherCustomersAreInvisible(kind: RemoteKind) async throws {
        let remote = try RemoteHarness(kind).remote
        /// The same history for `customer`: results, then the feed paged by 1, with its cursors.
        func history(_ customer: String) async throws -> (results: [OpResult], pages: [ChangePage]) {
            let scope = Fixture.scope(customer)
            var results = try await remote.push(scope: scope, ops: [Fixture.upsert("op-1", Fixture.card("tok_a")),
                                                                    Fixture.upsert("op-2", Fixture.card("tok_b"))])
            results += try await remote.push(scope: scope, ops: [Fixture.delete("op-3", "tok_b"),
                                                                 Fixture.upsert("op-4", Fixture.card("tok_a"), base: 0)])
            var pages: [ChangePage] = []
            var cursor: String?
            repeat {
                pages.append(try await remote.changes(scope: scope, cursor: cursor, limit: 1))
                cursor = pages.last?.cursor
            } while pages.last?.hasMore == true
            return (results, pages)
        }
        let first = try await history("cus_first")
        let other = Fixture.scope("cus_other")
        for index in 0..<10 {
            _ = try await remote.push(scope: other, ops: [Fixture.upsert("other-\(index)", Fixture.card("tok_\(index)"))])
        }
        let second = try await history("cus_second")
        #expect(second.results == first.results)
        #expect(second.pages.map(\.changes) == first.pages.map(\.changes))
        #expect(second.pages.map(\.hasMore) == first.pages.map(\.hasMore))
        if kind == .inMemory {
            // The double's cursors are plain counts of the customer's own changes; the server's
            // are enciphered for their customer, so only the double's can be compared here.
            #expect(second.pages.map(\.cursor) == first.pages.map(\.cursor))
        }
    }

    @Test("an upsert or setDefault of an unknown instrument", arguments: RemoteKind.contract)
    func unknownInstrument(kind: RemoteKind) async throws {
        let remote = try RemoteHarness(kind).remote
        let results = try await remote.push(scope: scope, ops: [
            Fixture.upsert("op-1", Fixture.card("tok_x"), base: 4),
            Fixture.setDefault("op-2", "tok_x"),
            Fixture.delete("op-3", "tok_x"),
        ])
        #expect(results == [
            OpResult(opId: "op-1", status: .conflict, reason: "not-found",
                     message: "the instrument does not exist (it may have been deleted and purged)"),
            OpResult(opId: "op-2", status: .rejected, reason: "not-found", message: "no such instrument"),
            OpResult(opId: "op-3", status: .rejected, reason: "not-found", message: "no such instrument"),
        ])
    }
}
