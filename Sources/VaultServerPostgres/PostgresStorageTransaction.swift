import PostgresKit
import VaultServer

/// The storage primitives over one open PostgreSQL transaction.
///
/// In a write transaction, the first call naming a customer takes that customer's transaction
/// advisory lock, before anything of the customer is read and before any sequence is handed out;
/// PostgreSQL releases it only after the commit is visible. A read transaction takes no lock.
///
/// Round trips dominate the cost of an op batch, so a write transaction queues what returns
/// nothing (the lock, `put`, `putOpRecord`, the purge) with `executeLater`: it reaches the server,
/// in order, in the same pipeline as the next read or the `COMMIT`. Sequences are fetched a few
/// at a time while the lock is held (1, then 16, then 64 per fetch; the first fetch of a batch
/// announced by `prefetchOpRecords` takes one per op, up to 256), which keeps them in commit
/// order; unused ones are skipped numbers, which the feed tolerates. A batch's op records are
/// read in one statement (`prefetchOpRecords`), under the lock, instead of one round trip per
/// op; the lookups are answered from that read and from the transaction's own `putOpRecord`s.
/// And because nobody else can
/// change a locked customer's rows until commit, a write transaction reads a small customer's
/// rows once (up to `cacheLimit`, tombstones included) and answers `instrument` and
/// `liveInstruments` from that copy, which its own `put`s and purges keep current; for a customer
/// with more rows, the rows a batch names are read in one statement (`prefetchInstruments`), and
/// any other row by itself.
final class PostgresStorageTransaction: VaultStorageTransaction {
    private typealias SQL = PostgresVaultStatements

    private let connection: PostgresConnection
    private let writes: Bool
    /// The customers locked so far, with how many sequences had been handed out at that moment.
    private var locked: [CustomerKey: Int] = [:]
    /// The position of every sequence handed out by this transaction, in hand-out order.
    private var handedOut: [Int64: Int] = [:]
    /// Sequences fetched under the lock and not handed out yet, largest first.
    private var sequences: [Int64] = []
    private var sequenceFetches = 0
    /// The rows of locked customers, by id, when they were few enough to load whole.
    private var cache: [CustomerKey: [String: InstrumentRecord]] = [:]
    /// Locked customers with more than `cacheLimit` rows.
    private var uncached: Set<CustomerKey> = []
    /// The op ids `prefetchOpRecords` read, per locked customer: `opRecord` answers these from
    /// `opRecords` (absent there: no record).
    private var prefetchedOpIds: [CustomerKey: Set<String>] = [:]
    /// The op records read by `prefetchOpRecords` and written by `putOpRecord`, per customer.
    private var opRecords: [CustomerKey: [String: StoredOpRecord]] = [:]
    /// For a locked customer too large for `cache`: the rows `prefetchInstruments` read (and
    /// `put` wrote since), answering `instrument` for the ids in `partialIds` (absent: no row).
    private var partial: [CustomerKey: [String: InstrumentRecord]] = [:]
    private var partialIds: [CustomerKey: Set<String>] = [:]
    /// The size of the first sequence fetch: 1, or one per op of an announced batch.
    private var firstSequenceFetch = 1

    /// The most op ids read by one `prefetchOpRecords` statement, and the largest first fetch of sequences.
    static let prefetchLimit = 256

    /// The most rows of one customer a write transaction loads at once.
    static let cacheLimit = 256

    init(connection: PostgresConnection, writes: Bool) {
        self.connection = connection
        self.writes = writes
    }

    /// Takes the customer's lock once per transaction (write transactions only).
    private func lock(_ key: CustomerKey) throws {
        guard writes, locked[key] == nil else { return }
        try connection.executeLater(SQL.lockCustomer, [key.merchant, key.customer])
        locked[key] = handedOut.count
    }

    /// Writes without a result: queued in a write transaction, sent at once in a read one (where
    /// the server refuses them, and the caller should hear so at the call).
    private func write(_ statement: PostgresStatement, _ parameters: [String?]) throws {
        if writes {
            try connection.executeLater(statement, parameters)
        } else {
            try connection.execute(statement, parameters)
        }
    }

    private func rows(_ statement: PostgresStatement, _ parameters: [String?]) throws -> [InstrumentRecord] {
        let result = try connection.execute(statement, parameters)
        var rows: [InstrumentRecord] = []
        rows.reserveCapacity(result.rowCount)
        for row in 0..<result.rowCount {
            rows.append(InstrumentRecord(id: result.string(row, 0), version: try result.int64(row, 1),
                                         sequence: try result.int64(row, 2), deleted: try result.bool(row, 3),
                                         isDefault: try result.bool(row, 4), methodJSON: result.optionalString(row, 5),
                                         deletedAt: try result.optionalInt64(row, 6)))
        }
        return rows
    }

    /// The locked customer's rows from the cache, loading them on first use; nil in read
    /// transactions and for customers with more than `cacheLimit` rows.
    private func cachedRows(_ key: CustomerKey) throws -> [String: InstrumentRecord]? {
        guard writes, !uncached.contains(key) else { return nil }
        if let rows = cache[key] { return rows }
        try lock(key)
        let loaded = try rows(SQL.customerRows, [key.merchant, key.customer, String(Self.cacheLimit + 1)])
        guard loaded.count <= Self.cacheLimit else {
            uncached.insert(key)
            return nil
        }
        let rows = Dictionary(loaded.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        cache[key] = rows
        return rows
    }

    func instrument(_ key: CustomerKey, id: String) throws -> InstrumentRecord? {
        if let rows = try cachedRows(key) { return rows[id] }
        if partialIds[key]?.contains(id) == true { return partial[key]?[id] }
        try lock(key)
        return try rows(SQL.instrument, [key.merchant, key.customer, id]).first
    }

    func liveInstruments(_ key: CustomerKey) throws -> [InstrumentRecord] {
        if let rows = try cachedRows(key) {
            // The SQL order: default first, then id in byte order (COLLATE "C").
            return rows.values.filter { !$0.deleted }.sorted { lhs, rhs in
                if lhs.isDefault != rhs.isDefault { return lhs.isDefault }
                return lhs.id.utf8.lexicographicallyPrecedes(rhs.id.utf8)
            }
        }
        try lock(key)
        return try rows(SQL.liveInstruments, [key.merchant, key.customer])
    }

    func changes(_ key: CustomerKey, after: Int64, limit: Int, maxBytes: Int) throws -> [InstrumentRecord] {
        try lock(key)
        return try rows(SQL.changesWithinBytes,
                        [key.merchant, key.customer, String(after), String(max(0, limit)), String(maxBytes)])
    }

    func put(_ key: CustomerKey, _ instrument: InstrumentRecord) throws {
        try lock(key)
        // A sequence drawn before this customer's lock was taken could commit out of order.
        if let position = handedOut[instrument.sequence], let lockedAt = locked[key], position < lockedAt {
            throw PostgresError(.misuse, message: "a row was stored with a sequence drawn before its customer's lock")
        }
        try write(SQL.put, [
            key.merchant, key.customer, instrument.id, String(instrument.version), String(instrument.sequence),
            instrument.deleted ? "t" : "f", instrument.isDefault ? "t" : "f", instrument.methodJSON,
            instrument.deletedAt.map { String($0) },
        ])
        cache[key]?[instrument.id] = instrument
        if writes, uncached.contains(key) { partial[key, default: [:]][instrument.id] = instrument }
    }

    /// For a customer with more rows than `cacheLimit`, reads the rows of `ids` in one statement
    /// (a smaller customer's rows are all read once anyway, by `cachedRows`).
    func prefetchInstruments(_ key: CustomerKey, ids: [String]) throws {
        guard writes, !ids.isEmpty, ids.count <= Self.prefetchLimit, try cachedRows(key) == nil else { return }
        let loaded = try rows(SQL.instrumentsById, [key.merchant, key.customer, Self.textArray(ids)])
        var known = partial[key] ?? [:]
        for row in loaded { known[row.id] = row }
        partial[key] = known
        partialIds[key, default: []].formUnion(ids)
    }

    /// A fresh value of `vault_change_seq`. Only valid once a customer lock is held, which is what
    /// makes a customer's sequences follow its commit order; VaultService always reads the
    /// customer's rows first, so the lock is already taken.
    func nextSequence() throws -> Int64 {
        guard writes else {
            throw PostgresError(.misuse, message: "nextSequence() inside a read-only transaction")
        }
        guard !locked.isEmpty else {
            throw PostgresError(.misuse, message: "nextSequence() before any customer-scoped call of the transaction")
        }
        let next = try fetchSequence()
        handedOut[next] = handedOut.count
        return next
    }

    private func fetchSequence() throws -> Int64 {
        if let next = sequences.popLast() { return next }
        let count = sequenceFetches == 0 ? firstSequenceFetch : (sequenceFetches == 1 ? 16 : 64)
        sequenceFetches += 1
        let result = try connection.execute(SQL.nextSequences, [String(count)])
        guard result.rowCount == count else { throw PostgresError(.unexpectedResult, message: "nextval returned \(result.rowCount) rows") }
        sequences = try (0..<count).map { row throws(PostgresError) in try result.int64(row, 0) }.sorted(by: >)
        guard let next = sequences.popLast() else { throw PostgresError(.unexpectedResult, message: "nextval returned no row") }
        return next
    }

    func hasTombstones(_ key: CustomerKey, deletedAtOrBefore: Int64) throws -> Bool {
        try lock(key)
        return try connection.execute(SQL.hasTombstones, [key.merchant, key.customer, String(deletedAtOrBefore)]).rowCount > 0
    }

    func purgeHorizon(_ key: CustomerKey) throws -> Int64 {
        try lock(key)
        let result = try connection.execute(SQL.purgeHorizon, [key.merchant, key.customer])
        return result.rowCount > 0 ? try result.int64(0, 0) : 0
    }

    func cursorSecret() throws -> [UInt8] {
        let result = try connection.execute(SQL.cursorSecret, [])
        guard result.rowCount > 0 else { throw PostgresError(.unexpectedResult, message: "the cursor secret is missing") }
        return Array(result.string(0, 0).utf8)
    }

    func purgeTombstones(_ key: CustomerKey, deletedAtOrBefore: Int64) throws {
        try lock(key)
        try write(SQL.purgeTombstones, [key.merchant, key.customer, String(deletedAtOrBefore)])
        cache[key] = cache[key]?.filter { _, row in !(row.deleted && (row.deletedAt.map { $0 <= deletedAtOrBefore } ?? false)) }
        partial[key] = partial[key]?.filter { _, row in !(row.deleted && (row.deletedAt.map { $0 <= deletedAtOrBefore } ?? false)) }
    }

    func tombstoneCutoff(_ key: CustomerKey, keeping: Int) throws -> Int64? {
        try lock(key)
        let result = try connection.execute(SQL.tombstoneCutoff, [key.merchant, key.customer, String(keeping)])
        return result.rowCount > 0 ? try result.int64(0, 0) : nil
    }

    func opRecordCutoff(_ key: CustomerKey, keeping: Int) throws -> Int64? {
        try lock(key)
        let result = try connection.execute(SQL.opRecordCutoff, [key.merchant, key.customer, String(keeping)])
        return result.rowCount > 0 ? try result.int64(0, 0) : nil
    }

    func purgeOpRecords(_ key: CustomerKey, createdAtOrBefore: Int64) throws {
        try lock(key)
        try write(SQL.purgeOpRecords, [key.merchant, key.customer, String(createdAtOrBefore)])
        opRecords[key] = opRecords[key]?.filter { $0.value.createdAt > createdAtOrBefore }
        prefetchedOpIds[key] = nil
    }

    func purgeExpired(tombstonesDeletedAtOrBefore: Int64, opsCreatedAtOrBefore: Int64) throws {
        try write(SQL.purgeExpiredTombstones, [String(tombstonesDeletedAtOrBefore)])
        try write(SQL.purgeExpiredOps, [String(opsCreatedAtOrBefore)])
        for key in cache.keys {
            cache[key] = cache[key]?.filter { _, row in
                !(row.deleted && (row.deletedAt.map { $0 <= tombstonesDeletedAtOrBefore } ?? false))
            }
        }
        for key in partial.keys {
            partial[key] = partial[key]?.filter { _, row in
                !(row.deleted && (row.deletedAt.map { $0 <= tombstonesDeletedAtOrBefore } ?? false))
            }
        }
    }

    /// Reads the records of `opIds` in one statement after taking the customer's lock, so that
    /// it sees every batch committed before (write transactions only; a read one looks each up).
    func prefetchOpRecords(_ key: CustomerKey, opIds: [String]) throws {
        guard writes, !opIds.isEmpty, opIds.count <= Self.prefetchLimit else { return }
        try lock(key)
        if sequenceFetches == 0 { firstSequenceFetch = opIds.count }
        let result = try connection.execute(SQL.opRecords, [key.merchant, key.customer, Self.textArray(opIds)])
        var records = opRecords[key] ?? [:]
        for row in 0..<result.rowCount {
            let opId = result.string(row, 0)
            records[opId] = StoredOpRecord(opId: opId, bodyHash: result.string(row, 1), resultJSON: result.string(row, 2),
                                           createdAt: try result.int64(row, 3))
        }
        opRecords[key] = records
        prefetchedOpIds[key, default: []].formUnion(opIds)
    }

    /// A PostgreSQL array literal of `texts` (`{"a","b\\"c"}`): every element quoted, `\` and `"`
    /// escaped, so no element can end early or split (NUL is refused when the statement is sent).
    static func textArray(_ texts: [String]) -> String {
        var literal = "{"
        for (index, text) in texts.enumerated() {
            if index > 0 { literal += "," }
            literal += "\""
            for character in text.unicodeScalars {
                if character == "\\" || character == "\"" { literal += "\\" }
                literal.unicodeScalars.append(character)
            }
            literal += "\""
        }
        return literal + "}"
    }

    func opRecord(_ key: CustomerKey, opId: String) throws -> StoredOpRecord? {
        try lock(key)
        if prefetchedOpIds[key]?.contains(opId) == true { return opRecords[key]?[opId] }
        let result = try connection.execute(SQL.opRecord, [key.merchant, key.customer, opId])
        guard result.rowCount > 0 else { return nil }
        return StoredOpRecord(opId: opId, bodyHash: result.string(0, 0), resultJSON: result.string(0, 1),
                              createdAt: try result.int64(0, 2))
    }

    func putOpRecord(_ key: CustomerKey, _ record: StoredOpRecord) throws {
        try lock(key)
        if writes { opRecords[key, default: [:]][record.opId] = record }
        try write(SQL.putOpRecord, [
            key.merchant, key.customer, record.opId, record.bodyHash, record.resultJSON, String(record.createdAt),
        ])
    }

    // MARK: Ephemeral keys (no customer lock: they hold no sequence and no instrument)

    func insertEphemeralKey(_ record: EphemeralKeyRecord) throws {
        try write(SQL.insertEphemeralKey, [
            record.id, record.merchant, record.customer, record.secretHash, record.scope.rawValue,
            String(record.createdAt), String(record.expiresAt), record.revokedAt.map { String($0) },
        ])
    }

    func ephemeralKey(secretHash: String) throws -> EphemeralKeyRecord? {
        let result = try connection.execute(SQL.ephemeralKey, [secretHash])
        guard result.rowCount > 0 else { return nil }
        guard let scope = EphemeralKeyScope(rawValue: result.string(0, 3)) else {
            throw PostgresError(.unexpectedResult, message: "an ephemeral key has an unknown scope")
        }
        return EphemeralKeyRecord(id: result.string(0, 0), merchant: result.string(0, 1), customer: result.string(0, 2),
                                  secretHash: secretHash, scope: scope, createdAt: try result.int64(0, 4),
                                  expiresAt: try result.int64(0, 5), revokedAt: try result.optionalInt64(0, 6))
    }

    func revokeEphemeralKey(merchant: String, id: String, at: Int64) throws -> Bool {
        try connection.execute(SQL.revokeEphemeralKey, [merchant, id, String(at)]).rowCount > 0
    }

    func purgeEphemeralKeys(merchant: String, expiredAtOrBefore: Int64) throws {
        try write(SQL.purgeEphemeralKeys, [merchant, String(expiredAtOrBefore)])
    }
}
