import CheckoutCore
import Foundation
internal import SQLiteKit

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
    public func instruments(scope: VaultScope) async throws -> [VaultedPaymentMethod] {
        try await perform(Self.instrumentsWork(scope: scope))
    }

    static func instrumentsWork(scope: VaultScope) -> StoreWork<[VaultedPaymentMethod]> {
        .read { database in
            try database.withStatement(Self.listSQL) { statement in
                try statement.bind(scope.merchantId, at: 1)
                try statement.bind(scope.customerId, at: 2)
                var methods: [VaultedPaymentMethod] = []
                let columns = try InstrumentRow.Columns(statement)
                while try statement.step() { methods.append(InstrumentRow.decodeMethod(statement, columns)) }
                return methods
            }
        }
    }

    /// The customer's rows with their sync bookkeeping, in list order (tombstones last when included).
    public func storedInstruments(scope: VaultScope, includeDeleted: Bool = false) async throws -> [StoredInstrument] {
        try await perform(Self.storedInstrumentsWork(scope: scope, includeDeleted: includeDeleted))
    }

    static func storedInstrumentsWork(scope: VaultScope, includeDeleted: Bool) -> StoreWork<[StoredInstrument]> {
        .read { database in
            try database.withStatement(includeDeleted ? Self.listWithDeletedSQL : Self.listSQL) { statement in
                try statement.bind(scope.merchantId, at: 1)
                try statement.bind(scope.customerId, at: 2)
                var rows: [StoredInstrument] = []
                let columns = try InstrumentRow.Columns(statement)
                while try statement.step() { rows.append(InstrumentRow.decode(statement, columns)) }
                return rows
            }
        }
    }

    /// One row by token, tombstone included (check `isDeleted`); nil when the store never had it.
    public func instrument(token: String, scope: VaultScope) async throws -> StoredInstrument? {
        try await perform(Self.instrumentWork(token: token, scope: scope))
    }

    static func instrumentWork(token: String, scope: VaultScope) -> StoreWork<StoredInstrument?> {
        .read { database in
            try database.withStatement("""
                SELECT \(InstrumentRow.columns) FROM payment_instrument \
                WHERE merchant_id = ? AND customer_id = ? AND token = ?
                """) { statement in
                try statement.bind(scope.merchantId, at: 1)
                try statement.bind(scope.customerId, at: 2)
                try statement.bind(token, at: 3)
                return try statement.step() ? InstrumentRow.decode(statement, InstrumentRow.Columns(statement)) : nil
            }
        }
    }

    /// Calls `body` for every row of every scope, tombstones included, in primary-key order, on
    /// the calling thread (`blocking.forEachInstrument`).
    func forEachInstrumentRow(_ body: (VaultScope, StoredInstrument) throws -> Void) throws {
        try read { database in
            try database.withStatement("""
                SELECT merchant_id, customer_id, \(InstrumentRow.columns) FROM payment_instrument \
                ORDER BY merchant_id, customer_id, token
                """) { statement in
                let columns = try InstrumentRow.Columns(statement)
                let merchant = try statement.columnIndex("merchant_id"), customer = try statement.columnIndex("customer_id")
                while try statement.step() {
                    let scope = VaultScope(merchantId: statement.string(at: merchant), customerId: statement.string(at: customer))
                    try body(scope, InstrumentRow.decode(statement, columns))
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
    public func upsert(_ method: VaultedPaymentMethod, scope: VaultScope) async throws -> String {
        try await upsert([method], scope: scope)[0]
    }

    /// Inserts or replaces several instruments in one transaction, as if saved one after the
    /// other, queueing one `upsert` operation each. Returns the operation ids in order.
    ///
    /// The SQL work does not grow with the customer's number of saved methods or the store's size:
    /// per call one primary-key upsert of the customer's last-used counter, per method the row's
    /// upsert (which returns the base version) and its outbox row.
    @discardableResult
    public func upsert(_ methods: [VaultedPaymentMethod], scope: VaultScope) async throws -> [String] {
        try await perform(upsertWork(methods, scope: scope))
    }

    /// Checks the methods (nothing is written when one fails), then the save's transaction.
    func upsertWork(_ methods: [VaultedPaymentMethod], scope: VaultScope) throws -> StoreWork<[String]> {
        try Self.check(scope)
        var payloads: [String] = []
        payloads.reserveCapacity(methods.count)
        var bytes: [UInt8] = []
        for method in methods {
            try Self.check(token: method.id)
            try VaultDataGuard.check(method)
            try InstrumentRow.validate(method)
            // The server refuses these ops every time: never queue one.
            if let violation = InstrumentLimits.violation(of: method) {
                throw CheckoutError(.invalidPaymentData, violation.message)
            }
            // The wire's own writer (the shape of the synthesized `Encodable`). Its keys are the
            // fixed field names, none naming a security code, so only the text needs the check.
            bytes.removeAll(keepingCapacity: true)
            WireJSON.appendMethod(method, to: &bytes)
            let payload = String(decoding: bytes, as: UTF8.self)
            try VaultDataGuard.checkText(payload, field: "the payload")
            payloads.append(payload)
        }
        guard !methods.isEmpty else { return .done([]) }
        let now = clock.nowMillis
        let opIds = methods.map { _ in SafeIdentifier.random() }
        return .write { [payloads] database in
            // Each save is stamped one later than the previous: the customer's counter hands out
            // the whole run at once.
            var tick = try Self.reserveTicks(database, scope: scope, count: methods.count, now: now)
            // The two statements of every method, taken from the cache once per call (reset there)
            // and rewound after each use; the defer rewinds them when a step throws.
            let row = try database.cachedStatement(InstrumentRow.localUpsertReturningVersion)
            let outbox = try database.cachedStatement(Self.enqueueSQL)
            defer {
                row.reset()
                outbox.reset()
            }
            for (index, method) in methods.enumerated() {
                if method.isDefault {
                    try Self.clearDefault(database, scope: scope, except: method.id, now: now)
                }
                // The row's server version before this save (tombstones included; 0 for a new row):
                // the local upsert never changes it, so the upsert itself returns it.
                try InstrumentRow.bind(method, scope: scope, version: 0, lastUsed: tick, updated: now, to: row)
                guard try row.step() else { throw CheckoutError(.vaultFailure, "the saved method's row was not written") }
                let base = try row.int64("version")
                row.reset()
                tick += 1
                try Self.bindEnqueue(outbox, id: opIds[index], scope: scope, kind: .upsert, token: method.id,
                                     payload: payloads[index], baseVersion: base, now: now)
                try outbox.run()
                outbox.reset()
            }
            return opIds
        }
    }

    /// Soft-deletes an instrument and queues a `delete` operation. Returns false (and queues
    /// nothing) when the customer has no such live instrument.
    @discardableResult
    public func delete(token: String, scope: VaultScope) async throws -> Bool {
        try await perform(deleteWork(token: token, scope: scope))
    }

    func deleteWork(token: String, scope: VaultScope) throws -> StoreWork<Bool> {
        try Self.check(scope)
        try Self.check(token: token)
        let now = clock.nowMillis
        let opId = SafeIdentifier.random()
        return .write { database in
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
    public func setDefault(token: String, scope: VaultScope) async throws {
        try await perform(setDefaultWork(token: token, scope: scope))
    }

    func setDefaultWork(token: String, scope: VaultScope) throws -> StoreWork<Void> {
        try Self.check(scope)
        try Self.check(token: token)
        let now = clock.nowMillis
        let opId = SafeIdentifier.random()
        return .write { database in
            let current = try database.withStatement("""
                SELECT version, is_default FROM payment_instrument \
                WHERE merchant_id = ? AND customer_id = ? AND token = ? AND deleted = 0
                """) { statement -> (version: Int64, isDefault: Bool)? in
                try statement.bind(scope.merchantId, at: 1)
                try statement.bind(scope.customerId, at: 2)
                try statement.bind(token, at: 3)
                return try statement.step() ? (statement.int64("version"), statement.bool("is_default")) : nil
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
    public func markUsed(token: String, scope: VaultScope) async throws {
        try await perform(markUsedWork(token: token, scope: scope))
    }

    func markUsedWork(token: String, scope: VaultScope) throws -> StoreWork<Void> {
        try Self.check(scope)
        try Self.check(token: token)
        let now = clock.nowMillis
        return .write { database in
            // An unknown token takes no stamp (the counter only moves for a row that moves).
            guard try Self.version(database, scope: scope, token: token, includeDeleted: false) != nil else { return }
            let tick = try Self.reserveTicks(database, scope: scope, count: 1, now: now)
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
            return try statement.step() ? statement.int64("version") : nil
        }
    }

    /// Clears the default flag of every other live row of the customer.
    static func clearDefault(_ database: Database, scope: VaultScope, except token: String, now: Int64) throws {
        try database.run("""
            UPDATE payment_instrument INDEXED BY payment_instrument_defaults SET is_default = 0, updated = ? \
            WHERE merchant_id = ? AND customer_id = ? AND is_default = 1 AND token <> ?
            """) {
            try $0.bind(now, at: 1)
            try $0.bind(scope.merchantId, at: 2)
            try $0.bind(scope.customerId, at: 3)
            try $0.bind(token, at: 4)
        }
    }

    /// Upserts the customer's last-used counter.
    static let reserveTicksSQL = """
        INSERT INTO customer_last_used (merchant_id, customer_id, last_used) VALUES (?1, ?2, ?3) \
        ON CONFLICT (merchant_id, customer_id) DO UPDATE SET last_used = max(excluded.last_used, last_used + ?4) \
        RETURNING last_used
        """

    /// Reserves `count` (at least 1) consecutive last-used stamps for the customer, each later
    /// than every stamp the customer had, and returns the first: the wall clock, or one more than
    /// the previous stamp.
    ///
    /// One primary-key upsert of `customer_last_used` (the customer's highest stamp) instead of
    /// `max(last_used)` over the customer's rows, so the cost does not grow with their number.
    /// Stamps `t1...tn` with `t1 = max(now, latest + 1)` and `t(i+1) = ti + 1` end at
    /// `max(now + n - 1, latest + n)`, which is what the statement stores and returns.
    static func reserveTicks(_ database: Database, scope: VaultScope, count: Int, now: Int64) throws -> Int64 {
        let count = Int64(max(1, count))
        let last = try database.withStatement(reserveTicksSQL) { statement in
            try statement.bind(scope.merchantId, at: 1)
            try statement.bind(scope.customerId, at: 2)
            try statement.bind(max(now + count - 1, count), at: 3)
            try statement.bind(count, at: 4)
            guard try statement.step() else { throw CheckoutError(.vaultFailure, "the last-used counter was not written") }
            return try statement.int64("last_used")
        }
        return last - count + 1
    }

    /// Inserts an outbox row; parameters as `bindEnqueue` binds them.
    static let enqueueSQL = """
        INSERT INTO outbox (op_id, merchant_id, customer_id, kind, token, payload, base_version, created) \
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// Writes an outbox row (inside the caller's transaction).
    static func enqueue(_ database: Database, id: String, scope: VaultScope, kind: OutboxOperation.Kind, token: String,
                        payload: String?, baseVersion: Int64, now: Int64) throws {
        try database.run(enqueueSQL) {
            try bindEnqueue($0, id: id, scope: scope, kind: kind, token: token, payload: payload, baseVersion: baseVersion,
                            now: now)
        }
    }

    /// Binds the parameters of `enqueueSQL`.
    static func bindEnqueue(_ statement: Statement, id: String, scope: VaultScope, kind: OutboxOperation.Kind,
                            token: String, payload: String?, baseVersion: Int64, now: Int64) throws {
        try statement.bind(id, at: 1)
        try statement.bind(scope.merchantId, at: 2)
        try statement.bind(scope.customerId, at: 3)
        try statement.bind(kind.rawValue, at: 4)
        try statement.bind(token, at: 5)
        try statement.bind(payload, at: 6)
        try statement.bind(baseVersion, at: 7)
        try statement.bind(now, at: 8)
    }
}
