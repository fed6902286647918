import CheckoutJSON
import CheckoutCore
import Foundation
internal import SQLiteKit

extension VaultStore {
    /// The oldest `limit` queued operations of the customer, in the order they were made.
    public func pendingOps(scope: VaultScope, limit: Int = 100) async throws -> [OutboxOperation] {
        try await perform(Self.pendingOpsWork(scope: scope, limit: limit))
    }

    static func pendingOpsWork(scope: VaultScope, limit: Int) -> StoreWork<[OutboxOperation]> {
        .read { database in try decodeOps(try pendingRows(database, scope: scope, limit: limit), scope: scope) }
    }

    private typealias PendingRow = (id: String, kind: String, token: String, payload: String?, base: Int64, attempts: Int,
                                    lastError: String?, created: Int64)

    private static func pendingRows(_ database: Database, scope: VaultScope, limit: Int) throws -> [PendingRow] {
        try database.withStatement("""
            SELECT op_id, kind, token, payload, base_version, attempts, last_error, created FROM outbox \
            WHERE merchant_id = ? AND customer_id = ? ORDER BY seq LIMIT ?
            """) { statement in
            try statement.bind(scope.merchantId, at: 1)
            try statement.bind(scope.customerId, at: 2)
            try statement.bind(max(0, limit), at: 3)
            var rows: [PendingRow] = []
            while try statement.step() {
                rows.append(try (statement.string("op_id"), statement.string("kind"), statement.string("token"),
                                 statement.optionalString("payload"), statement.int64("base_version"), statement.int("attempts"),
                                 statement.optionalString("last_error"), statement.int64("created")))
            }
            return rows
        }
    }

    private static func decodeOps(_ rows: [PendingRow], scope: VaultScope) throws -> [OutboxOperation] {
        return try rows.map { row in
            guard let kind = OutboxOperation.Kind(rawValue: row.kind) else {
                throw CheckoutError(.vaultFailure, "outbox operation \(row.id) has an unknown kind")
            }
            var method: VaultedPaymentMethod?
            if let payload = row.payload {
                do {
                    let data = Data(payload.utf8)
                    // Fast path: the strict hand-written reader; the Codable bridge for anything it does not take.
                    if let fast = try? WireJSON.scan(data, JSONScanner.vaultedMethod) {
                        method = fast
                    } else {
                        method = try JSONReader.decode(VaultedPaymentMethod.self, from: data)
                    }
                } catch {
                    throw CheckoutError(.vaultFailure, "outbox operation \(row.id) has an unreadable payload")
                }
            }
            return OutboxOperation(id: row.id, scope: scope, kind: kind, token: row.token, method: method,
                                   baseVersion: row.base, attempts: row.attempts, lastError: row.lastError,
                                   createdAt: row.created)
        }
    }

    /// How many operations of the customer wait to be pushed.
    public func pendingCount(scope: VaultScope) async throws -> Int {
        try await perform(Self.pendingCountWork(scope: scope))
    }

    private static func pendingCount(_ database: Database, scope: VaultScope) throws -> Int {
        try database.withStatement("SELECT count(*) AS n FROM outbox WHERE merchant_id = ? AND customer_id = ?") {
            try $0.bind(scope.merchantId, at: 1)
            try $0.bind(scope.customerId, at: 2)
            return try $0.step() ? $0.int("n") : 0
        }
    }

    static func pendingCountWork(scope: VaultScope) -> StoreWork<Int> {
        .read { database in try pendingCount(database, scope: scope) }
    }

    /// How many operations of these scopes wait, read on one connection.
    static func pendingCountWork(scopes: [VaultScope]) -> StoreWork<Int> {
        .read { database in try scopes.reduce(0) { $0 + (try pendingCount(database, scope: $1)) } }
    }

    /// How many operations wait over every scope of the file but `excluded`, read on one connection.
    static func pendingCountWork(allScopesExcept excluded: [VaultScope]) -> StoreWork<Int> {
        .read { database in
            let all = try database.withStatement("SELECT count(*) AS n FROM outbox") { try $0.step() ? $0.int("n") : 0 }
            return try excluded.reduce(all) { $0 - (try pendingCount(database, scope: $1)) }
        }
    }

    /// Every scope with queued operations (for an engine syncing all customers of the file).
    public func pendingScopes() async throws -> [VaultScope] {
        try await perform(Self.pendingScopesWork())
    }

    static func pendingScopesWork() -> StoreWork<[VaultScope]> {
        .read { database in
            try database.withStatement(
                "SELECT DISTINCT merchant_id, customer_id FROM outbox ORDER BY merchant_id, customer_id") { statement in
                var scopes: [VaultScope] = []
                while try statement.step() {
                    scopes.append(try VaultScope(merchantId: statement.string("merchant_id"), customerId: statement.string("customer_id")))
                }
                return scopes
            }
        }
    }

    /// Settles pushed operations in one transaction.
    ///
    /// An applied operation leaves the queue, its instrument takes the server's `newVersion`, and
    /// later queued operations on the same instrument are rebased onto that version. A rejected
    /// operation leaves the queue too (it must never block it); when it was the creation of an
    /// instrument the server never accepted (version 0, nothing else queued), the local row is
    /// removed so the cache matches the server. Unknown ids (already settled) are ignored.
    ///
    /// An answer older than what the device already knows of its instrument (a replay of an
    /// answer lost earlier, after the feed showed a newer version) moves nothing; an instrument
    /// with nothing queued any more takes the newer server state the pull set aside
    /// (`VaultStore+PulledAside`). Answers never move what the device knows of the server's
    /// default; an applied one marks it stale until the next complete pull
    /// (`VaultStore+ServerDefault`).
    public func completeOps(applied: [(opId: String, newVersion: Int64)] = [],
                            rejected: [(opId: String, reason: String)] = []) async throws {
        try await perform(completeOpsWork(applied: applied.map { OpSettlement(opId: $0.opId, newVersion: $0.newVersion) },
                                          rejected: rejected.map(\.opId)))
    }

    /// An applied op and the version the server gave its instrument.
    struct OpSettlement: Sendable {
        var opId: String
        var newVersion: Int64
    }

    func completeOpsWork(applied: [OpSettlement], rejected: [String]) -> StoreWork<Void> {
        guard !applied.isEmpty || !rejected.isEmpty else { return .done(()) }
        let now = clock.nowMillis
        return .write { database in
            var scopes: [VaultScope] = []
            // The settled instruments of each scope, in the order their ops settled.
            var settled: [VaultScope: [String]] = [:]
            // Scopes whose server default, as the device knows it, now predates the device's own writes.
            var wrote = Set<VaultScope>()
            func note(_ op: TakenOp) -> VaultScope {
                let scope = VaultScope(merchantId: op.merchantId, customerId: op.customerId)
                if !scopes.contains(scope) { scopes.append(scope) }
                if settled[scope]?.contains(op.token) != true { settled[scope, default: []].append(op.token) }
                return scope
            }
            for settlement in applied {
                let newVersion = settlement.newVersion
                guard let op = try Self.takeOp(database, id: settlement.opId) else { continue }
                let scope = note(op)
                // An answer the feed has already overtaken (a replay after a pull showed a newer
                // version of the instrument) is not news; any other is a write the feed has yet to show.
                if newVersion >= (try Self.knownVersion(database, scope: scope, token: op.token) ?? 0) { wrote.insert(scope) }
                // A set-aside change older than the answer is superseded by it (a newer one, as
                // after a replayed answer, is kept and wins when the queue empties).
                try Self.dropAside(database, scope: scope, token: op.token, olderThan: newVersion)
                // The row's version says whose fields it holds: raise it only when its fields are the
                // server's at `newVersion`. An upsert's are (the server requires its base version and
                // stores what was sent); a setDefault answer carries none: the server's fields are its
                // own at the version before, which the row holds only when no change came between. Else
                // the row keeps its older version, so the feed's state (set aside, or still to come)
                // replaces it.
                let isSetDefault = op.kind == OutboxOperation.Kind.setDefault.rawValue
                if try !isSetDefault || newVersion <= (Self.version(database, scope: scope, token: op.token, includeDeleted: true) ?? 0) + 1 {
                    try database.run("""
                        UPDATE payment_instrument SET version = max(version, ?) \
                        WHERE merchant_id = ? AND customer_id = ? AND token = ?
                        """) {
                        try $0.bind(newVersion, at: 1)
                        try Self.bind(op, to: $0, from: 2)
                    }
                }
                try database.run("""
                    UPDATE outbox SET base_version = ? \
                    WHERE merchant_id = ? AND customer_id = ? AND token = ? AND seq > ?
                    """) {
                    try $0.bind(newVersion, at: 1)
                    try Self.bind(op, to: $0, from: 2)
                    try $0.bind(op.seq, at: 5)
                }
            }
            var refused: [TakenOp] = []
            for opId in rejected {
                guard let op = try Self.takeOp(database, id: opId) else { continue }
                _ = note(op)
                refused.append(op)
            }
            for scope in scopes where wrote.contains(scope) {
                var known = try Self.readServerDefault(database, scope: scope)
                if !known.stale {
                    known.stale = true
                    try Self.writeServerDefault(database, scope: scope, known)
                }
            }
            // Instruments with nothing queued any more take the server's newer state the pull set aside.
            for scope in scopes { try Self.settleAside(database, scope: scope, tokens: settled[scope] ?? [], now: now) }
            // A refused creation the server never accepted (version 0, nothing else queued) leaves the cache.
            for op in refused {
                try database.run("""
                    DELETE FROM payment_instrument \
                    WHERE merchant_id = ?1 AND customer_id = ?2 AND token = ?3 AND version = 0 \
                    AND NOT EXISTS (SELECT 1 FROM outbox WHERE merchant_id = ?1 AND customer_id = ?2 AND token = ?3)
                    """) {
                    try Self.bind(op, to: $0, from: 1)
                }
            }
            // A customer whose queue is now empty shows the server's default (a refused setDefault
            // must not leave the device on its own choice), unless the device's own writes just
            // made what it knows of that default stale: then the next complete pull decides.
            for scope in scopes { try Self.adoptServerDefaultIfSettled(database, scope: scope, now: now) }
        }
    }

    /// Records a retryable push failure: one more attempt, and the error (scrubbed of card numbers).
    public func recordOpFailure(opId: String, error: String) async throws {
        try await perform(Self.recordOpFailureWork(opId: opId, error: error))
    }

    static func recordOpFailureWork(opId: String, error: String) throws -> StoreWork<Void> {
        let note = PaymentDataRedactor.redact(error)
        try VaultDataGuard.checkText(note, field: "the error note")
        return .write { database in
            try database.run("UPDATE outbox SET attempts = attempts + 1, last_error = ? WHERE op_id = ?") {
                try $0.bind(note, at: 1)
                try $0.bind(opId, at: 2)
            }
        }
    }

    /// The settled operation's key, removed from the queue.
    private struct TakenOp {
        var merchantId: String
        var customerId: String
        var token: String
        var seq: Int64
        var kind: String
    }

    private static func takeOp(_ database: Database, id: String) throws -> TakenOp? {
        // One statement: the row leaves the queue and tells what it was.
        try database.withStatement("""
            DELETE FROM outbox WHERE op_id = ? RETURNING merchant_id, customer_id, token, seq, kind
            """) {
            try $0.bind(id, at: 1)
            guard try $0.step() else { return nil }
            let op = try TakenOp(merchantId: $0.string("merchant_id"), customerId: $0.string("customer_id"),
                                 token: $0.string("token"), seq: $0.int64("seq"), kind: $0.string("kind"))
            while try $0.step() {}
            return op
        }
    }

    private static func bind(_ op: TakenOp, to statement: Statement, from index: Int32) throws {
        try statement.bind(op.merchantId, at: index)
        try statement.bind(op.customerId, at: index + 1)
        try statement.bind(op.token, at: index + 2)
    }
}
