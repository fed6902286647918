import CheckoutCore
@testable import VaultServer

/// A storage transaction that forwards every call to `inner` and tells the test about the two
/// calls test storages tell apart: the start of an op apply (`opRecord`) and the server's
/// background purge (`purgeExpired`, run by `ExpiryPurger` every minute in its own transaction).
///
/// This file is also compiled into SyncEngineTests and VaultServerPostgresTests (through symbolic links there).
struct ObservedTransaction: VaultStorageTransaction {
    let inner: any VaultStorageTransaction
    var onOpRecord: () -> Void = {}
    var onPurgeExpired: () -> Void = {}

    func instrument(_ key: CustomerKey, id: String) throws -> InstrumentRecord? { try inner.instrument(key, id: id) }
    func liveInstruments(_ key: CustomerKey) throws -> [InstrumentRecord] { try inner.liveInstruments(key) }
    func changes(_ key: CustomerKey, after: Int64, limit: Int, maxBytes: Int) throws -> [InstrumentRecord] {
        try inner.changes(key, after: after, limit: limit, maxBytes: maxBytes)
    }
    func put(_ key: CustomerKey, _ instrument: InstrumentRecord) throws { try inner.put(key, instrument) }
    func nextSequence() throws -> Int64 { try inner.nextSequence() }
    func hasTombstones(_ key: CustomerKey, deletedAtOrBefore: Int64) throws -> Bool {
        try inner.hasTombstones(key, deletedAtOrBefore: deletedAtOrBefore)
    }
    func purgeHorizon(_ key: CustomerKey) throws -> Int64 { try inner.purgeHorizon(key) }
    func purgeTombstones(_ key: CustomerKey, deletedAtOrBefore: Int64) throws {
        try inner.purgeTombstones(key, deletedAtOrBefore: deletedAtOrBefore)
    }
    func purgeExpired(tombstonesDeletedAtOrBefore: Int64, opsCreatedAtOrBefore: Int64) throws {
        onPurgeExpired()
        try inner.purgeExpired(tombstonesDeletedAtOrBefore: tombstonesDeletedAtOrBefore, opsCreatedAtOrBefore: opsCreatedAtOrBefore)
    }
    func opRecord(_ key: CustomerKey, opId: String) throws -> StoredOpRecord? {
        onOpRecord()
        return try inner.opRecord(key, opId: opId)
    }
    func putOpRecord(_ key: CustomerKey, _ record: StoredOpRecord) throws { try inner.putOpRecord(key, record) }
    func cursorSecret() throws -> [UInt8] { try inner.cursorSecret() }
    func insertEphemeralKey(_ record: EphemeralKeyRecord) throws { try inner.insertEphemeralKey(record) }
    func ephemeralKey(secretHash: String) throws -> EphemeralKeyRecord? { try inner.ephemeralKey(secretHash: secretHash) }
    func revokeEphemeralKey(merchant: String, id: String, at: Int64) throws -> Bool {
        try inner.revokeEphemeralKey(merchant: merchant, id: id, at: at)
    }
    func purgeEphemeralKeys(merchant: String, expiredAtOrBefore: Int64) throws {
        try inner.purgeEphemeralKeys(merchant: merchant, expiredAtOrBefore: expiredAtOrBefore)
    }
    func prefetchOpRecords(_ key: CustomerKey, opIds: [String]) throws { try inner.prefetchOpRecords(key, opIds: opIds) }
    func prefetchInstruments(_ key: CustomerKey, ids: [String]) throws { try inner.prefetchInstruments(key, ids: ids) }
}
