import Foundation
import Testing
@testable import VaultServer
@testable import VaultServerPostgres

/// The ephemeral-key primitives of every storage: the same contract for memory, SQLite and
/// PostgreSQL, every write scoped by merchant.
struct EphemeralKeyStorageTests {
    /// A storage of `kind`, with what must outlive it (a PostgreSQL schema).
    static func storage(_ kind: StorageKind) throws -> (any VaultServerStorage, AnyObject?) {
        switch kind {
        case .memory:
            return (InMemoryVaultServerStorage(), nil)
        case .sqlite:
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("ek-\(UUID().uuidString).sqlite").path
            return (try SQLiteVaultServerStorage(path: path), nil)
        case .postgres:
            let schema = try PostgresTestSchema()
            return (try schema.storage(), schema)
        }
    }

    static func record(_ id: String, merchant: String, customer: String = "c1", expiresAt: Int64 = 5_000,
                       scope: EphemeralKeyScope = .readWrite) -> EphemeralKeyRecord {
        EphemeralKeyRecord(id: "ek_" + id, merchant: merchant, customer: customer,
                           secretHash: String(repeating: String(id.prefix(1)), count: 64), scope: scope,
                           createdAt: 1_000, expiresAt: expiresAt, revokedAt: nil)
    }

    @Test("insert, look up by hash, revoke (idempotent, per merchant) and purge (per merchant, by expiry)",
          arguments: StorageKind.available)
    func primitives(_ kind: StorageKind) throws {
        let (storage, owner) = try Self.storage(kind)
        defer { withExtendedLifetime(owner) {} }
        let a = Self.record("aaaaaaaaaaaaaaaaaaaaaaaa", merchant: "merchant_a", scope: .read)
        let b = Self.record("bbbbbbbbbbbbbbbbbbbbbbbb", merchant: "merchant_b", customer: "c2")
        let late = Self.record("cccccccccccccccccccccccc", merchant: "merchant_a", expiresAt: 9_000)
        try storage.transaction { tx in
            for record in [a, b, late] { try tx.insertEphemeralKey(record) }
        }
        #expect(try storage.read { try $0.ephemeralKey(secretHash: a.secretHash) } == a)
        #expect(try storage.read { try $0.ephemeralKey(secretHash: b.secretHash) } == b)
        #expect(try storage.read { try $0.ephemeralKey(secretHash: String(repeating: "d", count: 64)) } == nil)

        // Another merchant's id is not there for this merchant.
        #expect(try storage.transaction { try $0.revokeEphemeralKey(merchant: "merchant_b", id: a.id, at: 2_000) } == false)
        #expect(try storage.read { try $0.ephemeralKey(secretHash: a.secretHash) }?.revokedAt == nil)
        #expect(try storage.transaction { try $0.revokeEphemeralKey(merchant: "merchant_a", id: "ek_nope", at: 2_000) } == false)
        // Revoking twice keeps the first time.
        #expect(try storage.transaction { try $0.revokeEphemeralKey(merchant: "merchant_a", id: a.id, at: 2_000) })
        #expect(try storage.transaction { try $0.revokeEphemeralKey(merchant: "merchant_a", id: a.id, at: 3_000) })
        var revoked = a
        revoked.revokedAt = 2_000
        #expect(try storage.read { try $0.ephemeralKey(secretHash: a.secretHash) } == revoked)

        // A purge removes only this merchant's keys expired at or before the bound.
        try storage.transaction { try $0.purgeEphemeralKeys(merchant: "merchant_a", expiredAtOrBefore: 5_000) }
        #expect(try storage.read { try $0.ephemeralKey(secretHash: a.secretHash) } == nil)
        #expect(try storage.read { try $0.ephemeralKey(secretHash: b.secretHash) } == b)
        #expect(try storage.read { try $0.ephemeralKey(secretHash: late.secretHash) } == late)
        #expect(try storage.transaction { try $0.revokeEphemeralKey(merchant: "merchant_a", id: a.id, at: 4_000) } == false)
    }

    @Test("a throw rolls the new key back", arguments: StorageKind.available)
    func rollback(_ kind: StorageKind) throws {
        struct Abort: Error {}
        let (storage, owner) = try Self.storage(kind)
        defer { withExtendedLifetime(owner) {} }
        let record = Self.record("eeeeeeeeeeeeeeeeeeeeeeee", merchant: "merchant_a")
        #expect(throws: Abort.self) {
            try storage.transaction { tx in
                try tx.insertEphemeralKey(record)
                throw Abort()
            }
        }
        #expect(try storage.read { try $0.ephemeralKey(secretHash: record.secretHash) } == nil)
    }
}
