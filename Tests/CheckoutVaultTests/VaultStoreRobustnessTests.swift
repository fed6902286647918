import CheckoutCore
import CheckoutVault
import Foundation
import SQLiteKit
import Testing

@Suite("VaultStore robustness")
struct VaultStoreRobustnessTests {
    /// Creates a store file holding two instruments for Alice, closed again.
    static func seed(_ path: String) throws {
        let store = try VaultStore(path: path, clock: Fixtures.clock)
        try store.blocking.upsert(Fixtures.card("a"), scope: Fixtures.alice)
        try store.blocking.upsert(Fixtures.card("b"), scope: Fixtures.alice)
    }

    static func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    @Test("a file that is not SQLite is refused with not-a-database and left untouched")
    func notSQLite() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        let content = Data((0..<8_192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try content.write(to: URL(fileURLWithPath: path))
        let error = try #require(throws: VaultStorageError.self) { try VaultStore(path: path) }
        #expect(error.code == .notADatabase)
        #expect(try Self.bytes(path) == content)
    }

    @Test("a corrupt database is refused with corrupt and its bytes are not changed")
    func corrupt() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        try Self.seed(path)
        var content = try Self.bytes(path)
        let pageSize = 4_096
        #expect(content.count >= 3 * pageSize)
        // Keep the header page, scramble every other page.
        for index in pageSize..<content.count { content[index] = UInt8(truncatingIfNeeded: index &* 131 &+ 17) }
        try content.write(to: URL(fileURLWithPath: path))
        let outcome: VaultStorageError?
        do {
            let store = try VaultStore(path: path)
            _ = try store.blocking.instruments(scope: Fixtures.alice)
            outcome = nil
        } catch let error as VaultStorageError {
            outcome = error
        }
        #expect(outcome?.code == .corrupt)
        #expect(try Self.bytes(path) == content)
    }

    @Test("a database written by a newer version is refused and its data kept")
    func newerSchema() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        try Self.seed(path)
        do {
            let database = try Database(path: path)
            try database.run("INSERT INTO \(DatabaseMigrator.tableName) (name, applied_at) VALUES ('2099-01-future', 0)")
        }
        let error = try #require(throws: VaultStorageError.self) { try VaultStore(path: path) }
        #expect(error.code == .newerSchema)
        let database = try Database(path: path)
        let tokens = try database.withStatement("SELECT token FROM payment_instrument ORDER BY token") { row in
            var tokens: [String] = []
            while try row.step() { tokens.append(row.string(at: 0)) }
            return tokens
        }
        #expect(tokens == ["a", "b"])
    }

    @Test("a missing or read-only directory is a cannot-open error", arguments: ["missing", "read-only"])
    func unopenable(_ kind: String) throws {
        let directory = try TemporaryDirectory()
        // /proc refuses new files even for root, so it stands in for a read-only directory.
        let path = kind == "missing" ? directory.path("absent/vault.sqlite") : "/proc/vault-\(UUID().uuidString).sqlite"
        let error = try #require(throws: VaultStorageError.self) { try VaultStore(path: path) }
        #expect(error.code == .cannotOpen)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("a full disk fails the write with disk-full and keeps every earlier write and its outbox row")
    func diskFull() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        try Self.seed(path)
        let pages = try Database(path: path).withStatement("PRAGMA page_count") { try $0.step() ? $0.int(at: 0) : 0 }
        var configuration = VaultStore.Configuration()
        configuration.maxPageCount = pages + 2
        let store = try VaultStore(path: path, configuration: configuration, clock: Fixtures.clock)
        var written = 0
        let error = try #require(throws: VaultStorageError.self) {
            for index in 0..<500 {
                let name = "Holder " + String(repeating: "x", count: 40) + "\(index)"
                try store.blocking.upsert(Fixtures.card("full\(index)", name: name), scope: Fixtures.bob)
                written += 1
            }
        }
        #expect(error.code == .diskFull)
        #expect(written < 500)
        #expect(try store.blocking.instruments(scope: Fixtures.bob).count == written)
        #expect(try store.blocking.pendingCount(scope: Fixtures.bob) == written)
        #expect(try store.blocking.instruments(scope: Fixtures.alice).map(\.id) == ["b", "a"])
        // Reads and deletes still work on the full store.
        #expect(try store.blocking.delete(token: "a", scope: Fixtures.alice))
    }

    @Test("a page that fills the disk half-way applies nothing and keeps the cursor")
    func pageAtomicity() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        do {
            let store = try VaultStore(path: path, clock: Fixtures.clock)
            try store.blocking.applyRemotePage(scope: Fixtures.alice, changes: [.upsert(Fixtures.card("a"), version: 1)], newCursor: "c1")
        }
        let pages = try Database(path: path).withStatement("PRAGMA page_count") { try $0.step() ? $0.int(at: 0) : 0 }
        var configuration = VaultStore.Configuration()
        configuration.maxPageCount = pages + 2
        let store = try VaultStore(path: path, configuration: configuration, clock: Fixtures.clock)
        let changes = (0..<300).map { index in
            RemoteChange.upsert(Fixtures.card("p\(index)", name: String(repeating: "n", count: 1_000)), version: 1)
        }
        let error = try #require(throws: VaultStorageError.self) {
            try store.blocking.applyRemotePage(scope: Fixtures.alice, changes: changes, newCursor: "c2")
        }
        #expect(error.code == .diskFull)
        #expect(try store.blocking.instruments(scope: Fixtures.alice).map(\.id) == ["a"])
        #expect(try store.blocking.cursor(scope: Fixtures.alice) == "c1")
    }
}
