import CheckoutCore

/// The core's view of the store: checkout lists, saves and changes saved methods through
/// `VaultProvider` and never sees SQLite, the outbox or sync.
extension VaultStore: VaultProvider {
    /// The customer's saved methods from the local cache (works offline).
    public func paymentMethods(for scope: VaultScope) async throws -> [VaultedPaymentMethod] {
        try await instruments(scope: scope)
    }

    /// Saves the method locally and queues it for sync.
    public func save(_ method: VaultedPaymentMethod, for scope: VaultScope) async throws {
        try await upsert(method, scope: scope)
    }

    /// Soft-deletes the method and queues the delete; unknown ids are ignored.
    public func delete(id: String, for scope: VaultScope) async throws {
        try await delete(token: id, scope: scope)
    }

    /// Makes the method the only default and queues the change.
    public func setDefault(id: String, for scope: VaultScope) async throws {
        try await setDefault(token: id, scope: scope)
    }

    /// Moves the method to the top of its non-default peers (local only).
    public func markUsed(id: String, for scope: VaultScope) async throws {
        try await markUsed(token: id, scope: scope)
    }
}
