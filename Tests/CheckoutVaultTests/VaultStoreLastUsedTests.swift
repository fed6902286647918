import CheckoutCore
import CheckoutVault
import SQLiteKit
import Testing

/// The last-used stamps a save takes from the customer's counter (`customer_last_used`) instead of
/// `max(last_used)` over the customer's rows: the same stamps and order as before, and the base
/// version the save's upsert returns.
@Suite("VaultStore last-used counter and base versions")
struct VaultStoreLastUsedTests {
    let directory: TemporaryDirectory
    let store: VaultStore

    init() throws {
        directory = try TemporaryDirectory()
        store = try Fixtures.store(in: directory)
    }

    func stamps(_ scope: VaultScope = Fixtures.alice, in store: VaultStore? = nil) throws -> [String: Int64] {
        var stamps: [String: Int64] = [:]
        for row in try (store ?? self.store).blocking.storedInstruments(scope: scope, includeDeleted: true) {
            stamps[row.method.id] = row.lastUsedAt
        }
        return stamps
    }

    @Test("saves, batches and mark-used take consecutive stamps per customer, other customers apart")
    func consecutiveStamps() throws {
        try store.blocking.upsert(Fixtures.card("a"), scope: Fixtures.alice)                          // 1000
        try store.blocking.upsert([Fixtures.card("b"), Fixtures.card("c")], scope: Fixtures.alice)    // 1001, 1002
        try store.blocking.upsert(Fixtures.card("x"), scope: Fixtures.bob)                            // bob's own: 1000
        try store.blocking.markUsed(token: "a", scope: Fixtures.alice)                                // 1003
        try store.blocking.markUsed(token: "unknown", scope: Fixtures.alice)                          // no stamp taken
        try store.blocking.upsert(Fixtures.card("d"), scope: Fixtures.alice)                          // 1004
        #expect(try stamps() == ["a": 1_003, "b": 1_001, "c": 1_002, "d": 1_004])
        #expect(try stamps(Fixtures.bob) == ["x": 1_000])
        #expect(try store.blocking.instruments(scope: Fixtures.alice).map(\.id) == ["d", "a", "c", "b"])
    }

    @Test("a deleted row is not marked used and takes no stamp")
    func deletedRowTakesNoStamp() throws {
        try store.blocking.upsert(Fixtures.card("a"), scope: Fixtures.alice)   // 1000
        try store.blocking.delete(token: "a", scope: Fixtures.alice)
        try store.blocking.markUsed(token: "a", scope: Fixtures.alice)
        try store.blocking.upsert(Fixtures.card("b"), scope: Fixtures.alice)   // 1001
        #expect(try stamps() == ["a": 1_000, "b": 1_001])
    }

    @Test("the counter survives reopening the store and a reset of the synced rows")
    func survivesReopenAndReset() throws {
        try store.blocking.upsert((0..<30).map { Fixtures.card("t\($0)") }, scope: Fixtures.alice)   // 1000...1029
        let reopened = try Fixtures.store(in: directory)
        try reopened.blocking.upsert(Fixtures.card("late"), scope: Fixtures.alice)
        #expect(try stamps(in: reopened)["late"] == 1_030)
        try reopened.blocking.resetSynced(scope: Fixtures.alice)   // every row has an op queued: all stay
        try reopened.blocking.upsert(Fixtures.card("later"), scope: Fixtures.alice)
        #expect(try stamps(in: reopened)["later"] == 1_031)
        #expect(try reopened.blocking.instruments(scope: Fixtures.alice).prefix(2).map(\.id) == ["later", "late"])
    }

    @Test("a store written before the counter existed starts it at each customer's highest stamp")
    func migrationStartsFromExistingStamps() throws {
        let path = directory.path("old.sqlite")
        let old = try VaultStore(path: path, clock: Fixtures.clock)
        try old.blocking.upsert([Fixtures.card("a"), Fixtures.card("b")], scope: Fixtures.alice)
        try old.blocking.upsert(Fixtures.card("x"), scope: Fixtures.bob)
        // Make it a store of the previous schema with later stamps: no counter table, no record
        // of its migration, and rows last used at 5000 (alice) and 7000 (bob).
        do {
            let database = try Database(path: path)
            try database.execute("""
                DROP TABLE customer_last_used;
                DELETE FROM sqlitekit_migration WHERE name = '2026-12-vault-customer-last-used';
                UPDATE payment_instrument SET last_used = 5000 WHERE customer_id = 'c_alice' AND token = 'a';
                UPDATE payment_instrument SET last_used = 7000 WHERE customer_id = 'c_bob';
                """)
        }
        let migrated = try VaultStore(path: path, clock: Fixtures.clock)
        try migrated.blocking.upsert(Fixtures.card("c"), scope: Fixtures.alice)
        try migrated.blocking.upsert(Fixtures.card("y"), scope: Fixtures.bob)
        try migrated.blocking.upsert(Fixtures.card("n"), scope: Fixtures.otherMerchantAlice)
        #expect(try stamps(in: migrated) == ["a": 5_000, "b": 1_001, "c": 5_001])
        #expect(try stamps(Fixtures.bob, in: migrated) == ["x": 7_000, "y": 7_001])
        #expect(try stamps(Fixtures.otherMerchantAlice, in: migrated) == ["n": 1_000])
        #expect(try migrated.blocking.instruments(scope: Fixtures.alice).map(\.id) == ["c", "a", "b"])
    }

    @Test("a save's outbox op carries the row's server version, tombstones included, 0 for a new row")
    func baseVersions() throws {
        try store.blocking.applyRemotePage(scope: Fixtures.alice, changes: [
            .upsert(Fixtures.card("kept"), version: 3),
            .upsert(Fixtures.card("gone"), version: 5),
            .delete(token: "gone", version: 6),
        ], newCursor: "c1")
        #expect(try store.blocking.instrument(token: "gone", scope: Fixtures.alice)?.isDeleted == true)
        try store.blocking.upsert([Fixtures.card("kept", name: "Edited"), Fixtures.card("gone"), Fixtures.card("new")],
                                  scope: Fixtures.alice)
        let ops = try store.blocking.pendingOps(scope: Fixtures.alice)
        #expect(ops.map(\.token) == ["kept", "gone", "new"])
        #expect(ops.map(\.baseVersion) == [3, 6, 0])
        // The save keeps the server version on the row.
        #expect(try store.blocking.instrument(token: "kept", scope: Fixtures.alice)?.version == 3)
        #expect(try store.blocking.instrument(token: "gone", scope: Fixtures.alice)?.isDeleted == false)
    }

    @Test("op ids are distinct random version-4 UUIDs in lower-case text")
    func operationIds() throws {
        let ids = try store.blocking.upsert((0..<500).map { Fixtures.card("u\($0)") }, scope: Fixtures.alice)
        #expect(Set(ids).count == 500)
        let hex = Set("0123456789abcdef")
        for id in ids {
            let characters = Array(id)
            #expect(characters.count == 36)
            #expect([8, 13, 18, 23].allSatisfy { characters[$0] == "-" })
            #expect(characters.enumerated().allSatisfy { [8, 13, 18, 23].contains($0.offset) || hex.contains($0.element) })
            #expect(characters[14] == "4")
            #expect("89ab".contains(characters[19]))
            #expect(!CardNumberDetector.containsCardNumber(id))
        }
    }
}
