import CheckoutCore

/// A saved payment method as the store holds it: the core's value plus sync bookkeeping.
public struct StoredInstrument: Sendable, Equatable {
    /// The masked instrument, as the core sees it.
    public var method: VaultedPaymentMethod
    /// The server's version of this row; 0 until the server has acknowledged it.
    public var version: Int64
    /// True for a soft-deleted (tombstoned) row; such rows never appear in lists.
    public var isDeleted: Bool
    /// When the instrument was last used or saved on this device (Unix milliseconds, monotonic per customer).
    public var lastUsedAt: Int64
    /// When the row last changed locally or from the server (Unix milliseconds).
    public var updatedAt: Int64

    /// Creates a stored instrument.
    public init(method: VaultedPaymentMethod, version: Int64, isDeleted: Bool, lastUsedAt: Int64, updatedAt: Int64) {
        self.method = method
        self.version = version
        self.isDeleted = isDeleted
        self.lastUsedAt = lastUsedAt
        self.updatedAt = updatedAt
    }
}
