/// What an ephemeral customer key lets its holder do with its one customer.
public enum EphemeralKeyScope: String, Sendable, CaseIterable {
    /// Instruments and the change feed only.
    case read
    /// Reads, ops and deletes.
    case readWrite = "read-write"
}

/// An ephemeral customer key as storage keeps it: never the secret, only its keyed hash.
///
/// A backend mints the key with its merchant API key for one of its customers and hands the
/// secret to that customer's device, which then needs no merchant key to sync. The secret is
/// shown once, in the mint answer; storage holds HMAC-SHA-256 of it under a key derived from the
/// storage's secret (`VaultStorageTransaction.cursorSecret()`), so a copy of the database
/// cannot be used to call the API.
public struct EphemeralKeyRecord: Sendable, Equatable {
    /// The public id (`ek_` and 24 letters a–p), used to revoke the key.
    public var id: String
    /// The merchant that minted the key: the tenant of every call made with it.
    public var merchant: String
    /// The one customer the key reaches.
    public var customer: String
    /// HMAC-SHA-256 of the secret as 64 letters a–p; the lookup key of authentication.
    public var secretHash: String
    /// Read or read-write.
    public var scope: EphemeralKeyScope
    /// When the key was minted, epoch milliseconds.
    public var createdAt: Int64
    /// When the key stops working, epoch milliseconds (a whole second).
    public var expiresAt: Int64
    /// When the key was revoked, epoch milliseconds; nil while it is not.
    public var revokedAt: Int64?

    /// Creates a record.
    public init(id: String, merchant: String, customer: String, secretHash: String, scope: EphemeralKeyScope,
                createdAt: Int64, expiresAt: Int64, revokedAt: Int64?) {
        self.id = id
        self.merchant = merchant
        self.customer = customer
        self.secretHash = secretHash
        self.scope = scope
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
    }
}

/// A storage written before ephemeral keys existed: its transactions keep compiling through the
/// protocol's default implementations, which throw this (the server answers 500).
public struct EphemeralKeysUnsupported: Error, Sendable, Equatable, CustomStringConvertible {
    /// Creates the error.
    public init() {}

    /// A one-line explanation, safe to log.
    public var description: String { "this vault storage does not implement ephemeral customer keys" }
}
