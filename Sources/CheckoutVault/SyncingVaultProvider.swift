import CheckoutCore

/// The `VaultProvider` checkout uses when sync is on: reads come straight from the local cache,
/// writes go to the store and then wake the sync engine.
///
/// Listing never waits for the network (it is one local SQLite read, offline or not); a write is
/// durable in the store (with its outbox row) before the engine is told, so nothing is lost if
/// the push fails. `markUsed` is local ordering only and does not wake the engine.
public struct SyncingVaultProvider: VaultProvider {
    /// The local cache and outbox.
    public let store: VaultStore
    /// The engine woken after every synced write.
    public let engine: SyncEngine

    /// Wraps `store`, notifying `engine` after each write.
    public init(store: VaultStore, engine: SyncEngine) {
        self.store = store
        self.engine = engine
    }

    /// The customer's saved methods, straight from the local cache (never waits for the network).
    public func paymentMethods(for scope: VaultScope) async throws -> [VaultedPaymentMethod] {
        try await store.instruments(scope: scope)
    }

    /// Saves locally (with its outbox row), then wakes the engine.
    public func save(_ method: VaultedPaymentMethod, for scope: VaultScope) async throws {
        try await store.upsert(method, scope: scope)
        await engine.notifyLocalWriteNonblocking()
    }

    /// Soft-deletes locally (queueing the delete), then wakes the engine; unknown ids are ignored.
    public func delete(id: String, for scope: VaultScope) async throws {
        if try await store.delete(token: id, scope: scope) { await engine.notifyLocalWriteNonblocking() }
    }

    /// Makes the method the only default locally (queued), then wakes the engine.
    public func setDefault(id: String, for scope: VaultScope) async throws {
        try await store.setDefault(token: id, scope: scope)
        await engine.notifyLocalWriteNonblocking()
    }

    /// Moves the method up the local list (device-local ordering, not synced).
    public func markUsed(id: String, for scope: VaultScope) async throws {
        try await store.markUsed(token: id, scope: scope)
    }
}
