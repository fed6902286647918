import CheckoutCore

extension VaultStore {
    /// The store's methods for async code: the same work as the blocking methods of the same
    /// names, run on the database pool's own queues, so a task waiting for SQLite (a reader in
    /// use, a write lock held by another process for up to the busy timeout) is suspended and
    /// never holds one of Swift's cooperative threads.
    ///
    /// ```swift
    /// let methods = try await store.nonblocking.instruments(scope: scope)
    /// try await store.nonblocking.upsert(card, scope: scope)
    /// ```
    ///
    /// The blocking methods on `VaultStore` itself are for synchronous callers (a command-line
    /// tool, a thread of your own). `VaultProvider`'s methods and the sync engine use this view.
    public var nonblocking: Nonblocking { Nonblocking(store: self) }

    /// `VaultStore`'s methods in non-blocking form; see `VaultStore.nonblocking`.
    public struct Nonblocking: Sendable {
        let store: VaultStore

        // MARK: Reading

        /// The customer's saved methods; see `VaultStore.instruments(scope:)`.
        public func instruments(scope: VaultScope) async throws -> [VaultedPaymentMethod] {
            try await store.perform(VaultStore.instrumentsWork(scope: scope))
        }

        /// The customer's rows with their sync bookkeeping; see `VaultStore.storedInstruments(scope:includeDeleted:)`.
        public func storedInstruments(scope: VaultScope, includeDeleted: Bool = false) async throws -> [StoredInstrument] {
            try await store.perform(VaultStore.storedInstrumentsWork(scope: scope, includeDeleted: includeDeleted))
        }

        /// One row by token, tombstone included; see `VaultStore.instrument(token:scope:)`.
        public func instrument(token: String, scope: VaultScope) async throws -> StoredInstrument? {
            try await store.perform(VaultStore.instrumentWork(token: token, scope: scope))
        }

        // MARK: Local changes

        /// Saves one method and queues it; see `VaultStore.upsert(_:scope:)`. Returns the operation id.
        @discardableResult
        public func upsert(_ method: VaultedPaymentMethod, scope: VaultScope) async throws -> String {
            try await upsert([method], scope: scope)[0]
        }

        /// Saves several methods in one transaction; see `VaultStore.upsert(_:scope:)`.
        @discardableResult
        public func upsert(_ methods: [VaultedPaymentMethod], scope: VaultScope) async throws -> [String] {
            try await store.perform(store.upsertWork(methods, scope: scope))
        }

        /// Soft-deletes and queues the delete; see `VaultStore.delete(token:scope:)`.
        @discardableResult
        public func delete(token: String, scope: VaultScope) async throws -> Bool {
            try await store.perform(store.deleteWork(token: token, scope: scope))
        }

        /// Makes `token` the only default and queues it; see `VaultStore.setDefault(token:scope:)`.
        public func setDefault(token: String, scope: VaultScope) async throws {
            try await store.perform(store.setDefaultWork(token: token, scope: scope))
        }

        /// Moves the instrument up the list (local only); see `VaultStore.markUsed(token:scope:)`.
        public func markUsed(token: String, scope: VaultScope) async throws {
            try await store.perform(store.markUsedWork(token: token, scope: scope))
        }

        // MARK: Outbox and sync

        /// The oldest queued operations; see `VaultStore.pendingOps(scope:limit:)`.
        public func pendingOps(scope: VaultScope, limit: Int = 100) async throws -> [OutboxOperation] {
            try await store.perform(VaultStore.pendingOpsWork(scope: scope, limit: limit))
        }

        /// How many operations wait; see `VaultStore.pendingCount(scope:)`.
        public func pendingCount(scope: VaultScope) async throws -> Int {
            try await store.perform(VaultStore.pendingCountWork(scope: scope))
        }

        /// Every scope with queued operations; see `VaultStore.pendingScopes()`.
        public func pendingScopes() async throws -> [VaultScope] {
            try await store.perform(VaultStore.pendingScopesWork())
        }

        /// Settles pushed operations; see `VaultStore.completeOps(applied:rejected:)`.
        public func completeOps(applied: [(opId: String, newVersion: Int64)] = [],
                                rejected: [(opId: String, reason: String)] = []) async throws {
            try await store.perform(store.completeOpsWork(
                applied: applied.map { OpSettlement(opId: $0.opId, newVersion: $0.newVersion) },
                rejected: rejected.map(\.opId)))
        }

        /// Records a retryable push failure; see `VaultStore.recordOpFailure(opId:error:)`.
        public func recordOpFailure(opId: String, error: String) async throws {
            try await store.perform(VaultStore.recordOpFailureWork(opId: opId, error: error))
        }

        /// Applies one page of the change feed; see `VaultStore.applyRemotePage(scope:changes:newCursor:)`.
        @discardableResult
        public func applyRemotePage(scope: VaultScope, changes: [RemoteChange], newCursor: String?) async throws
            -> RemotePageResult {
            try await applyRemotePage(scope: scope, changes: changes, newCursor: newCursor, reachedEnd: true)
        }

        /// Applies one page; `reachedEnd` says whether it ends the feed (the engine's pull knows);
        /// `replacingEqual` is for states the server sent outside the feed (conflicts).
        @discardableResult
        func applyRemotePage(scope: VaultScope, changes: [RemoteChange], newCursor: String?, reachedEnd: Bool,
                             replacingEqual: Bool = false) async throws -> RemotePageResult {
            try await store.perform(store.applyRemotePageWork(scope: scope, changes: changes, newCursor: newCursor,
                                                              reachedEnd: reachedEnd, replacingEqual: replacingEqual))
        }

        /// The cursor to pull from next; see `VaultStore.cursor(scope:)`.
        public func cursor(scope: VaultScope) async throws -> String? {
            try await syncState(scope: scope).cursor
        }

        /// The customer's cursor and last sync time; see `VaultStore.syncState(scope:)`.
        public func syncState(scope: VaultScope) async throws -> SyncState {
            try await store.perform(VaultStore.syncStateWork(scope: scope))
        }

        /// Starts the customer's sync over; see `VaultStore.resetSynced(scope:)`.
        public func resetSynced(scope: VaultScope) async throws {
            try await store.perform(VaultStore.resetSyncedWork(scope: scope))
        }

        /// The server's default as this device knows it; see `VaultStore.knownServerDefault(scope:)`.
        public func knownServerDefault(scope: VaultScope) async throws -> String?? {
            try await store.perform(VaultStore.knownServerDefaultWork(scope: scope))
        }
    }
}
