import CheckoutPlatform
import Foundation

/// Where the vault server keeps instruments, tombstones, the idempotency log and ephemeral keys.
///
/// A storage offers primitives only; every rule (versions, delete wins, one default, idempotency,
/// retention) lives once in `VaultService`, so the SQLite and in-memory storages cannot disagree.
/// Calls are synchronous because they run on libmicrohttpd's threads, which must not wait on
/// async work. A PostgreSQL storage would implement the same two protocols, letting several
/// server instances share one database.
public protocol VaultServerStorage: Sendable {
    /// Runs `body` as one atomic, isolated transaction: all its writes commit together or none
    /// do (a throw rolls back). Transactions never interleave their writes, so sequences handed
    /// out by `nextSequence()` become visible in increasing order.
    func transaction<T: Sendable>(_ body: (any VaultStorageTransaction) throws -> T) throws -> T

    /// Runs `body` on one consistent, read-only snapshot that does not wait for writers. Writes
    /// inside it are a programming error and throw (SQLite) or are discarded (in memory).
    func read<T: Sendable>(_ body: (any VaultStorageTransaction) throws -> T) throws -> T
}

/// A storage error that may say its failure is temporary; the server answers a temporary failure
/// with 503 and `Retry-After` instead of 500, so clients back off and retry (ops are idempotent by
/// op id, so a retry is safe even when the outcome of the failed call is unknown). The protocol
/// itself lives in the platform layer, where the PostgreSQL kit conforms to it.
public typealias TemporaryStorageFailure = CheckoutPlatform.TemporaryStorageFailure

/// The operations available inside one storage transaction. Every call is scoped by merchant
/// (and customer, for the vault's rows); nothing here can reach another tenant's rows. The one
/// exception is `ephemeralKey(secretHash:)`, which finds the tenant of a presented secret.
public protocol VaultStorageTransaction {
    /// The instrument or tombstone with this id, if any.
    func instrument(_ key: CustomerKey, id: String) throws -> InstrumentRecord?
    /// The customer's live instruments, default first, then by id.
    func liveInstruments(_ key: CustomerKey) throws -> [InstrumentRecord]
    /// The customer's instruments and tombstones with a sequence greater than `after`, in
    /// increasing sequence, at most `limit` of them; reading stops after the row that brings the
    /// total of their `feedBytes` over `maxBytes`: a page of the feed never loads much more than
    /// its byte bound.
    func changes(_ key: CustomerKey, after: Int64, limit: Int, maxBytes: Int) throws -> [InstrumentRecord]
    /// Inserts or replaces the customer's row of `instrument` (keyed by its id).
    func put(_ key: CustomerKey, _ instrument: InstrumentRecord) throws
    /// A fresh sequence number, greater than every one handed out before.
    func nextSequence() throws -> Int64
    /// True when the customer has tombstones deleted at or before `deletedAtOrBefore`.
    func hasTombstones(_ key: CustomerKey, deletedAtOrBefore: Int64) throws -> Bool
    /// The highest sequence of a purged tombstone of this customer (0 when none were purged).
    func purgeHorizon(_ key: CustomerKey) throws -> Int64
    /// Removes the customer's tombstones deleted at or before `deletedAtOrBefore` (epoch
    /// milliseconds) and raises the purge horizon to the highest purged sequence.
    func purgeTombstones(_ key: CustomerKey, deletedAtOrBefore: Int64) throws
    /// The background purge, across every merchant and customer: removes tombstones deleted at
    /// or before `tombstonesDeletedAtOrBefore` (raising each customer's purge horizon, exactly as
    /// `purgeTombstones` does) and idempotency records created at or before `opsCreatedAtOrBefore`
    /// (epoch milliseconds). Indexed on both times.
    func purgeExpired(tombstonesDeletedAtOrBefore: Int64, opsCreatedAtOrBefore: Int64) throws
    /// The `deletedAt` of the customer's tombstone with `keeping` newer ones (the `keeping + 1`-th
    /// newest), or nil when it has no more than `keeping`: purging at or before it leaves at most
    /// `keeping` tombstones. Indexed.
    func tombstoneCutoff(_ key: CustomerKey, keeping: Int) throws -> Int64?
    /// The `createdAt` of the customer's op record with `keeping` newer ones, or nil when it has no
    /// more than `keeping`. Indexed.
    func opRecordCutoff(_ key: CustomerKey, keeping: Int) throws -> Int64?
    /// Removes the customer's op records created at or before `createdAtOrBefore` (a replay of
    /// such an op is then judged by the versions it carries, like a new op).
    func purgeOpRecords(_ key: CustomerKey, createdAtOrBefore: Int64) throws
    /// The idempotency record of `opId`, if the op was processed before.
    func opRecord(_ key: CustomerKey, opId: String) throws -> StoredOpRecord?
    /// Records the outcome of an op under its id.
    func putOpRecord(_ key: CustomerKey, _ record: StoredOpRecord) throws
    /// A hint before a batch: `opIds` are about to be looked up with `opRecord`, one by one, in
    /// this transaction. A storage with costly round trips (PostgreSQL) reads them all at once
    /// here and answers the lookups from that read; `opRecord` must answer exactly as without the
    /// hint (its own `putOpRecord`s included). The default does nothing.
    func prefetchOpRecords(_ key: CustomerKey, opIds: [String]) throws
    /// A hint before a batch, like `prefetchOpRecords`: the instruments `ids` are about to be
    /// looked up with `instrument`; `instrument` must answer exactly as without it. The default
    /// does nothing.
    func prefetchInstruments(_ key: CustomerKey, ids: [String]) throws
    /// The vault's secret for change-feed cursors: random, made once when the storage is created,
    /// the same for every server instance on this storage and across restarts. Ephemeral key
    /// hashes are keyed by a derivation of it too.
    func cursorSecret() throws -> [UInt8]

    // MARK: Ephemeral customer keys

    /// Stores a newly minted ephemeral key (its id and secret hash are new).
    func insertEphemeralKey(_ record: EphemeralKeyRecord) throws
    /// The ephemeral key whose secret hashes to `secretHash`, of any merchant: this lookup is how a
    /// bearer secret is authenticated, before any merchant is known. Indexed.
    func ephemeralKey(secretHash: String) throws -> EphemeralKeyRecord?
    /// Marks the merchant's key `id` revoked at `at` (epoch milliseconds), keeping an earlier
    /// revocation time; false when this merchant has no key with this id.
    func revokeEphemeralKey(merchant: String, id: String, at: Int64) throws -> Bool
    /// Deletes the merchant's keys that expired at or before `expiredAtOrBefore` (epoch milliseconds).
    func purgeEphemeralKeys(merchant: String, expiredAtOrBefore: Int64) throws
}

extension VaultStorageTransaction {
    /// `changes(_:after:limit:maxBytes:)` without a byte bound.
    public func changes(_ key: CustomerKey, after: Int64, limit: Int) throws -> [InstrumentRecord] {
        try changes(key, after: after, limit: limit, maxBytes: .max)
    }

    /// Throws `ExpiryPurgeUnsupported`: a storage written before the background purge keeps
    /// compiling, and the server says so instead of keeping expired rows silently.
    public func purgeExpired(tombstonesDeletedAtOrBefore: Int64, opsCreatedAtOrBefore: Int64) throws {
        throw ExpiryPurgeUnsupported()
    }

    /// Does nothing: every `opRecord` call reads the storage.
    public func prefetchOpRecords(_ key: CustomerKey, opIds: [String]) throws {}

    /// Does nothing: every `instrument` call reads the storage.
    public func prefetchInstruments(_ key: CustomerKey, ids: [String]) throws {}

    /// Throws `EphemeralKeysUnsupported`: a storage written before ephemeral keys keeps compiling.
    public func insertEphemeralKey(_ record: EphemeralKeyRecord) throws { throw EphemeralKeysUnsupported() }
    /// Throws `EphemeralKeysUnsupported`.
    public func ephemeralKey(secretHash: String) throws -> EphemeralKeyRecord? { throw EphemeralKeysUnsupported() }
    /// Throws `EphemeralKeysUnsupported`.
    public func revokeEphemeralKey(merchant: String, id: String, at: Int64) throws -> Bool { throw EphemeralKeysUnsupported() }
    /// Throws `EphemeralKeysUnsupported`.
    public func purgeEphemeralKeys(merchant: String, expiredAtOrBefore: Int64) throws { throw EphemeralKeysUnsupported() }
}

/// A storage without `purgeExpired`: expired tombstones and op records stay until that customer's
/// feed is read (tombstones) or forever (op records).
public struct ExpiryPurgeUnsupported: Error, Sendable, CustomStringConvertible {
    /// Creates the error.
    public init() {}
    /// A one-line explanation, safe to log.
    public var description: String { "this vault storage does not implement purgeExpired" }
}

/// Identifies one customer of one merchant: the scope of every storage query.
public struct CustomerKey: Hashable, Sendable {
    /// The merchant (tenant), derived from the API key, never from the request.
    public let merchant: String
    /// The customer, from the request path.
    public let customer: String

    /// Creates the key of one merchant's customer.
    public init(merchant: String, customer: String) {
        self.merchant = merchant
        self.customer = customer
    }
}

/// An instrument or tombstone row as storage keeps it.
public struct InstrumentRecord: Sendable, Equatable {
    /// The vault token.
    public var id: String
    /// Increases by one on every applied change.
    public var version: Int64
    /// The server sequence of the latest change.
    public var sequence: Int64
    /// True for a tombstone.
    public var deleted: Bool
    /// The server's default flag (authoritative over the flag inside `methodJSON`).
    public var isDefault: Bool
    /// The masked `VaultedPaymentMethod` as JSON; nil for tombstones.
    public var methodJSON: String?
    /// When the tombstone was created, epoch milliseconds; nil for live instruments.
    public var deletedAt: Int64?

    /// An upper bound of the row's bytes in a change-feed page: the method JSON, the id escaped
    /// at worst, and 64 bytes of keys, version and punctuation.
    public var feedBytes: Int { Self.feedOverheadBytes + 6 * id.utf8.count + (methodJSON?.utf8.count ?? 0) }

    /// The bytes of a feed row besides its id and method JSON (at most).
    public static let feedOverheadBytes = 64

    /// Creates a row.
    public init(id: String, version: Int64, sequence: Int64, deleted: Bool, isDefault: Bool,
                methodJSON: String?, deletedAt: Int64?) {
        self.id = id
        self.version = version
        self.sequence = sequence
        self.deleted = deleted
        self.isDefault = isDefault
        self.methodJSON = methodJSON
        self.deletedAt = deletedAt
    }
}

/// The idempotency record of one processed op.
public struct StoredOpRecord: Sendable, Equatable {
    /// The op's id (its idempotency key).
    public var opId: String
    /// SHA-256 (hex) of the op's canonical JSON: the same id with another hash is a misuse (422).
    public var bodyHash: String
    /// The JSON of the result returned the first time, replayed on a retry.
    public var resultJSON: String
    /// When the op was processed, epoch milliseconds.
    public var createdAt: Int64

    /// Creates a record.
    public init(opId: String, bodyHash: String, resultJSON: String, createdAt: Int64) {
        self.opId = opId
        self.bodyHash = bodyHash
        self.resultJSON = resultJSON
        self.createdAt = createdAt
    }
}
