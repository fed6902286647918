import CheckoutCore

extension VaultStore {
    /// The store's methods for synchronous callers (a command-line tool, a thread of your own, a
    /// test's setup): the same work as the async methods of the same names, run on the calling
    /// thread, which blocks while SQLite waits (a reader in use, a write lock held by another
    /// process for up to the busy timeout). From a task, use the async methods: these hold the task's
    /// thread while they wait.
    ///
    /// ```swift
    /// let methods = try store.blocking.instruments(scope: scope)
    /// try store.blocking.upsert(card, scope: scope)
    /// ```
    public var blocking: Blocking { Blocking(store: self) }

    /// The async methods under their old name.
    @available(*, deprecated, message: "VaultStore's own methods are the async ones now: call them directly")
    public var nonblocking: VaultStore { self }

    /// `VaultStore`'s methods in blocking form; see `VaultStore.blocking`.
    public struct Blocking: Sendable {
        let store: VaultStore

        // MARK: Reading

        /// The customer's saved methods; see `VaultStore.instruments(scope:)`.
        public func instruments(scope: VaultScope) throws -> [VaultedPaymentMethod] {
            try store.perform(VaultStore.instrumentsWork(scope: scope))
        }

        /// The customer's rows with their sync bookkeeping; see `VaultStore.storedInstruments(scope:includeDeleted:)`.
        public func storedInstruments(scope: VaultScope, includeDeleted: Bool = false) throws -> [StoredInstrument] {
            try store.perform(VaultStore.storedInstrumentsWork(scope: scope, includeDeleted: includeDeleted))
        }

        /// One row by token, tombstone included; see `VaultStore.instrument(token:scope:)`.
        public func instrument(token: String, scope: VaultScope) throws -> StoredInstrument? {
            try store.perform(VaultStore.instrumentWork(token: token, scope: scope))
        }

        /// Calls `body` for every row of every scope, tombstones included, in primary-key order.
        /// For exports, diagnostics and benchmarks: rows are decoded one at a time, never gathered.
        public func forEachInstrument(_ body: (VaultScope, StoredInstrument) throws -> Void) throws {
            try store.forEachInstrumentRow(body)
        }

        // MARK: Local changes

        /// Saves one method and queues it; see `VaultStore.upsert(_:scope:)`. Returns the operation id.
        @discardableResult
        public func upsert(_ method: VaultedPaymentMethod, scope: VaultScope) throws -> String {
            try upsert([method], scope: scope)[0]
        }

        /// Saves several methods in one transaction; see `VaultStore.upsert(_:scope:)`.
        @discardableResult
        public func upsert(_ methods: [VaultedPaymentMethod], scope: VaultScope) throws -> [String] {
            try store.perform(store.upsertWork(methods, scope: scope))
        }

        /// Soft-deletes and queues the delete; see `VaultStore.delete(token:scope:)`.
        @discardableResult
        public func delete(token: String, scope: VaultScope) throws -> Bool {
            try store.perform(store.deleteWork(token: token, scope: scope))
        }

        /// Makes `token` the only default and queues it; see `VaultStore.setDefault(token:scope:)`.
        public func setDefault(token: String, scope: VaultScope) throws {
            try store.perform(store.setDefaultWork(token: token, scope: scope))
        }

        /// Moves the instrument up the list (local only); see `VaultStore.markUsed(token:scope:)`.
        public func markUsed(token: String, scope: VaultScope) throws {
            try store.perform(store.markUsedWork(token: token, scope: scope))
        }

        // MARK: Outbox and sync

        /// The oldest queued operations; see `VaultStore.pendingOps(scope:limit:)`.
        public func pendingOps(scope: VaultScope, limit: Int = 100) throws -> [OutboxOperation] {
            try store.perform(VaultStore.pendingOpsWork(scope: scope, limit: limit))
        }

        /// How many operations wait; see `VaultStore.pendingCount(scope:)`.
        public func pendingCount(scope: VaultScope) throws -> Int {
            try store.perform(VaultStore.pendingCountWork(scope: scope))
        }

        /// Every scope with queued operations; see `VaultStore.pendingScopes()`.
        public func pendingScopes() throws -> [VaultScope] {
            try store.perform(VaultStore.pendingScopesWork())
        }

        /// Settles pushed operations; see `VaultStore.completeOps(applied:rejected:)`.
        public func completeOps(applied: [(opId: String, newVersion: Int64)] = [],
                                rejected: [(opId: String, reason: String)] = []) throws {
            try store.perform(store.completeOpsWork(
                applied: applied.map { OpSettlement(opId: $0.opId, newVersion: $0.newVersion) },
                rejected: rejected.map(\.opId)))
        }

        /// Records a retryable push failure; see `VaultStore.recordOpFailure(opId:error:)`.
        public func recordOpFailure(opId: String, error: String) throws {
            try store.perform(VaultStore.recordOpFailureWork(opId: opId, error: error))
        }

        /// Applies one page of the change feed; see `VaultStore.applyRemotePage(scope:changes:newCursor:)`.
        @discardableResult
        public func applyRemotePage(scope: VaultScope, changes: [RemoteChange], newCursor: String?) throws
            -> RemotePageResult {
            try store.perform(store.applyRemotePageWork(scope: scope, changes: changes, newCursor: newCursor, reachedEnd: true))
        }

        /// The cursor to pull from next; see `VaultStore.cursor(scope:)`.
        public func cursor(scope: VaultScope) throws -> String? {
            try syncState(scope: scope).cursor
        }

        /// The customer's cursor and last sync time; see `VaultStore.syncState(scope:)`.
        public func syncState(scope: VaultScope) throws -> SyncState {
            try store.perform(VaultStore.syncStateWork(scope: scope))
        }

        /// Starts the customer's sync over; see `VaultStore.resetSynced(scope:)`.
        public func resetSynced(scope: VaultScope) throws {
            try store.perform(VaultStore.resetSyncedWork(scope: scope))
        }

        /// The server's default as this device knows it; see `VaultStore.knownServerDefault(scope:)`.
        public func knownServerDefault(scope: VaultScope) throws -> String?? {
            try store.perform(VaultStore.knownServerDefaultWork(scope: scope))
        }
    }
}
