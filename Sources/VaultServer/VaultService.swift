import CheckoutCore
import CheckoutJSON
import CheckoutLocking
import Foundation

/// The vault server's rules, written once over `VaultServerStorage`.
///
/// Versions grow by one per applied change; every change takes a fresh server sequence; deletes
/// leave tombstones and always win; `setDefault` is last-writer-wins and leaves exactly one
/// default; upserts of an existing instrument need the current version; op ids are idempotency
/// keys checked against a hash of the op.
struct VaultService: Sendable {
    let storage: any VaultServerStorage
    let retentionMillis: Int64
    /// How long op outcomes are kept for replays (`Limits.opRecordRetentionSeconds`).
    let opRetentionMillis: Int64
    /// The cursor codec, made from the storage's secret on the first feed request.
    private let cursors = CursorCodecCache()

    /// The most live instruments one customer may hold (`Limits.maxInstrumentsPerCustomer`).
    let maxInstruments: Int
    /// The byte bound of a feed page (`Limits.maxFeedPageBytes`).
    let maxPageBytes: Int
    /// What writes may leave behind per customer (`Limits.maxTombstonesPerCustomer`, `maxOpRecordsPerCustomer`).
    let caps: RowCaps
    private let writesSinceTrim = WriteTally()

    /// The most tombstones and op records one customer keeps: past them, the oldest go early.
    /// An early-purged tombstone expires older cursors exactly as the retention does (410, then a
    /// fresh pull); an op record purged early leaves a replay of its op to the versions it carries.
    struct RowCaps: Sendable, Equatable {
        var maxTombstones: Int
        var maxOpRecords: Int

        /// The caps when nothing is configured.
        static let standard = RowCaps(maxTombstones: 10_000, maxOpRecords: 10_000)

        /// Ops written between two checks of a customer's caps: the caps are exceeded by at most
        /// this many rows, and the check (an indexed read of `cap` rows) is amortized over them.
        var checkInterval: Int { max(1, min(1_000, min(maxTombstones, maxOpRecords) / 10)) }
    }

    init(storage: any VaultServerStorage, retentionMillis: Int64, opRetentionMillis: Int64? = nil,
         maxInstruments: Int = InstrumentLimits.maxInstrumentsPerCustomer, maxPageBytes: Int = defaultMaxPageBytes,
         caps: RowCaps = .standard) {
        self.storage = storage
        self.caps = caps
        self.retentionMillis = retentionMillis
        self.opRetentionMillis = opRetentionMillis ?? retentionMillis
        self.maxInstruments = maxInstruments
        self.maxPageBytes = maxPageBytes
    }

    /// An op after parsing: either valid or already rejected.
    enum PreparedOp: Sendable {
        case valid(ValidOp)
        case rejected(WireOpResult)

        var opId: String {
            switch self {
            case .valid(let valid): return valid.op.opId
            case .rejected(let result): return result.opId
            }
        }
    }

    /// A well-formed op with what the parser computed once: its fingerprint and, for upserts,
    /// the method's JSON as it will be stored (with `isDefault` false; the flag is a column).
    struct ValidOp: Sendable {
        var op: WireOp
        var hash: String
        var methodJSON: String?
    }

    // MARK: Reads

    func instruments(_ key: CustomerKey) throws -> [WireInstrument] {
        try storage.read { tx in
            try tx.liveInstruments(key).map { row in
                WireInstrument(id: row.id, version: row.version, method: try Self.method(of: row))
            }
        }
    }

    /// The byte bound of a change-feed page: its rows' `feedBytes` total at most this, unless the
    /// page holds one row only. With every instrument within `InstrumentLimits`, a customer at the
    /// cap (`maxInstrumentsPerCustomer` live rows, plus tombstones) pages through in pages far below
    /// any client's response limit (`HTTPTransportConfiguration.maxBodyBytes`, 64 MiB by default).
    static let defaultMaxPageBytes = 1 << 20

    /// A page of the feed as stored rows, encoded by `FeedEncoder` without a decode/encode round trip.
    struct FeedPage: Sendable {
        var rows: [InstrumentRecord]
        var cursor: String
        var hasMore: Bool
    }

    /// One page after `cursor` (nil or empty: from the start). Reads a snapshot without blocking
    /// writers; only when tombstones are past retention does it take the write path to purge them
    /// (and raise the horizon). A cursor not issued for this customer is a 400.
    func changes(_ key: CustomerKey, after cursor: String?, limit: Int, now: Int64) throws -> FeedPage {
        let threshold = now - retentionMillis
        let page = try storage.read { tx -> FeedPage? in
            if try tx.hasTombstones(key, deletedAtOrBefore: threshold) { return nil }
            return try feedPage(key, after: cursor, limit: limit, tx: tx)
        }
        if let page { return page }
        return try storage.transaction { tx in
            try tx.purgeTombstones(key, deletedAtOrBefore: threshold)
            return try feedPage(key, after: cursor, limit: limit, tx: tx)
        }
    }

    private func feedPage(_ key: CustomerKey, after text: String?, limit: Int,
                      tx: any VaultStorageTransaction) throws -> FeedPage {
        let codec = try cursorCodec(tx)
        var cursor: Int64 = 0
        var issuedAtHorizon: Int64 = 0
        let resumes = !(text ?? "").isEmpty
        if let text, resumes {
            guard let position = try codec.decode(text, for: key) else {
                throw VaultHTTPError.badRequest("invalid-cursor", "the cursor was not issued by this server")
            }
            cursor = position.sequence
            issuedAtHorizon = position.horizon
        }
        // Expired only when tombstones after the cursor were purged since it was issued: a pull
        // from the start that pages below a horizon older than itself lost nothing it holds. A
        // cursor at sequence 0 (issued on an empty feed) is a cursor like any other: its client
        // may have written instruments since, and needs their tombstones.
        let horizon = try tx.purgeHorizon(key)
        if resumes, horizon > cursor, horizon > issuedAtHorizon { throw VaultHTTPError.cursorExpired }
        var rows = try tx.changes(key, after: cursor, limit: limit + 1, maxBytes: maxPageBytes)
        var hasMore = rows.count > limit
        if hasMore { rows.removeLast(rows.count - limit) }
        var total = rows.reduce(0) { $0 + $1.feedBytes }
        if total > maxPageBytes {
            // The storage stopped at the row that crossed the bound, so more may follow. That row
            // waits for the next page, unless it is the only one (or the feed could not move on).
            hasMore = true
            while rows.count > 1, total > maxPageBytes { total -= rows.removeLast().feedBytes }
        }
        return FeedPage(rows: rows, cursor: try codec.encode(rows.last?.sequence ?? cursor, horizon: max(horizon, issuedAtHorizon), for: key),
                        hasMore: hasMore)
    }

    private func cursorCodec(_ tx: any VaultStorageTransaction) throws -> ChangeCursor {
        if let codec = cursors.codec.withLock({ $0 }) { return codec }
        let codec = try ChangeCursor(secret: try tx.cursorSecret())
        cursors.codec.withLock { $0 = codec }
        return codec
    }

    /// Removes every customer's tombstones and idempotency records older than the retention
    /// (one transaction); run by `ExpiryPurger` in the background.
    func purgeExpired(now: Int64) throws {
        let threshold = now - retentionMillis
        try storage.transaction { tx in
            try tx.purgeExpired(tombstonesDeletedAtOrBefore: threshold, opsCreatedAtOrBefore: now - opRetentionMillis)
        }
    }

    // MARK: Writes

    /// Applies a batch atomically. Throws `idempotencyKeyReused` (nothing applied) when an op id
    /// was seen before with another body; replays the recorded result when it was seen with the
    /// same body.
    func apply(_ key: CustomerKey, ops: [PreparedOp], now: Int64) throws -> [WireOpResult] {
        try storage.transaction { tx in
            var results: [WireOpResult] = []
            results.reserveCapacity(ops.count)
            var liveCount: Int?  // the customer's live instruments, counted once per batch when needed
            let valid = ops.compactMap { prepared -> WireOp? in
                if case .valid(let valid) = prepared { return valid.op }
                return nil
            }
            try tx.prefetchOpRecords(key, opIds: valid.map(\.opId))
            try tx.prefetchInstruments(key, ids: valid.map(\.instrumentId))
            for prepared in ops {
                switch prepared {
                case .rejected(let result):
                    results.append(result)
                case .valid(let valid):
                    let op = valid.op
                    if let record = try tx.opRecord(key, opId: op.opId) {
                        guard record.bodyHash == valid.hash else { throw VaultHTTPError.idempotencyKeyReused }
                        results.append(try JSONReader.decode(WireOpResult.self, from: record.resultJSON))
                        continue
                    }
                    let result = try Self.apply(valid, key: key, tx: tx, now: now, liveCount: &liveCount,
                                                maxInstruments: maxInstruments)
                    let json = String(decoding: try OpResultEncoder.encode(result), as: UTF8.self)
                    try tx.putOpRecord(key, StoredOpRecord(opId: op.opId, bodyHash: valid.hash, resultJSON: json, createdAt: now))
                    results.append(result)
                }
            }
            try trimIfDue(key, writes: ops.count, tx: tx)
            return results
        }
    }

    /// Counts `writes` against the customer and, every `caps.checkInterval` of them, purges its
    /// oldest tombstones and op records past the caps.
    private func trimIfDue(_ key: CustomerKey, writes: Int, tx: any VaultStorageTransaction) throws {
        guard writesSinceTrim.add(writes, to: key, every: caps.checkInterval) else { return }
        if let cutoff = try tx.tombstoneCutoff(key, keeping: caps.maxTombstones) {
            try tx.purgeTombstones(key, deletedAtOrBefore: cutoff)
        }
        if let cutoff = try tx.opRecordCutoff(key, keeping: caps.maxOpRecords) {
            try tx.purgeOpRecords(key, createdAtOrBefore: cutoff)
        }
    }

    /// Deletes a live instrument outside the op protocol; nil when there is no live instrument
    /// with this id for this merchant and customer.
    func delete(_ key: CustomerKey, id: String, now: Int64) throws -> WireChange? {
        try storage.transaction { tx in
            guard let row = try tx.instrument(key, id: id), !row.deleted else { return nil }
            let change = try Self.change(of: Self.tombstone(row, key: key, tx: tx, now: now))
            try trimIfDue(key, writes: 1, tx: tx)
            return change
        }
    }

    // MARK: Rules

    /// Applies one op. `liveCount` is the customer's live instrument count once an upsert that
    /// creates an instrument needed it (nil before); `maxInstruments` is the cap.
    private static func apply(_ valid: ValidOp, key: CustomerKey, tx: any VaultStorageTransaction,
                              now: Int64, liveCount: inout Int?, maxInstruments: Int) throws -> WireOpResult {
        let op = valid.op
        let existing = try tx.instrument(key, id: op.instrumentId)
        switch op.kind {
        case .upsert:
            guard let method = op.method, let json = valid.methodJSON, method.id == op.instrumentId else {
                return reject(op, "invalid-op", "an upsert needs a method whose id is the instrumentId")
            }
            let isDefault = method.isDefault
            // A co-badged card's network must be one of its networks (the preferred-network choice).
            let previous = try existing.flatMap { $0.deleted ? nil : try Self.method(of: $0) }
            if let problem = PreferredNetworkRule.problem(method, previous: previous) {
                return reject(op, "invalid-network", problem)
            }
            guard let existing else {
                if let base = op.baseVersion, base != 0 {
                    return WireOpResult(opId: op.opId, status: .conflict, reason: "not-found",
                                        message: "the instrument does not exist (it may have been deleted and purged)")
                }
                let live = try liveCount ?? tx.liveInstruments(key).count
                guard live < maxInstruments else {
                    liveCount = live
                    return reject(op, "instrument-limit-reached",
                                  "a customer holds at most \(maxInstruments) instruments; delete one first")
                }
                liveCount = live + 1
                if isDefault { try clearOtherDefaults(key: key, keeping: op.instrumentId, tx: tx) }
                let row = InstrumentRecord(id: op.instrumentId, version: 1, sequence: try tx.nextSequence(), deleted: false,
                                           isDefault: isDefault, methodJSON: json, deletedAt: nil)
                try tx.put(key, row)
                return WireOpResult(opId: op.opId, status: .applied, version: row.version)
            }
            if existing.deleted { return try conflict(op, "deleted", "the instrument was deleted", existing) }
            guard op.baseVersion == existing.version else {
                return try conflict(op, "version-mismatch", "the instrument changed on the server", existing)
            }
            if isDefault { try clearOtherDefaults(key: key, keeping: existing.id, tx: tx) }
            let row = InstrumentRecord(id: existing.id, version: existing.version + 1, sequence: try tx.nextSequence(),
                                       deleted: false, isDefault: isDefault, methodJSON: json, deletedAt: nil)
            try tx.put(key, row)
            return WireOpResult(opId: op.opId, status: .applied, version: row.version)

        case .delete:
            guard let existing else { return reject(op, "not-found", "no such instrument") }
            if existing.deleted { return WireOpResult(opId: op.opId, status: .applied, version: existing.version) }
            let row = try tombstone(existing, key: key, tx: tx, now: now)
            liveCount = liveCount.map { $0 - 1 }
            return WireOpResult(opId: op.opId, status: .applied, version: row.version)

        case .setDefault:
            guard let existing else { return reject(op, "not-found", "no such instrument") }
            if existing.deleted { return try conflict(op, "deleted", "the instrument was deleted", existing) }
            try clearOtherDefaults(key: key, keeping: existing.id, tx: tx)
            var row = existing
            if !existing.isDefault {
                row.version += 1
                row.sequence = try tx.nextSequence()
                row.isDefault = true
                try tx.put(key, row)
            }
            return WireOpResult(opId: op.opId, status: .applied, version: row.version)
        }
    }

    private static func tombstone(_ row: InstrumentRecord, key: CustomerKey, tx: any VaultStorageTransaction,
                                  now: Int64) throws -> InstrumentRecord {
        let tombstone = InstrumentRecord(id: row.id, version: row.version + 1, sequence: try tx.nextSequence(),
                                         deleted: true, isDefault: false, methodJSON: nil, deletedAt: now)
        try tx.put(key, tombstone)
        return tombstone
    }

    /// Unsets the default flag of every live instrument but `keeping`, as a change of each.
    ///
    /// Called before the new default is written, so the feed shows the old default cleared before
    /// the new one set: a device that has pulled the new default has also pulled every clear it
    /// implies, whatever page boundary falls between them, and an answer it then replays about an
    /// old default is recognisably older than what it knows.
    private static func clearOtherDefaults(key: CustomerKey, keeping id: String, tx: any VaultStorageTransaction) throws {
        for var other in try tx.liveInstruments(key) where other.isDefault && other.id != id {
            other.isDefault = false
            other.version += 1
            other.sequence = try tx.nextSequence()
            try tx.put(key, other)
        }
    }

    private static func reject(_ op: WireOp, _ reason: String, _ message: String) -> WireOpResult {
        WireOpResult(opId: op.opId, status: .rejected, reason: reason, message: message)
    }

    private static func conflict(_ op: WireOp, _ reason: String, _ message: String,
                                 _ current: InstrumentRecord) throws -> WireOpResult {
        WireOpResult(opId: op.opId, status: .conflict, reason: reason, message: message, current: try change(of: current))
    }

    // MARK: Row mapping

    static func change(of row: InstrumentRecord) throws -> WireChange {
        WireChange(id: row.id, version: row.version, deleted: row.deleted,
                   method: row.deleted ? nil : try method(of: row))
    }

    static func method(of row: InstrumentRecord) throws -> VaultedPaymentMethod {
        guard let json = row.methodJSON,
              var method = try? JSONReader.scan(json, JSONScanner.vaultedMethod) else {
            throw VaultHTTPError.internalError
        }
        method.isDefault = row.isDefault
        return method
    }
}

/// Holds the cursor codec once the storage's secret has been read (shared by copies of the service).
/// Writes per customer since its caps were last checked.
private final class WriteTally: Sendable {
    private let counts = Locked<[CustomerKey: Int]>([:])

    /// Adds `writes`; true (and the count starts over) once `every` is reached.
    func add(_ writes: Int, to key: CustomerKey, every: Int) -> Bool {
        counts.withLock { counts in
            let total = counts[key, default: 0] + writes
            if total >= every {
                counts[key] = nil
                return true
            }
            counts[key] = total
            return false
        }
    }
}

private final class CursorCodecCache: Sendable {
    let codec = Locked<ChangeCursor?>(nil)
}
