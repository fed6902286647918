// This target imports CheckoutVault and CheckoutCore only, never SQLiteKit: it compiles and passes
// only while a host can open a store, tune it and handle its storage failures with the vault's own
// types ("Honest edges"). Were `VaultStore` to take SQLiteKit's configuration again, this
// file would not compile; were it to throw SQLiteKit's error, every `#require(throws:)` would fail.
// (CheckoutVault imports SQLiteKit `internal`ly, so the compiler already refuses a public declaration
// that names one of its types; these tests hold the behaviour: which errors come out.)
import CheckoutCore
import CheckoutVault
import Foundation
import Testing

@Suite("CheckoutVault's public storage API, without SQLiteKit")
struct VaultStorageErrorAPITests {
    static let scope = VaultScope(merchantId: "m_shop", customerId: "c_alice")

    /// A fresh directory, removed by `body`'s end.
    static func withDirectory<T>(_ body: (URL) throws -> T) throws -> T {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("vault-api-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: url) }
        return try body(url)
    }

    static func card(_ id: String, name: String = "Ada Lovelace") -> VaultedPaymentMethod {
        VaultedPaymentMethod(
            id: id, paymentMethodType: .paymentCard, paymentInstrumentType: .paymentCard,
            paymentInstrumentData: PaymentInstrumentData(network: .visa, first6Digits: "424242", last4Digits: "4242",
                                                         expirationMonth: 12, expirationYear: 2030, cardholderName: name),
            analyticsId: "an_\(id)", isDefault: false)
    }

    @Test("a file that is not a database is refused with not-a-database")
    func notADatabase() throws {
        try Self.withDirectory { directory in
            let path = directory.appendingPathComponent("vault.sqlite").path
            try Data((0..<8_192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }).write(to: URL(fileURLWithPath: path))
            let error = try #require(throws: VaultStorageError.self) { try VaultStore(path: path) }
            #expect(error.code == .notADatabase)
            #expect(error.description.hasPrefix("SQLite error not-a-database (26): "))
        }
    }

    @Test("a database whose pages are scrambled fails its reads with corrupt")
    func corrupt() throws {
        try Self.withDirectory { directory in
            let path = directory.appendingPathComponent("vault.sqlite").path
            do {
                let store = try VaultStore(path: path)
                for index in 0..<20 { try store.blocking.upsert(Self.card("card\(index)"), scope: Self.scope) }
            }
            var content = try Data(contentsOf: URL(fileURLWithPath: path))
            for index in 4_096..<content.count { content[index] = UInt8(truncatingIfNeeded: index &* 131 &+ 17) }
            try content.write(to: URL(fileURLWithPath: path))
            let error = try #require(throws: VaultStorageError.self) {
                let store = try VaultStore(path: path)
                _ = try store.blocking.instruments(scope: Self.scope)
            }
            #expect(error.code == .corrupt)
        }
    }

    @Test("a database file moved away while open turns read-only, and a save fails with read-only")
    func readOnly() throws {
        try Self.withDirectory { directory in
            let path = directory.appendingPathComponent("vault.sqlite").path
            // A rollback journal, so that SQLite notices the moved file on the next write (root, which
            // runs these tests in CI, ignores file modes, so a chmod cannot make it read-only).
            var configuration = VaultStore.Configuration()
            configuration.journalModeWAL = false
            let store = try VaultStore(path: path, configuration: configuration)
            try store.blocking.upsert(Self.card("before"), scope: Self.scope)
            try FileManager.default.moveItem(atPath: path, toPath: path + ".moved")
            let error = try #require(throws: VaultStorageError.self) {
                try store.blocking.upsert(Self.card("after"), scope: Self.scope)
            }
            #expect(error.code == .readOnly)
        }
    }

    @Test("a page cap from VaultStore.Configuration fails a write with disk-full, naming no stored value")
    func diskFull() throws {
        try Self.withDirectory { directory in
            let path = directory.appendingPathComponent("vault.sqlite").path
            _ = try VaultStore(path: path)
            var configuration = VaultStore.Configuration()
            configuration.maxPageCount = 16
            let store = try VaultStore(path: path, configuration: configuration)
            let name = "Holder Unforgettable Name"
            let error = try #require(throws: VaultStorageError.self) {
                for index in 0..<2_000 { try store.blocking.upsert(Self.card("full\(index)", name: name + " \(index)"), scope: Self.scope) }
            }
            #expect(error.code == .diskFull)
            #expect(!error.description.contains(name))
            #expect(!error.message.isEmpty)
        }
    }

    @Test("createIfMissing = false refuses a missing file with cannot-open and creates nothing")
    func cannotOpen() throws {
        try Self.withDirectory { directory in
            let path = directory.appendingPathComponent("absent.sqlite").path
            var configuration = VaultStore.Configuration()
            configuration.createIfMissing = false
            let error = try #require(throws: VaultStorageError.self) { try VaultStore(path: path, configuration: configuration) }
            #expect(error.code == .cannotOpen)
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    @Test("a domain refusal stays a CheckoutError: only storage failures become VaultStorageError")
    func domainErrorsPassThrough() throws {
        try Self.withDirectory { directory in
            let store = try VaultStore(path: directory.appendingPathComponent("vault.sqlite").path)
            let error = try #require(throws: CheckoutError.self) {
                try store.blocking.upsert(Self.card("4242424242424242"), scope: Self.scope)
            }
            #expect(error.code == .sensitiveDataRejected)
        }
    }
}
