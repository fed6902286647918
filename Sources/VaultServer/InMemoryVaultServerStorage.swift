import CheckoutCrypto
import CheckoutLocking

/// A `VaultServerStorage` in memory, for tests: the same primitives as the SQLite storage.
///
/// A transaction works on a copy of the state under the lock and publishes it only when the body
/// returns, so a throw rolls back exactly as SQLite does.
public final class InMemoryVaultServerStorage: VaultServerStorage {
    private struct State {
        var sequence: Int64 = 0
        var instruments: [CustomerKey: [String: InstrumentRecord]] = [:]
        var horizons: [CustomerKey: Int64] = [:]
        var ops: [CustomerKey: [String: StoredOpRecord]] = [:]
        /// Ephemeral keys by id, and their ids by secret hash (the lookup index).
        var ephemeralKeys: [String: EphemeralKeyRecord] = [:]
        var ephemeralKeyIds: [String: String] = [:]
        let cursorSecret: [UInt8]
    }

    private final class Transaction: VaultStorageTransaction {
        var state: State
        init(state: State) { self.state = state }

        func instrument(_ key: CustomerKey, id: String) throws -> InstrumentRecord? {
            state.instruments[key]?[id]
        }

        func liveInstruments(_ key: CustomerKey) throws -> [InstrumentRecord] {
            (state.instruments[key] ?? [:]).values.filter { !$0.deleted }.sorted { lhs, rhs in
                if lhs.isDefault != rhs.isDefault { return lhs.isDefault }
                return lhs.id < rhs.id
            }
        }

        func changes(_ key: CustomerKey, after: Int64, limit: Int, maxBytes: Int) throws -> [InstrumentRecord] {
            var rows: [InstrumentRecord] = []
            var total = 0
            for row in (state.instruments[key] ?? [:]).values.filter({ $0.sequence > after })
                .sorted(by: { $0.sequence < $1.sequence }).prefix(max(0, limit)) {
                rows.append(row)
                total += row.feedBytes
                if total > maxBytes { break }
            }
            return rows
        }

        func put(_ key: CustomerKey, _ instrument: InstrumentRecord) throws {
            state.instruments[key, default: [:]][instrument.id] = instrument
        }

        func nextSequence() throws -> Int64 {
            state.sequence += 1
            return state.sequence
        }

        func hasTombstones(_ key: CustomerKey, deletedAtOrBefore: Int64) throws -> Bool {
            (state.instruments[key] ?? [:]).values.contains { row in
                row.deleted && (row.deletedAt.map { $0 <= deletedAtOrBefore } ?? false)
            }
        }

        func purgeHorizon(_ key: CustomerKey) throws -> Int64 { state.horizons[key] ?? 0 }

        func cursorSecret() throws -> [UInt8] { state.cursorSecret }

        func purgeTombstones(_ key: CustomerKey, deletedAtOrBefore: Int64) throws {
            guard let rows = state.instruments[key] else { return }
            var horizon = state.horizons[key] ?? 0
            var kept: [String: InstrumentRecord] = [:]
            for (id, row) in rows {
                if row.deleted, let deletedAt = row.deletedAt, deletedAt <= deletedAtOrBefore {
                    horizon = max(horizon, row.sequence)
                } else {
                    kept[id] = row
                }
            }
            state.instruments[key] = kept
            state.horizons[key] = horizon
        }

        func purgeExpired(tombstonesDeletedAtOrBefore: Int64, opsCreatedAtOrBefore: Int64) throws {
            for key in state.instruments.keys { try purgeTombstones(key, deletedAtOrBefore: tombstonesDeletedAtOrBefore) }
            for key in state.ops.keys { state.ops[key] = state.ops[key]?.filter { $0.value.createdAt > opsCreatedAtOrBefore } }
        }

        func tombstoneCutoff(_ key: CustomerKey, keeping: Int) throws -> Int64? {
            let times = (state.instruments[key] ?? [:]).values.filter(\.deleted).compactMap(\.deletedAt).sorted(by: >)
            return times.count > keeping ? times[keeping] : nil
        }

        func opRecordCutoff(_ key: CustomerKey, keeping: Int) throws -> Int64? {
            let times = (state.ops[key] ?? [:]).values.map(\.createdAt).sorted(by: >)
            return times.count > keeping ? times[keeping] : nil
        }

        func purgeOpRecords(_ key: CustomerKey, createdAtOrBefore: Int64) throws {
            state.ops[key] = state.ops[key]?.filter { $0.value.createdAt > createdAtOrBefore }
        }

        func opRecord(_ key: CustomerKey, opId: String) throws -> StoredOpRecord? { state.ops[key]?[opId] }

        func putOpRecord(_ key: CustomerKey, _ record: StoredOpRecord) throws {
            state.ops[key, default: [:]][record.opId] = record
        }

        func insertEphemeralKey(_ record: EphemeralKeyRecord) throws {
            guard state.ephemeralKeys[record.id] == nil, state.ephemeralKeyIds[record.secretHash] == nil else {
                throw DuplicateEphemeralKey()
            }
            state.ephemeralKeys[record.id] = record
            state.ephemeralKeyIds[record.secretHash] = record.id
        }

        func ephemeralKey(secretHash: String) throws -> EphemeralKeyRecord? {
            state.ephemeralKeyIds[secretHash].flatMap { state.ephemeralKeys[$0] }
        }

        func revokeEphemeralKey(merchant: String, id: String, at: Int64) throws -> Bool {
            guard var record = state.ephemeralKeys[id], record.merchant == merchant else { return false }
            record.revokedAt = record.revokedAt ?? at
            state.ephemeralKeys[id] = record
            return true
        }

        func purgeEphemeralKeys(merchant: String, expiredAtOrBefore: Int64) throws {
            for (id, record) in state.ephemeralKeys where record.merchant == merchant && record.expiresAt <= expiredAtOrBefore {
                state.ephemeralKeys[id] = nil
                state.ephemeralKeyIds[record.secretHash] = nil
            }
        }
    }

    private let state: Locked<State>

    /// Creates an empty storage with a fresh random secret (from libcrypto, like the databases').
    public init() {
        let secret: [UInt8]
        do {
            secret = try SecureRandom.bytes(32)
        } catch {
            // Keying cursors and key hashes with a predictable secret would be worse than stopping.
            fatalError("InMemoryVaultServerStorage: \(error)")
        }
        state = Locked(State(cursorSecret: secret))
    }

    /// An id or secret hash that is already stored (the database storages' unique constraints).
    private struct DuplicateEphemeralKey: Error {}

    /// Runs `body` atomically; see `VaultServerStorage.transaction`.
    public func transaction<T: Sendable>(_ body: (any VaultStorageTransaction) throws -> T) throws -> T {
        try state.withLock { current in
            let transaction = Transaction(state: current)
            let result = try body(transaction)
            current = transaction.state
            return result
        }
    }

    /// Runs `body` on a read-only snapshot; see `VaultServerStorage.read`.
    public func read<T: Sendable>(_ body: (any VaultStorageTransaction) throws -> T) throws -> T {
        try state.withLock { current in try body(Transaction(state: current)) }
    }
}
