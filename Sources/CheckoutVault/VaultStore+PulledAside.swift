import CheckoutCore
import Foundation
internal import SQLiteKit

/// What the device knows of the server only moves forward.
///
/// The pull leaves a row with queued local operations as it is (the push settles it) and the
/// cursor moves past the change it did not apply. That change is the newest server state of the
/// instrument the device has seen, so it is kept here (`pulled_aside`) until the instrument's
/// queue is empty. Then:
/// - an answer older than it (a replayed "applied at version 5" after the feed showed version 6,
///   because the answer of the first attempt was lost) moves nothing: neither the row's version
///   nor the server's default as the device knows it;
/// - the row takes the kept state when its operations settle and the kept state is not older
///   than what their answers said (the server went on after them, or an answer carried no
///   fields), or when they were refused.
///
/// Without it a device whose answer was lost showed its own older state, or a default the server
/// had replaced, for good: the feed never sends a change twice.
extension VaultStore {
    /// The highest server version of `token` this device knows: the row's (answers and applied
    /// changes, tombstones included) or a change set aside, whichever is higher; nil when neither exists.
    static func knownVersion(_ database: Database, scope: VaultScope, token: String) throws -> Int64? {
        try database.withStatement("""
            SELECT max(v) AS newest FROM (SELECT version AS v FROM payment_instrument \
            WHERE merchant_id = ?1 AND customer_id = ?2 AND token = ?3 \
            UNION ALL SELECT version FROM pulled_aside WHERE merchant_id = ?1 AND customer_id = ?2 AND token = ?3)
            """) {
            try $0.bind(scope.merchantId, at: 1)
            try $0.bind(scope.customerId, at: 2)
            try $0.bind(token, at: 3)
            return try $0.step() ? $0.optionalInt64("newest") : nil
        }
    }

    /// Keeps a pulled change of an instrument with queued operations, unless a newer one is kept.
    static func setAside(_ database: Database, scope: VaultScope, change: RemoteChange, method: VaultedPaymentMethod) throws {
        var bytes: [UInt8] = []
        WireJSON.appendMethod(method, to: &bytes)
        try database.run("""
            INSERT INTO pulled_aside (merchant_id, customer_id, token, version, payload) VALUES (?, ?, ?, ?, ?) \
            ON CONFLICT (merchant_id, customer_id, token) DO UPDATE SET version = excluded.version, \
            payload = excluded.payload WHERE excluded.version > pulled_aside.version
            """) {
            try $0.bind(scope.merchantId, at: 1)
            try $0.bind(scope.customerId, at: 2)
            try $0.bind(change.token, at: 3)
            try $0.bind(change.version, at: 4)
            try $0.bind(String(decoding: bytes, as: UTF8.self), at: 5)
        }
    }

    /// Forgets the kept change of `token` when it is older than `version` (an answer at `version`
    /// supersedes it); every kept change when `version` is nil (a tombstone).
    static func dropAside(_ database: Database, scope: VaultScope, token: String, olderThan version: Int64?) throws {
        try database.run("""
            DELETE FROM pulled_aside WHERE merchant_id = ? AND customer_id = ? AND token = ? AND version < ?
            """) {
            try $0.bind(scope.merchantId, at: 1)
            try $0.bind(scope.customerId, at: 2)
            try $0.bind(token, at: 3)
            try $0.bind(version ?? .max, at: 4)
        }
    }

    /// Forgets every kept change of the customer (a reset pulls the feed from the start again).
    static func dropAllAside(_ database: Database, scope: VaultScope) throws {
        try database.run("DELETE FROM pulled_aside WHERE merchant_id = ? AND customer_id = ?") {
            try $0.bind(scope.merchantId, at: 1)
            try $0.bind(scope.customerId, at: 2)
        }
    }

    /// For each of `tokens` with nothing queued any more: removes its kept change and, when it is
    /// not older than the row, applies it as the pull would have. At the same version the kept
    /// change wins: it is the server's own state, while the row's fields may be the device's guess
    /// (an applied `setDefault` made the row default on top of the fields it had). Runs inside the
    /// caller's transaction.
    static func settleAside(_ database: Database, scope: VaultScope, tokens: [String], now: Int64) throws {
        guard !tokens.isEmpty else { return }
        let pending = try pendingTokens(database, scope: scope)
        for token in tokens where !pending.contains(token) {
            guard let kept = try takeAside(database, scope: scope, token: token) else { continue }
            let replace = try database.cachedStatement(InstrumentRow.remoteReplace)
            defer { replace.reset() }
            try applyUpsert(database, scope: scope, method: kept.method, version: kept.version, pending: pending,
                            statement: replace, replacingEqual: true, now: now)
        }
    }

    private static func takeAside(_ database: Database, scope: VaultScope,
                                  token: String) throws -> (version: Int64, method: VaultedPaymentMethod)? {
        let row = try database.withStatement("""
            DELETE FROM pulled_aside WHERE merchant_id = ? AND customer_id = ? AND token = ? RETURNING version, payload
            """) { statement -> (Int64, String)? in
            try statement.bind(scope.merchantId, at: 1)
            try statement.bind(scope.customerId, at: 2)
            try statement.bind(token, at: 3)
            guard try statement.step() else { return nil }
            let row = try (statement.int64("version"), statement.string("payload"))
            while try statement.step() {}
            return row
        }
        guard let (version, payload) = row else { return nil }
        guard let method = try? WireJSON.scan(Data(payload.utf8), JSONScanner.vaultedMethod), method.id == token else {
            throw CheckoutError(.vaultFailure, "a set-aside change of \(VaultTokenMask.mask(token)) is unreadable")
        }
        return (version, method)
    }
}
