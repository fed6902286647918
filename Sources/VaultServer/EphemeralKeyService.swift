import CheckoutCrypto
import CheckoutLocking

/// Mints, revokes and authenticates ephemeral customer keys over `VaultServerStorage`.
///
/// - Mint: a fresh id and secret from `SecureRandom`; storage keeps the record with
///   `HMAC-SHA-256(hashKey, secret)` only, where `hashKey = HMAC-SHA-256(cursorSecret,
///   "checkoutkit ephemeral-key-hash v1")` — the storage's one secret, made by a migration,
///   domain-separated from its use for cursors. The secret is returned once and never stored or
///   logged. Minting also purges the merchant's keys forgotten by now (below).
/// - Authenticate: a well-formed secret is hashed and looked up by hash (a unique index). An
///   indexed lookup is not constant-time, and need not be: without the hash key, timing tells an
///   attacker nothing about which secret would hash near a stored one.
/// - Expiry: on the server's injectable clock, at `expiresAt` (a whole second). An expired or
///   revoked key is remembered for `forgetAfterExpiryMillis` after its expiry, so a device hears
///   `key-expired` or `key-revoked` rather than `unauthorized`; after that it is unknown whether
///   or not the row was purged yet.
struct EphemeralKeyService: Sendable {
    /// The accepted lifetimes in seconds (up to a day).
    static let ttlSeconds = 1...86_400
    /// The lifetime when the request names none.
    static let defaultTTLSeconds = 3600
    /// How long after its expiry a key is still recognised (to answer key-expired or key-revoked).
    static let forgetAfterExpiryMillis: Int64 = 24 * 3600 * 1000

    let storage: any VaultServerStorage
    private let hashKeyCache = HashKeyCache()

    init(storage: any VaultServerStorage) {
        self.storage = storage
    }

    /// A minted key: the record as stored and the secret, which exists only in this answer.
    struct Minted: Sendable {
        var record: EphemeralKeyRecord
        var secret: String
    }

    /// What a presented secret is.
    enum Verdict: Sendable, Equatable {
        case valid(EphemeralKeyRecord)
        case expired
        case revoked
        /// Not a secret this server knows (or one forgotten after its expiry).
        case unknown
    }

    /// Mints a key of `merchant` for `customer`, valid from `now` (epoch milliseconds) for
    /// `ttlSeconds` (rounded down to a whole second of expiry).
    func mint(merchant: String, customer: String, ttlSeconds: Int, scope: EphemeralKeyScope, now: Int64) throws -> Minted {
        let key = try hashKey()
        let secret = try EphemeralKeyFormat.newSecret()
        let expiresAt = (now + Int64(ttlSeconds) * 1000) / 1000 * 1000
        let record = EphemeralKeyRecord(id: try EphemeralKeyFormat.newId(), merchant: merchant, customer: customer,
                                        secretHash: Self.hash(Array(secret.utf8), key: key), scope: scope,
                                        createdAt: now, expiresAt: expiresAt, revokedAt: nil)
        try storage.transaction { tx in
            try tx.purgeEphemeralKeys(merchant: merchant, expiredAtOrBefore: now - Self.forgetAfterExpiryMillis)
            try tx.insertEphemeralKey(record)
        }
        return Minted(record: record, secret: secret)
    }

    /// Revokes the merchant's key `id`; false when the merchant has no such key (another
    /// merchant's id included). Revoking again is not an error.
    func revoke(merchant: String, id: String, now: Int64) throws -> Bool {
        guard EphemeralKeyFormat.isId(id) else { return false }
        return try storage.transaction { tx in try tx.revokeEphemeralKey(merchant: merchant, id: id, at: now) }
    }

    /// The key a device presents, judged at `now`.
    func authenticate(_ presented: [UInt8], now: Int64) throws -> Verdict {
        guard EphemeralKeyFormat.isSecret(presented) else { return .unknown }
        let hash = Self.hash(presented, key: try hashKey())
        guard let record = try storage.read({ tx in try tx.ephemeralKey(secretHash: hash) }),
              now < record.expiresAt + Self.forgetAfterExpiryMillis else { return .unknown }
        if record.revokedAt != nil { return .revoked }
        if now >= record.expiresAt { return .expired }
        return .valid(record)
    }

    /// The stored form of a secret: HMAC-SHA-256 under the hash key, as 64 letters a–p.
    static func hash(_ secret: [UInt8], key: HMAC.Key) -> String {
        NibbleLetters.string(key.sha256(secret))
    }

    /// The HMAC key of secret hashes, derived once from the storage's secret.
    private func hashKey() throws -> HMAC.Key {
        if let key = hashKeyCache.key.withLock({ $0 }) { return key }
        let secret = try storage.read { tx in try tx.cursorSecret() }
        let key = HMAC.Key(HMAC.sha256(key: secret, message: Array("checkoutkit ephemeral-key-hash v1".utf8)))
        hashKeyCache.key.withLock { $0 = key }
        return key
    }
}

/// Holds the hash key once derived (shared by copies of the service).
private final class HashKeyCache: Sendable {
    let key = Locked<HMAC.Key?>(nil)
}
