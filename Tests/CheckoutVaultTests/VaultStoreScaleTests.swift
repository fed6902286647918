import CheckoutCore
@testable import CheckoutVault
import SQLiteKit
import Testing

/// The store's hot writes cost the same however many instruments a customer holds: each one
/// fetches a bounded number of pages (the writer connection's page fetches, counted by SQLite)
/// rather than reading the customer's rows. A statement that scans the customer once per pulled
/// page makes a pull quadratic; this is the check that finds it without timing anything.
@Suite("The store's hot writes do not scan the customer's rows")
struct VaultStoreScaleTests {
    let scope = Fixtures.alice

    /// A store whose customer holds `count` pulled instruments (the first one the default), the
    /// feed pulled to its end, as after a first sync.
    func seeded(_ directory: TemporaryDirectory, count: Int) async throws -> VaultStore {
        let store = try Fixtures.store(in: directory, name: "vault-\(count).sqlite")
        for start in stride(from: 0, to: count, by: 500) {
            let changes = (start..<min(count, start + 500)).map {
                RemoteChange.upsert(Fixtures.card("tok_\($0)", isDefault: $0 == 0), version: 1)
            }
            try await store.applyRemotePage(scope: scope, changes: changes, newCursor: "c\(start)",
                                            reachedEnd: start + 500 >= count)
        }
        return store
    }

    /// The pages the writer connection fetches while `work` runs.
    func pagesFetched(_ store: VaultStore, _ work: () async throws -> Void) async throws -> Int {
        let before = try await store.pool.write { $0.pageFetches }
        try await work()
        return try await store.pool.write { $0.pageFetches } - before
    }

    /// What one size costs: a pulled page of 20 changes in the middle of the feed and at its end, a
    /// pulled page that moves the default, and a local default change, each measured on its own.
    func costs(count: Int) async throws -> [String: Int] {
        let directory = try TemporaryDirectory()
        let store = try await seeded(directory, count: count)
        func page(_ from: Int, defaultAt: Int? = nil) -> [RemoteChange] {
            (from..<(from + 20)).map { .upsert(Fixtures.card("tok_new_\($0)", isDefault: $0 == defaultAt), version: 1) }
        }
        var costs: [String: Int] = [:]
        costs["a page in the middle of the feed"] = try await pagesFetched(store) {
            try await store.applyRemotePage(scope: scope, changes: page(0), newCursor: "m1", reachedEnd: false)
        }
        costs["a page that ends the feed"] = try await pagesFetched(store) {
            try await store.applyRemotePage(scope: scope, changes: page(20), newCursor: "m2", reachedEnd: true)
        }
        costs["a page that moves the default"] = try await pagesFetched(store) {
            try await store.applyRemotePage(scope: scope, changes: page(40, defaultAt: 45), newCursor: "m3", reachedEnd: true)
        }
        costs["a local default change"] = try await pagesFetched(store) {
            try await store.setDefault(token: "tok_1", scope: scope)
        }
        return costs
    }

    @Test("twenty times the instruments cost at most half as many pages again for each hot write")
    func hotWritesAreBounded() async throws {
        let small = try await costs(count: 200)
        let large = try await costs(count: 4_000)
        #expect(small.count == 4)
        for (operation, smallPages) in small.sorted(by: { $0.key < $1.key }) {
            let largePages = try #require(large[operation])
            // A B-tree a level deeper costs a page more per row written; a scan of the customer's
            // rows costs about twenty times as many.
            #expect(largePages <= smallPages * 3 / 2 + 10,
                    "\(operation): \(largePages) pages with 4,000 instruments, \(smallPages) with 200")
        }
    }
}
