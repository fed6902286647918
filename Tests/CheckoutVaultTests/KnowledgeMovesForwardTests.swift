import CheckoutCore
@testable import CheckoutVault
import Testing

/// What a device knows of the server only moves forward: an answer older than what the feed
/// already showed (a replay of an answer lost earlier) never overwrites it. Each test plays the
/// store's side of one path by hand, with the server's states written out as the server makes
/// them (versions grow by one per change; clearing a default is a change of its own).
@Suite("The device's knowledge of the server only moves forward")
struct KnowledgeMovesForwardTests {
    let scope = Fixtures.alice

    /// The store after a first pull of tok_a (default), tok_b and tok_c, all at version 1.
    func seeded(_ directory: TemporaryDirectory) throws -> VaultStore {
        let store = try Fixtures.store(in: directory)
        try store.blocking.applyRemotePage(scope: scope, changes: [
            .upsert(Fixtures.card("tok_a", isDefault: true), version: 1),
            .upsert(Fixtures.card("tok_b"), version: 1),
            .upsert(Fixtures.card("tok_c"), version: 1),
        ], newCursor: "c1")
        return store
    }

    func shownDefault(_ store: VaultStore) throws -> [String] {
        try store.blocking.instruments(scope: scope).filter(\.isDefault).map(\.id)
    }

    func versions(_ store: VaultStore) throws -> [String: Int64] {
        Dictionary(uniqueKeysWithValues: try store.blocking.storedInstruments(scope: scope).map { ($0.method.id, $0.version) })
    }

    @Test("a setDefault answer replayed after a newer pull does not bring back the default the server replaced")
    func replayedSetDefaultAfterNewerPull() throws {
        let directory = try TemporaryDirectory()
        let phone = try seeded(directory)
        // 1. The phone makes tok_b its default; the server applies it (tok_a cleared at 2, tok_b
        //    default at 2) but the answer is lost.
        try phone.blocking.setDefault(token: "tok_b", scope: scope)
        let opId = try #require(try phone.blocking.pendingOps(scope: scope).first?.id)
        // 2. The laptop makes tok_c the default: tok_b cleared at 3, tok_c default at 2.
        // 3. The phone pulls: tok_b's change is set aside (its setDefault is queued), the cursor moves on.
        try phone.blocking.applyRemotePage(scope: scope, changes: [
            .upsert(Fixtures.card("tok_a"), version: 2),
            .upsert(Fixtures.card("tok_b"), version: 3),
            .upsert(Fixtures.card("tok_c", isDefault: true), version: 2),
        ], newCursor: "c2")
        // 4. Its push replays the logged answer: "applied, version 2".
        try phone.blocking.completeOps(applied: [(opId, 2)])

        #expect(try shownDefault(phone) == ["tok_c"])
        #expect(try phone.blocking.knownServerDefault(scope: scope) == .some("tok_c"))
        #expect(try versions(phone) == ["tok_a": 2, "tok_b": 3, "tok_c": 2])
        #expect(try phone.blocking.pendingCount(scope: scope) == 0)
    }

    @Test("an edit's answer replayed after the feed showed another device's newer edit leaves the newer edit")
    func replayedEditAfterNewerPull() throws {
        let directory = try TemporaryDirectory()
        let phone = try seeded(directory)
        try phone.blocking.upsert(Fixtures.card("tok_b", name: "Phone Edit"), scope: scope)
        let opId = try #require(try phone.blocking.pendingOps(scope: scope).first?.id)
        // The server applied the phone's edit at 2 (answer lost); the laptop edited it at 3.
        try phone.blocking.applyRemotePage(scope: scope, changes: [.upsert(Fixtures.card("tok_b", name: "Laptop Edit"), version: 3)],
                                           newCursor: "c2")
        try phone.blocking.completeOps(applied: [(opId, 2)])

        let row = try #require(try phone.blocking.instrument(token: "tok_b", scope: scope))
        #expect(row.version == 3)
        #expect(row.method.paymentInstrumentData.cardholderName == "Laptop Edit")
    }

    @Test("a fresh answer newer than the set-aside change wins, and the set-aside change is forgotten")
    func freshAnswerBeatsOlderSetAside() throws {
        let directory = try TemporaryDirectory()
        let phone = try seeded(directory)
        try phone.blocking.upsert(Fixtures.card("tok_b", name: "Phone Edit"), scope: scope)
        let opId = try #require(try phone.blocking.pendingOps(scope: scope).first?.id)
        // The feed shows the laptop's edit at 2; the server then applied the phone's at 3.
        try phone.blocking.applyRemotePage(scope: scope, changes: [.upsert(Fixtures.card("tok_b", name: "Laptop Edit"), version: 2)],
                                           newCursor: "c2")
        try phone.blocking.completeOps(applied: [(opId, 3)])

        let row = try #require(try phone.blocking.instrument(token: "tok_b", scope: scope))
        #expect(row.version == 3)
        #expect(row.method.paymentInstrumentData.cardholderName == "Phone Edit")
        // Nothing is left to apply later: a further settle changes nothing.
        try phone.blocking.applyRemotePage(scope: scope, changes: [], newCursor: "c3")
        #expect(try phone.blocking.instrument(token: "tok_b", scope: scope)?.method.paymentInstrumentData.cardholderName == "Phone Edit")
    }

    @Test("a refused edit takes the server's state the pull set aside")
    func refusedEditTakesSetAsideState() throws {
        let directory = try TemporaryDirectory()
        let phone = try seeded(directory)
        try phone.blocking.upsert(Fixtures.card("tok_b", name: "Phone Edit"), scope: scope)
        let opId = try #require(try phone.blocking.pendingOps(scope: scope).first?.id)
        try phone.blocking.applyRemotePage(scope: scope, changes: [.upsert(Fixtures.card("tok_b", name: "Laptop Edit"), version: 2)],
                                           newCursor: "c2")
        try phone.blocking.completeOps(rejected: [(opId, "version-mismatch")])

        let row = try #require(try phone.blocking.instrument(token: "tok_b", scope: scope))
        #expect(row.version == 2)
        #expect(row.method.paymentInstrumentData.cardholderName == "Laptop Edit")
    }

    @Test("a replayed setDefault of an instrument whose tombstone was pulled leaves no default pointing at it")
    func replayedSetDefaultAfterTombstone() throws {
        let directory = try TemporaryDirectory()
        let phone = try seeded(directory)
        try phone.blocking.setDefault(token: "tok_b", scope: scope)
        let opId = try #require(try phone.blocking.pendingOps(scope: scope).first?.id)
        // Server: tok_a cleared at 2, tok_b default at 2 (answer lost); then the laptop made tok_c
        // the default (tok_b cleared at 3, tok_c at 2) and deleted tok_b (tombstone at 4).
        try phone.blocking.applyRemotePage(scope: scope, changes: [
            .upsert(Fixtures.card("tok_a"), version: 2),
            .upsert(Fixtures.card("tok_c", isDefault: true), version: 2),
            .delete(token: "tok_b", version: 4),
        ], newCursor: "c2")
        try phone.blocking.completeOps(applied: [(opId, 2)])

        #expect(try phone.blocking.knownServerDefault(scope: scope) == .some("tok_c"))
        #expect(try shownDefault(phone) == ["tok_c"])
        #expect(try phone.blocking.instrument(token: "tok_b", scope: scope)?.isDeleted == true)
    }

    @Test("a page boundary between a cleared default and the new one: a replayed answer in between moves nothing")
    func pageBoundaryBetweenClearAndNewDefault() throws {
        let directory = try TemporaryDirectory()
        let phone = try seeded(directory)
        try phone.blocking.setDefault(token: "tok_b", scope: scope)
        let opId = try #require(try phone.blocking.pendingOps(scope: scope).first?.id)
        // Server: the phone's setDefault applied (tok_a cleared at 2, tok_b default at 2; answer
        // lost), then the laptop's: tok_b cleared at 3, then tok_c default at 2. The first page
        // ends with the clear.
        try phone.blocking.applyRemotePage(scope: scope, changes: [
            .upsert(Fixtures.card("tok_a"), version: 2),
            .upsert(Fixtures.card("tok_b"), version: 3),
        ], newCursor: "c2")
        try phone.blocking.completeOps(applied: [(opId, 2)])
        #expect(try phone.blocking.knownServerDefault(scope: scope) == .some(nil))
        try phone.blocking.applyRemotePage(scope: scope, changes: [.upsert(Fixtures.card("tok_c", isDefault: true), version: 2)],
                                           newCursor: "c3")

        #expect(try phone.blocking.knownServerDefault(scope: scope) == .some("tok_c"))
        #expect(try shownDefault(phone) == ["tok_c"])
        #expect(try versions(phone) == ["tok_a": 2, "tok_b": 3, "tok_c": 2])
    }

    @Test("a conflict's server state replayed after a newer pull does not move the default back")
    func replayedConflictStateIsStale() throws {
        let directory = try TemporaryDirectory()
        let phone = try seeded(directory)
        // The feed already showed tok_a cleared at 2 and tok_c default at 2; a replayed conflict
        // answer carries tok_a as it was at 1 (default).
        try phone.blocking.applyRemotePage(scope: scope, changes: [
            .upsert(Fixtures.card("tok_a"), version: 2),
            .upsert(Fixtures.card("tok_c", isDefault: true), version: 2),
        ], newCursor: "c2")
        try phone.blocking.applyRemotePage(scope: scope, changes: [.upsert(Fixtures.card("tok_a", isDefault: true), version: 1)],
                                           newCursor: "c2")

        #expect(try phone.blocking.knownServerDefault(scope: scope) == .some("tok_c"))
        #expect(try shownDefault(phone) == ["tok_c"])
    }

    @Test("a reset forgets the set-aside changes: the pull from the start brings the server's state again")
    func resetForgetsSetAside() throws {
        let directory = try TemporaryDirectory()
        let phone = try seeded(directory)
        try phone.blocking.upsert(Fixtures.card("tok_b", name: "Phone Edit"), scope: scope)
        let opId = try #require(try phone.blocking.pendingOps(scope: scope).first?.id)
        try phone.blocking.applyRemotePage(scope: scope, changes: [.upsert(Fixtures.card("tok_b", name: "Laptop Edit"), version: 3)],
                                           newCursor: "c2")
        try phone.blocking.resetSynced(scope: scope)
        // The answer now is fresh as far as the device knows: the row takes it.
        try phone.blocking.completeOps(applied: [(opId, 2)])

        let row = try #require(try phone.blocking.instrument(token: "tok_b", scope: scope))
        #expect(row.version == 2)
        #expect(row.method.paymentInstrumentData.cardholderName == "Phone Edit")
    }

    @Test("after a reset, a kept row the server once held and the pull from the start does not show is deleted at the feed's end")
    func resetDropsRowsTheServerNoLongerHolds() throws {
        let directory = try TemporaryDirectory()
        let phone = try seeded(directory)
        // Queued: a default on tok_b (held by the server), and a new card the server never saw.
        try phone.blocking.setDefault(token: "tok_b", scope: scope)
        try phone.blocking.upsert(Fixtures.card("tok_new"), scope: scope)
        try phone.blocking.resetSynced(scope: scope)
        #expect(try phone.blocking.instruments(scope: scope).map(\.id).sorted() == ["tok_b", "tok_new"])
        // The pull from the start ends without tok_b (the server deleted it and purged the tombstone).
        try phone.blocking.applyRemotePage(scope: scope, changes: [.upsert(Fixtures.card("tok_a"), version: 1)], newCursor: "r1")
        #expect(try phone.blocking.instrument(token: "tok_b", scope: scope)?.isDeleted == true)
        // The card the server never held stays, its creation still queued.
        #expect(try phone.blocking.instruments(scope: scope).map(\.id).sorted() == ["tok_a", "tok_new"])
    }

    @Test("after a reset, rows the pull shows stay; the decision waits for the end of the feed")
    func resetKeepsRowsThePullShows() async throws {
        let directory = try TemporaryDirectory()
        let phone = try seeded(directory)
        try await phone.setDefault(token: "tok_b", scope: scope)
        try await phone.setDefault(token: "tok_c", scope: scope)
        try await phone.resetSynced(scope: scope)
        // A first page, with more behind it (as the engine's pull passes it): tok_b is shown, tok_c not yet.
        try await phone.applyRemotePage(scope: scope, changes: [.upsert(Fixtures.card("tok_b"), version: 2)],
                                        newCursor: "r1", reachedEnd: false)
        #expect(try await phone.instrument(token: "tok_c", scope: scope)?.isDeleted == false)
        // The last page shows tok_c: both stay.
        try await phone.applyRemotePage(scope: scope, changes: [.upsert(Fixtures.card("tok_c"), version: 3)],
                                        newCursor: "r2", reachedEnd: true)
        #expect(try await phone.instrument(token: "tok_b", scope: scope)?.isDeleted == false)
        #expect(try await phone.instrument(token: "tok_c", scope: scope)?.isDeleted == false)
    }
}
