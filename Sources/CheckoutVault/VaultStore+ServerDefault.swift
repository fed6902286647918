import CheckoutCore
internal import SQLiteKit

/// The default the server holds, as this device last learned it, and the rule that makes the
/// cache show it: once a customer has nothing queued, the local default is the server's.
///
/// Why: two devices that set different defaults offline both push; the server keeps the last one
/// (last writer wins). A device whose `setDefault` the server refuses (the card was deleted
/// meanwhile) would otherwise keep showing its own choice, or none, while the server holds
/// another: the pulled default was set aside while the local one was queued, and the feed never
/// sends it again. The store therefore tracks the server's default (`sync_state.server_default`)
/// and adopts it whenever the outbox of the customer is empty.
///
/// Only the feed moves this knowledge: it is the one order in which all devices' changes are
/// seen. A push's answer cannot: a replayed answer ("your setDefault of B was applied") may be
/// older than a default on another card that the feed has already shown, and nothing in the
/// answer says so. An applied push instead marks the knowledge stale (it predates the device's
/// own writes), and nothing is adopted until a pull has read the feed to its end again.
extension VaultStore {
    /// What this device knows of the server's default for one customer.
    struct ServerDefault: Equatable {
        /// True once the device has seen enough of the feed to know it (a pull from the start, a
        /// pulled default, or an applied push that set it). Stores migrated from before the
        /// column existed start unknown, so they never clear a default on a guess.
        var known: Bool
        /// The token of the server's default instrument; nil when the server holds none.
        var token: String?
        /// True from a push that applied ops until a pull reads the feed to its end.
        var stale = false

        /// Follows one change of the feed (in feed order).
        mutating func follow(_ change: RemoteChange) {
            if let method = change.method, method.isDefault {
                token = change.token
                known = true
            } else if token == change.token {
                token = nil
            }
        }
    }

    /// The server's default as this device knows it: nil when unknown, else the token (or
    /// `.some(nil)` when the server holds no default).
    public func knownServerDefault(scope: VaultScope) async throws -> String?? {
        try await perform(Self.knownServerDefaultWork(scope: scope))
    }

    static func knownServerDefaultWork(scope: VaultScope) -> StoreWork<String??> {
        .read { database in
            let value = try readServerDefault(database, scope: scope)
            return value.known ? .some(value.token) : nil
        }
    }

    static func readServerDefault(_ database: Database, scope: VaultScope) throws -> ServerDefault {
        try database.withStatement("""
            SELECT server_default, server_default_known, server_default_stale FROM sync_state \
            WHERE merchant_id = ? AND customer_id = ?
            """) {
            try $0.bind(scope.merchantId, at: 1)
            try $0.bind(scope.customerId, at: 2)
            guard try $0.step() else { return ServerDefault(known: false, token: nil) }
            return try ServerDefault(known: $0.bool("server_default_known"), token: $0.optionalString("server_default"),
                                     stale: $0.bool("server_default_stale"))
        }
    }

    static func writeServerDefault(_ database: Database, scope: VaultScope, _ value: ServerDefault) throws {
        try database.run("""
            INSERT INTO sync_state (merchant_id, customer_id, server_default, server_default_known, server_default_stale) \
            VALUES (?, ?, ?, ?, ?) \
            ON CONFLICT (merchant_id, customer_id) DO UPDATE SET server_default = excluded.server_default, \
            server_default_known = excluded.server_default_known, server_default_stale = excluded.server_default_stale
            """) {
            try $0.bind(scope.merchantId, at: 1)
            try $0.bind(scope.customerId, at: 2)
            try $0.bind(value.token, at: 3)
            try $0.bind(value.known, at: 4)
            try $0.bind(value.stale, at: 5)
        }
    }

    /// When the customer has nothing queued and the server's default is known and not stale,
    /// makes the local default the server's (clearing it when the server holds none, or when its
    /// instrument is not in the cache). Runs inside the caller's transaction.
    static func adoptServerDefaultIfSettled(_ database: Database, scope: VaultScope, now: Int64) throws {
        let queued = try database.withStatement("SELECT 1 FROM outbox WHERE merchant_id = ? AND customer_id = ? LIMIT 1") {
            try $0.bind(scope.merchantId, at: 1)
            try $0.bind(scope.customerId, at: 2)
            return try $0.step()
        }
        let server = try readServerDefault(database, scope: scope)
        guard !queued, server.known, !server.stale else { return }
        try database.run("""
            UPDATE payment_instrument INDEXED BY payment_instrument_defaults SET is_default = 0, updated = ? \
            WHERE merchant_id = ? AND customer_id = ? AND is_default = 1 AND token IS NOT ?
            """) {
            try $0.bind(now, at: 1)
            try $0.bind(scope.merchantId, at: 2)
            try $0.bind(scope.customerId, at: 3)
            try $0.bind(server.token, at: 4)
        }
        guard let token = server.token else { return }
        try database.run("""
            UPDATE payment_instrument SET is_default = 1, updated = ? \
            WHERE merchant_id = ? AND customer_id = ? AND token = ? AND deleted = 0 AND is_default = 0
            """) {
            try $0.bind(now, at: 1)
            try $0.bind(scope.merchantId, at: 2)
            try $0.bind(scope.customerId, at: 3)
            try $0.bind(token, at: 4)
        }
    }
}
