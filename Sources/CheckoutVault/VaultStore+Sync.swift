import CheckoutCore
internal import SQLiteKit

extension VaultStore {
    /// Applies one page of the remote change feed and advances the cursor, in one transaction.
    ///
    /// Rules: a change never takes a row back to an older version; a row with queued local
    /// operations keeps its local state (the push will settle it; the pulled state is set aside and
    /// taken once the row's queue is empty, unless the push's answers are newer), except that a
    /// remote delete always applies (delete wins); a remote default does not displace a local
    /// default that is still queued; a change older than what the device already knows of its
    /// instrument does not move the default. The page is taken to end the feed: what the device
    /// knows of the server's default is current again (`VaultStore+ServerDefault`), and rows a
    /// reset kept that the pull from the start did not show are deleted (`resetSynced`). Every value
    /// is checked by the payment-data guard first: one bad change rejects the whole page and
    /// nothing (not even the cursor) moves.
    @discardableResult
    public func applyRemotePage(scope: VaultScope, changes: [RemoteChange], newCursor: String?) async throws -> RemotePageResult {
        try await applyRemotePage(scope: scope, changes: changes, newCursor: newCursor, reachedEnd: true)
    }

    /// Applies one page; `reachedEnd` says whether it ends the feed (the engine's pull knows);
    /// `replacingEqual` is for states the server sent outside the feed (conflicts).
    @discardableResult
    func applyRemotePage(scope: VaultScope, changes: [RemoteChange], newCursor: String?, reachedEnd: Bool,
                         replacingEqual: Bool = false) async throws -> RemotePageResult {
        try await perform(applyRemotePageWork(scope: scope, changes: changes, newCursor: newCursor,
                                              reachedEnd: reachedEnd, replacingEqual: replacingEqual))
    }

    /// Applies a page that `checkRemotePage` passed, as `applyRemotePage(scope:changes:newCursor:)`
    /// does, without checking it again: a host pulling on its own checks the next page while the
    /// store writes this one.
    @discardableResult
    public func applyRemotePage(_ page: CheckedRemotePage) async throws -> RemotePageResult {
        try await applyRemotePage(page, reachedEnd: true)
    }

    /// Applies a checked page; `reachedEnd` as in `applyRemotePage(scope:changes:newCursor:reachedEnd:)`.
    @discardableResult
    func applyRemotePage(_ page: CheckedRemotePage, reachedEnd: Bool) async throws -> RemotePageResult {
        try await perform(applyRemotePageWork(page, reachedEnd: reachedEnd))
    }

    /// `applyRemotePageWork(_:reachedEnd:replacingEqual:)` after `checkRemotePage`.
    func applyRemotePageWork(scope: VaultScope, changes: [RemoteChange], newCursor: String?,
                             reachedEnd: Bool, replacingEqual: Bool = false) throws -> StoreWork<RemotePageResult> {
        applyRemotePageWork(try Self.checkRemotePage(scope: scope, changes: changes, newCursor: newCursor),
                            reachedEnd: reachedEnd, replacingEqual: replacingEqual)
    }

    /// A page of remote changes that every check of the store passed (the scope, each token, each
    /// method by the payment-data guard and the row rules, the cursor), ready to be written; only
    /// `checkRemotePage` makes one. Checking is about a quarter of applying a page and needs no
    /// database: the engine's pull checks the next page while the store writes the current one.
    public struct CheckedRemotePage: Sendable {
        /// The customer the page belongs to.
        public let scope: VaultScope
        /// The page's changes, oldest first.
        public let changes: [RemoteChange]
        /// The cursor the store keeps once the page is written.
        public let newCursor: String?

        fileprivate init(scope: VaultScope, changes: [RemoteChange], newCursor: String?) {
            self.scope = scope
            self.changes = changes
            self.newCursor = newCursor
        }
    }

    /// Runs every check a page must pass before any of it is written; one bad change rejects the
    /// page (`CheckoutError`: `sensitiveDataRejected` for a card number anywhere, `invalidPaymentData`
    /// for the rest). Needs no database: call it on any thread.
    public static func checkRemotePage(scope: VaultScope, changes: [RemoteChange], newCursor: String?) throws -> CheckedRemotePage {
        try check(scope)
        for change in changes {
            try check(token: change.token)
            if let method = change.method {
                guard method.id == change.token else {
                    throw CheckoutError(.invalidPaymentData, "a remote change's token differs from its instrument id")
                }
                try VaultDataGuard.check(method)
                try InstrumentRow.validate(method)
            }
        }
        if let newCursor { try VaultDataGuard.checkText(newCursor, field: "the sync cursor") }
        return CheckedRemotePage(scope: scope, changes: changes, newCursor: newCursor)
    }

    /// The page's transaction; `reachedEnd` is false for a page with more behind it, and for the
    /// server's state of single instruments that a push's conflicts carried. `replacingEqual`
    /// (those conflict states) also replaces a row at the same version: the server sent its own
    /// state of it, while the row's fields at that version may be the device's guess.
    func applyRemotePageWork(_ page: CheckedRemotePage, reachedEnd: Bool,
                             replacingEqual: Bool = false) -> StoreWork<RemotePageResult> {
        let (scope, changes, newCursor) = (page.scope, page.changes, page.newCursor)
        let now = clock.nowMillis
        return .write { database in
            let pending = try Self.pendingTokens(database, scope: scope)
            var serverDefault = try Self.readServerDefault(database, scope: scope)
            // A pull from the start of the feed sees every live instrument: what it finds is the whole truth.
            if try Self.storedCursor(database, scope: scope) == nil { serverDefault = ServerDefault(known: true, token: nil) }
            // Prepared once per page: each row only rebinds and steps it.
            let upsert = try database.cachedStatement(replacingEqual ? InstrumentRow.remoteReplace : InstrumentRow.remoteUpsert)
            defer { upsert.reset() }
            var result = RemotePageResult(applied: 0, skipped: 0)
            for change in changes {
                // Knowledge only moves forward: a change older than what the device already knows of
                // the instrument (an applied answer, a change set aside) must not move the default
                // back. Only changes that could move it need the look-up.
                if change.method?.isDefault == true || change.token == serverDefault.token,
                   let known = try Self.knownVersion(database, scope: scope, token: change.token), change.version < known {
                    result.skipped += 1
                    continue
                }
                serverDefault.follow(change)
                guard let method = change.method else {
                    try database.run("""
                        UPDATE payment_instrument SET deleted = 1, is_default = 0, version = max(version, ?), updated = ? \
                        WHERE merchant_id = ? AND customer_id = ? AND token = ? AND (version < ? OR deleted = 0)
                        """) {
                        try $0.bind(change.version, at: 1)
                        try $0.bind(now, at: 2)
                        try $0.bind(scope.merchantId, at: 3)
                        try $0.bind(scope.customerId, at: 4)
                        try $0.bind(change.token, at: 5)
                        try $0.bind(change.version, at: 6)
                    }
                    if database.changes > 0 { result.applied += 1 } else { result.skipped += 1 }
                    if pending.contains(change.token) { try Self.dropAside(database, scope: scope, token: change.token, olderThan: nil) }
                    continue
                }
                if pending.contains(change.token) {
                    // The push settles the row; the server's newer state waits for it (VaultStore+PulledAside).
                    try Self.setAside(database, scope: scope, change: change, method: method)
                    result.skipped += 1
                    continue
                }
                if try Self.applyUpsert(database, scope: scope, method: method, version: change.version, pending: pending,
                                        statement: upsert, replacingEqual: replacingEqual, now: now) {
                    result.applied += 1
                } else {
                    result.skipped += 1
                }
            }
            try database.run("""
                INSERT INTO sync_state (merchant_id, customer_id, cursor, last_synced) VALUES (?, ?, ?, ?) \
                ON CONFLICT (merchant_id, customer_id) DO UPDATE SET cursor = excluded.cursor, last_synced = excluded.last_synced
                """) {
                try $0.bind(scope.merchantId, at: 1)
                try $0.bind(scope.customerId, at: 2)
                try $0.bind(newCursor, at: 3)
                try $0.bind(now, at: 4)
            }
            try Self.confirmAfterReset(database, scope: scope, changes: changes, reachedEnd: reachedEnd,
                                       now: now)
            // A pull read after the device's own writes, to the end of the feed, has seen them.
            if reachedEnd { serverDefault.stale = false }
            try Self.writeServerDefault(database, scope: scope, serverDefault)
            try Self.adoptServerDefaultIfSettled(database, scope: scope, now: now)
            return result
        }
    }

    /// Writes one pulled (or set-aside) instrument at the server's `version` with the prepared
    /// `InstrumentRow.remoteUpsert` (or, with `replacingEqual`, `remoteReplace`), unless the row is
    /// already at that version or newer (newer only, with `replacingEqual`). A pulled default does
    /// not displace a local default that is still queued. Returns true when the row changed.
    @discardableResult
    static func applyUpsert(_ database: Database, scope: VaultScope, method: VaultedPaymentMethod, version: Int64,
                            pending: Set<String>, statement upsert: Statement, replacingEqual: Bool = false,
                            now: Int64) throws -> Bool {
        var method = method
        if method.isDefault {
            let current = try Self.defaultToken(database, scope: scope)
            if let current, current != method.id {
                if pending.contains(current) {
                    method.isDefault = false
                } else if try Self.isNewer(database, scope: scope, token: method.id, version: replacingEqual ? version + 1 : version) {
                    try Self.clearDefault(database, scope: scope, except: method.id, now: now)
                }
            }
        }
        upsert.reset()
        try InstrumentRow.bind(method, scope: scope, version: version, lastUsed: 0, updated: now, to: upsert)
        try upsert.run()
        return database.changes > 0
    }

    /// The change-feed cursor to pull from next; nil before the first pull or after a reset.
    public func cursor(scope: VaultScope) async throws -> String? {
        try await syncState(scope: scope).cursor
    }

    /// The customer's cursor and last sync time.
    public func syncState(scope: VaultScope) async throws -> SyncState {
        try await perform(Self.syncStateWork(scope: scope))
    }

    static func syncStateWork(scope: VaultScope) -> StoreWork<SyncState> {
        .read { database in
            try database.withStatement(
                "SELECT cursor, last_synced FROM sync_state WHERE merchant_id = ? AND customer_id = ?") {
                try $0.bind(scope.merchantId, at: 1)
                try $0.bind(scope.customerId, at: 2)
                guard try $0.step() else { return SyncState(cursor: nil, lastSyncedAt: nil) }
                return try SyncState(cursor: $0.optionalString("cursor"), lastSyncedAt: $0.optionalInt64("last_synced"))
            }
        }
    }

    /// Starts the customer's sync over (the server no longer knows the cursor, HTTP 410): removes
    /// every row without queued operations, keeps the outbox and the rows it refers to, clears the cursor.
    ///
    /// A kept row the server once held (version above 0) must be shown by the pull from the start:
    /// when that pull reaches the end of the feed without it, the server holds it no more (deleted,
    /// its tombstone purged) and the row is deleted, queued ops or not (delete wins; a replayed
    /// answer of an op the server applied before the delete could not say so).
    public func resetSynced(scope: VaultScope) async throws {
        try await perform(Self.resetSyncedWork(scope: scope))
    }

    static func resetSyncedWork(scope: VaultScope) throws -> StoreWork<Void> {
        try Self.check(scope)
        return .write { database in
            try database.run("""
                DELETE FROM payment_instrument WHERE merchant_id = ?1 AND customer_id = ?2 \
                AND token NOT IN (SELECT token FROM outbox WHERE merchant_id = ?1 AND customer_id = ?2)
                """) {
                try $0.bind(scope.merchantId, at: 1)
                try $0.bind(scope.customerId, at: 2)
            }
            try database.run("""
                INSERT OR IGNORE INTO reset_unconfirmed (merchant_id, customer_id, token) \
                SELECT merchant_id, customer_id, token FROM payment_instrument \
                WHERE merchant_id = ?1 AND customer_id = ?2 AND version > 0 AND deleted = 0
                """) {
                try $0.bind(scope.merchantId, at: 1)
                try $0.bind(scope.customerId, at: 2)
            }
            try database.run("UPDATE sync_state SET cursor = NULL WHERE merchant_id = ? AND customer_id = ?") {
                try $0.bind(scope.merchantId, at: 1)
                try $0.bind(scope.customerId, at: 2)
            }
            try Self.dropAllAside(database, scope: scope)
        }
    }

    /// After a reset: the page's instruments are confirmed; at the end of the feed, the rows the
    /// pull did not show are deleted (see `resetSynced`).
    private static func confirmAfterReset(_ database: Database, scope: VaultScope, changes: [RemoteChange],
                                          reachedEnd: Bool, now: Int64) throws {
        let waiting = try database.withStatement(
            "SELECT 1 FROM reset_unconfirmed WHERE merchant_id = ? AND customer_id = ? LIMIT 1") {
            try $0.bind(scope.merchantId, at: 1)
            try $0.bind(scope.customerId, at: 2)
            return try $0.step()
        }
        guard waiting else { return }
        for change in changes {
            try database.run("DELETE FROM reset_unconfirmed WHERE merchant_id = ? AND customer_id = ? AND token = ?") {
                try $0.bind(scope.merchantId, at: 1)
                try $0.bind(scope.customerId, at: 2)
                try $0.bind(change.token, at: 3)
            }
        }
        guard reachedEnd else { return }
        try database.run("""
            UPDATE payment_instrument SET deleted = 1, is_default = 0, updated = ?1 \
            WHERE merchant_id = ?2 AND customer_id = ?3 AND deleted = 0 \
            AND token IN (SELECT token FROM reset_unconfirmed WHERE merchant_id = ?2 AND customer_id = ?3)
            """) {
            try $0.bind(now, at: 1)
            try $0.bind(scope.merchantId, at: 2)
            try $0.bind(scope.customerId, at: 3)
        }
        try database.run("DELETE FROM reset_unconfirmed WHERE merchant_id = ? AND customer_id = ?") {
            try $0.bind(scope.merchantId, at: 1)
            try $0.bind(scope.customerId, at: 2)
        }
    }

    private static func storedCursor(_ database: Database, scope: VaultScope) throws -> String? {
        try database.withStatement("SELECT cursor FROM sync_state WHERE merchant_id = ? AND customer_id = ?") {
            try $0.bind(scope.merchantId, at: 1)
            try $0.bind(scope.customerId, at: 2)
            return try $0.step() ? $0.optionalString("cursor") : nil
        }
    }

    static func pendingTokens(_ database: Database, scope: VaultScope) throws -> Set<String> {
        try database.withStatement("SELECT DISTINCT token FROM outbox WHERE merchant_id = ? AND customer_id = ?") {
            try $0.bind(scope.merchantId, at: 1)
            try $0.bind(scope.customerId, at: 2)
            var tokens = Set<String>()
            while try $0.step() { tokens.insert(try $0.string("token")) }
            return tokens
        }
    }

    private static func defaultToken(_ database: Database, scope: VaultScope) throws -> String? {
        try database.withStatement("""
            SELECT token FROM payment_instrument \
            WHERE merchant_id = ? AND customer_id = ? AND is_default = 1 AND deleted = 0
            """) {
            try $0.bind(scope.merchantId, at: 1)
            try $0.bind(scope.customerId, at: 2)
            return try $0.step() ? $0.string("token") : nil
        }
    }

    /// True when `version` is newer than the local row (or there is no local row).
    private static func isNewer(_ database: Database, scope: VaultScope, token: String, version newVersion: Int64) throws -> Bool {
        guard let local = try version(database, scope: scope, token: token, includeDeleted: true) else { return true }
        return local < newVersion
    }
}
