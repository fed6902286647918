import CheckoutCore

/// A local change waiting to be pushed to the remote vault, in the order it was made.
///
/// The `id` (a random UUID) is the idempotency key: sending the same operation twice must
/// apply it once. `baseVersion` is the server version the change was made against, so the
/// server can detect a conflicting edit.
public struct OutboxOperation: Sendable, Equatable, Identifiable {
    /// What the operation does.
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// Insert or replace the instrument with `method`.
        case upsert
        /// Delete (tombstone) the instrument.
        case delete
        /// Make the instrument the customer's only default.
        case setDefault
    }

    /// The operation id (UUID, lower-case), also the idempotency key.
    public let id: String
    /// Whose vault the operation changes.
    public let scope: VaultScope
    /// What it does.
    public let kind: Kind
    /// The instrument's token.
    public let token: String
    /// The full masked instrument for `upsert`; nil for `delete` and `setDefault`.
    public let method: VaultedPaymentMethod?
    /// The server version the change was based on (0 for an instrument the server has not seen).
    public let baseVersion: Int64
    /// How many pushes of this operation failed with a retryable error.
    public let attempts: Int
    /// The last retryable error, already scrubbed of payment data.
    public let lastError: String?
    /// When the change was made (Unix milliseconds).
    public let createdAt: Int64

    /// Creates an operation value (the store creates them; tests and remotes may too).
    public init(id: String, scope: VaultScope, kind: Kind, token: String, method: VaultedPaymentMethod?,
                baseVersion: Int64, attempts: Int, lastError: String?, createdAt: Int64) {
        self.id = id
        self.scope = scope
        self.kind = kind
        self.token = token
        self.method = method
        self.baseVersion = baseVersion
        self.attempts = attempts
        self.lastError = lastError
        self.createdAt = createdAt
    }
}
