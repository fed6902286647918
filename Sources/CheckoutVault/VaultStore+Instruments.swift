import CheckoutCore
import Foundation
import SQLiteKit

extension VaultStore {
    private static let listSQL = """
        SELECT \(InstrumentRow.columns) FROM payment_instrument \
        WHERE merchant_id = ? AND customer_id = ? AND deleted = 0 \
        ORDER BY is_default DESC, last_used DESC, token ASC
        """
    private static let listWithDeletedSQL = """
        SELECT \(InstrumentRow.columns) FROM payment_instrument \
        WHERE merchant_id = ? AND customer_id = ? \
        ORDER BY deleted ASC, is_default DESC, last_used DESC, token ASC
        """

    // MARK: Reading

    /// The customer's saved methods: default first, then most recently used (or saved), then by token.
    public func instruments(scope: VaultScope) throws -> [VaultedPaymentMethod] {
        try pool.read { database in
            try database.withStatement(Self.listSQL) { statement in
                try statement.bind(scope.merchantId, at: 1)
                try statement.bind(scope.customerId, at: 2)
                var methods: [VaultedPaymentMethod] = []
                while try statement.step() { methods.append(InstrumentRow.decodeMethod(statement)) }
                return methods
            }
        }
    }

    /// The customer's rows with their sync bookkeeping, in list order (tombstones last when included).
    public func storedInstruments(scope: VaultScope, includeDeleted: Bool = false) throws -> [StoredInstrument] {
        try pool.read { database in
            try database.withStatement(includeDeleted ? Self.listWithDeletedSQL : Self.listSQL) { statement in
                try statement.bind(scope.merchantId, at: 1)
                try statement.bind(scope.customerId, at: 2)
                var rows: [StoredInstrument] = []
                while try statement.step() { rows.append(InstrumentRow.decode(statement)) }
                return rows
            }
        }
    }

    /// One row by token, tombstone included (check `isDeleted`); nil when the store never had it.
    public func instrument(token: String, scope: VaultScope) throws -> StoredInstrument? {
        try pool.read { database in
            try database.withStatement("""
                SELECT \(InstrumentRow.columns) FROM payment_instrument \
                WHERE merchant_id = ? AND customer_id = ? AND token = ?
                """) { statement in
                try statement.bind(scope.merchantId, at: 1)
                try statement.bind(scope.customerId, at: 2)
                try statement.bind(token, at: 3)
                return try statement.step() ? InstrumentRow.decode(statement) : nil
            }
        }
    }

    /// Calls `body` for every row of every scope, tombstones included, in primary-key order.
    ///
    /// For exports, diagnostics and benchmarks: decodes by column index without building an array.
    public func forEachInstrument(_ body: (VaultScope, StoredInstrument) throws -> Void) throws {
        try pool.read { database in
            try database.withStatement("""
                SELECT merchant_id, customer_id, \(InstrumentRow.columns) FROM payment_instrument \
                ORDER BY merchant_id, customer_id, token
                """) { statement in
                while try statement.step() {
                    let scope = VaultScope(merchantId: statement.string(at: 0), customerId: statement.string(at: 1))
                    try body(scope, InstrumentRow.decode(statement, offset: 2))
                }
            }
        }
    }

    // MARK: Local changes (each writes its outbox row in the same transaction)

    /// Inserts or replaces one instrument and queues an `upsert` operation. Returns the operation id.
    ///
    /// Saving counts as using (the instrument moves to the top of its non-default peers); saving a
    /// default instrument makes it the only default. A soft-deleted instrument comes back.
    @discardableResult
    public func upsert(_ method: VaultedPaymentMethod, scope: VaultScope) throws -> String {
        try upsert([method], scope: scope)[0]
    }

    /// Inserts or replaces several instruments in one transaction, as if saved one after the
    /// other, queueing one `upsert` operation each. Returns the operation ids in order.
    @discardableResult
    public func upsert(_ methods: [VaultedPaymentMethod], scope: VaultScope) throws -> [String] {
        try Self.check(scope)
        var payloads: [String] = []
        payloads.reserveCapacity(methods.count)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for method in methods {
            try Self.check(token: method.id)
            try VaultDataGuard.check(method)
            try InstrumentRow.validate(method)
            // The server refuses these ops every time: never queue one.
            if let violation = InstrumentLimits.violation(of: method) {
                throw CheckoutError(.invalidPaymentData, violation.message)
            }
            let payload = String(decoding: try encoder.encode(method), as: UTF8.self)
            try VaultDataGuard.checkPayload(payload)
            payloads.append(payload)
        }
        let now = clock()
        let opIds = methods.map { _ in SafeIdentifier.random() }
        try pool.write { database in
            // The customer's latest last-used stamp, read once: inside this transaction only these
            // saves move it, so each next stamp is the previous one plus one (or the wall clock).
            var latest = try Self.latestTick(database, scope: scope)
            for (index, method) in methods.enumerated() {
                if method.isDefault {
                    try Self.clearDefault(database, scope: scope, except: method.id, now: now)
                }
                let base = try Self.version(database, scope: scope, token: method.id, includeDeleted: true) ?? 0
                let tick = max(now, latest + 1)
                latest = tick
                try database.run(InstrumentRow.localUpsert) {
                    try InstrumentRow.bind(method, scope: scope, version: 0, lastUsed: tick, updated: now, to: $0)
                }
                try Self.enqueue(database, id: opIds[index], scope: scope, kind: .upsert, token: method.id,
                                 payload: payloads[index], baseVersion: base, now: now)
            }
        }
        return opIds
    }

    /// Soft-deletes an instrument and queues a `delete` operation. Returns false (and queues
    /// nothing) when the customer has no such live instrument.
    @discardableResult
    public func delete(token: String, scope: VaultScope) throws -> Bool {
        try Self.check(scope)
        try Self.check(token: token)
        let now = clock()
        let opId = SafeIdentifier.random()
        return try pool.write { database in
            guard let base = try Self.version(database, scope: scope, token: token, includeDeleted: false) else {
                return false
            }
            try database.run("""
                UPDATE payment_instrument SET deleted = 1, is_default = 0, updated = ? \
                WHERE merchant_id = ? AND customer_id = ? AND token = ?
                """) {
                try $0.bind(now, at: 1)
                try $0.bind(scope.merchantId, at: 2)
                try $0.bind(scope.customerId, at: 3)
                try $0.bind(token, at: 4)
            }
            try Self.enqueue(database, id: opId, scope: scope, kind: .delete, token: token, payload: nil,
                             baseVersion: base, now: now)
            return true
        }
    }

    /// Makes `token` the customer's only default and queues a `setDefault` operation (nothing is
    /// queued when it already is the default). Throws `vaultFailure` for an unknown instrument.
    public func setDefault(token: String, scope: VaultScope) throws {
        try Self.check(scope)
        try Self.check(token: token)
        let now = clock()
        let opId = SafeIdentifier.random()
        try pool.write { database in
            let current = try database.withStatement("""
                SELECT version, is_default FROM payment_instrument \
                WHERE merchant_id = ? AND customer_id = ? AND token = ? AND deleted = 0
                """) { statement -> (version: Int64, isDefault: Bool)? in
                try statement.bind(scope.merchantId, at: 1)
                try statement.bind(scope.customerId, at: 2)
                try statement.bind(token, at: 3)
                return try statement.step() ? (statement.int64(at: 0), statement.bool(at: 1)) : nil
            }
            guard let current else {
                throw CheckoutError(.vaultFailure, "no saved payment method \(VaultTokenMask.mask(token)) for this customer")
            }
            guard !current.isDefault else { return }
            try Self.clearDefault(database, scope: scope, except: token, now: now)
            try database.run("""
                UPDATE payment_instrument SET is_default = 1, updated = ? \
                WHERE merchant_id = ? AND customer_id = ? AND token = ?
                """) {
                try $0.bind(now, at: 1)
                try $0.bind(scope.merchantId, at: 2)
                try $0.bind(scope.customerId, at: 3)
                try $0.bind(token, at: 4)
            }
            try Self.enqueue(database, id: opId, scope: scope, kind: .setDefault, token: token, payload: nil,
                             baseVersion: current.version, now: now)
        }
    }

    /// Records that the instrument was just used, moving it up the list. Unknown tokens are ignored.
    ///
    /// Last-used order is this device's own ordering, so it is not queued for sync.
    public func markUsed(token: String, scope: VaultScope) throws {
        try Self.check(scope)
        try Self.check(token: token)
        let now = clock()
        try pool.write { database in
            let tick = try Self.nextTick(database, scope: scope, now: now)
            try database.run("""
                UPDATE payment_instrument SET last_used = ? \
                WHERE merchant_id = ? AND customer_id = ? AND token = ? AND deleted = 0
                """) {
                try $0.bind(tick, at: 1)
                try $0.bind(scope.merchantId, at: 2)
                try $0.bind(scope.customerId, at: 3)
                try $0.bind(token, at: 4)
            }
        }
    }

    // MARK: Helpers shared with the sync half

    /// The row's server version, nil when absent (or deleted, unless `includeDeleted`).
    static func version(_ database: Database, scope: VaultScope, token: String, includeDeleted: Bool) throws -> Int64? {
        let sql = includeDeleted
            ? "SELECT version FROM payment_instrument WHERE merchant_id = ? AND customer_id = ? AND token = ?"
            : "SELECT version FROM payment_instrument WHERE merchant_id = ? AND customer_id = ? AND token = ? AND deleted = 0"
        return try database.withStatement(sql) { statement in
            try statement.bind(scope.merchantId, at: 1)
            try statement.bind(scope.customerId, at: 2)
            try statement.bind(token, at: 3)
            return try statement.step() ? statement.int64(at: 0) : nil
        }
    }

    /// Clears the default flag of every other live row of the customer.
    static func clearDefault(_ database: Database, scope: VaultScope, except token: String, now: Int64) throws {
        try database.run("""
            UPDATE payment_instrument SET is_default = 0, updated = ? \
            WHERE merchant_id = ? AND customer_id = ? AND is_default = 1 AND token <> ?
            """) {
            try $0.bind(now, at: 1)
            try $0.bind(scope.merchantId, at: 2)
            try $0.bind(scope.customerId, at: 3)
            try $0.bind(token, at: 4)
        }
    }

    /// A last-used stamp later than every other of the customer: the wall clock, or one more.
    static func nextTick(_ database: Database, scope: VaultScope, now: Int64) throws -> Int64 {
        max(now, try latestTick(database, scope: scope) + 1)
    }

    /// The customer's highest last-used stamp (0 when none).
    static func latestTick(_ database: Database, scope: VaultScope) throws -> Int64 {
        try database.withStatement(
            "SELECT max(last_used) FROM payment_instrument WHERE merchant_id = ? AND customer_id = ?") { statement in
            try statement.bind(scope.merchantId, at: 1)
            try statement.bind(scope.customerId, at: 2)
            return try statement.step() ? statement.int64(at: 0) : 0
        }
    }

    /// Writes an outbox row (inside the caller's transaction).
    static func enqueue(_ database: Database, id: String, scope: VaultScope, kind: OutboxOperation.Kind, token: String,
                        payload: String?, baseVersion: Int64, now: Int64) throws {
        try database.run("""
            INSERT INTO outbox (op_id, merchant_id, customer_id, kind, token, payload, base_version, created) \
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """) {
            try $0.bind(id, at: 1)
            try $0.bind(scope.merchantId, at: 2)
            try $0.bind(scope.customerId, at: 3)
            try $0.bind(kind.rawValue, at: 4)
            try $0.bind(token, at: 5)
            try $0.bind(payload, at: 6)
            try $0.bind(baseVersion, at: 7)
            try $0.bind(now, at: 8)
        }
    }
}
