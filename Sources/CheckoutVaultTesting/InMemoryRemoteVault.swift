import CheckoutCore
import CheckoutLocking
import CheckoutVault
import Foundation

/// A `RemoteVault` in memory with the same rules as `vault-server`, plus switches to inject faults.
///
/// Rules (kept identical to the server's by a shared contract test suite): versions grow by one
/// per applied change; every change takes a fresh sequence of its customer and the feed is
/// compacted (one entry per instrument, at its latest sequence); like the server's, nothing on the
/// wire moves with other customers' changes (no sequence in a change; a cursor counts only its
/// customer's changes); deletes leave tombstones and always win; `setDefault` is
/// last-writer-wins and leaves exactly one default; an upsert of an existing instrument needs its
/// current version; op ids are idempotency keys (same id and same op replays the first answer,
/// same id and another op is HTTP 422 and nothing of the batch applies); tombstones older than the
/// retention are purged and a cursor before a purged tombstone gets HTTP 410; `limit` is capped.
/// The server's limits too (`Limits`): a customer's live instruments are capped
/// (`instrument-limit-reached`), a feed page is bounded by bytes as well as rows, instrument fields
/// by `InstrumentLimits`, a customer's writes by a budget (429 `write-budget-exhausted`, nothing
/// applied), and its tombstones and op records by caps past which the oldest go early. Op records
/// expire after `opRecordRetention`, after which a replayed op is applied again. Expired tombstones
/// and op records are purged at every call, as if the server's background purge had just run.
///
/// Faults: `failNext(_:_:with:)` makes the next calls throw a chosen `RemoteVaultError` (for
/// example a 500, or a 429 with `Retry-After`) without reaching the vault; `loseNextResponse`
/// applies a push and then throws `unreachable`, as when a connection drops after the server
/// committed; `hold(_:)` parks the next call until the test releases it. Every call is recorded
/// in `requests` (faulted ones too), like a server's access log.
public final class InMemoryRemoteVault: RemoteVault {
    /// The calls of the `RemoteVault` protocol.
    public typealias Endpoint = RemoteFaults.Endpoint
    /// One call as the vault received it.
    public typealias Request = RemoteFaults.Request

    /// Request caps, as in the server's configuration (`VaultServerConfiguration.Limits`).
    public struct Limits: Sendable, Equatable {
        /// The largest page; a larger `limit` is lowered to this.
        public var maxPageSize: Int
        /// The most ops per batch; more get HTTP 413.
        public var maxOpsPerBatch: Int
        /// The most live instruments per customer; an upsert creating one more is rejected.
        public var maxInstrumentsPerCustomer: Int
        /// The byte bound of a feed page, by the server's measure of a row (`feedBytes`).
        public var maxFeedPageBytes: Int
        /// Tombstones kept per customer; past them the oldest are purged early.
        public var maxTombstonesPerCustomer: Int
        /// Op records kept per customer; past them the oldest are purged early.
        public var maxOpRecordsPerCustomer: Int
        /// A customer's write budget: the ops it may write at once.
        public var customerWriteOpsBurst: Int
        /// The ops a customer's write budget regains per hour (0: no budget at all).
        public var customerWriteOpsPerHour: Double

        /// The server's defaults.
        public init(maxPageSize: Int = 1000, maxOpsPerBatch: Int = 500,
                    maxInstrumentsPerCustomer: Int = InstrumentLimits.maxInstrumentsPerCustomer,
                    maxFeedPageBytes: Int = 1 << 20, maxTombstonesPerCustomer: Int = 10_000,
                    maxOpRecordsPerCustomer: Int = 10_000, customerWriteOpsBurst: Int = 5_000,
                    customerWriteOpsPerHour: Double = 36_000) {
            self.maxPageSize = maxPageSize
            self.maxOpsPerBatch = maxOpsPerBatch
            self.maxInstrumentsPerCustomer = maxInstrumentsPerCustomer
            self.maxFeedPageBytes = maxFeedPageBytes
            self.maxTombstonesPerCustomer = maxTombstonesPerCustomer
            self.maxOpRecordsPerCustomer = maxOpRecordsPerCustomer
            self.customerWriteOpsBurst = customerWriteOpsBurst
            self.customerWriteOpsPerHour = customerWriteOpsPerHour
        }

        /// Ops written between two checks of a customer's caps (the server's amortized check).
        var capCheckInterval: Int { max(1, min(1_000, min(maxTombstonesPerCustomer, maxOpRecordsPerCustomer) / 10)) }
    }

    private struct Record {
        var id: String
        var version: Int64
        var sequence: Int64
        var deleted: Bool
        var isDefault: Bool
        var method: VaultedPaymentMethod? {
            didSet { feedBytes = Self.feedBytes(id: id, method: method) }
        }
        var deletedAt: Int64?
        /// The server's bound of this row's bytes in a feed page, measured once when the method is
        /// set, not at every page: 64 bytes of keys, version and punctuation, the id escaped at
        /// worst, and the method's JSON as stored (its `isDefault` is a column, not in the JSON).
        private(set) var feedBytes: Int

        init(id: String, version: Int64, sequence: Int64, deleted: Bool, isDefault: Bool, method: VaultedPaymentMethod?,
             deletedAt: Int64?) {
            (self.id, self.version, self.sequence, self.deleted, self.isDefault) = (id, version, sequence, deleted, isDefault)
            self.method = method
            self.deletedAt = deletedAt
            feedBytes = Self.feedBytes(id: id, method: method)
        }

        private static func feedBytes(id: String, method: VaultedPaymentMethod?) -> Int {
            guard var stored = method else { return 64 + 6 * id.utf8.count }
            stored.isDefault = false
            return 64 + 6 * id.utf8.count + ((try? JSONWriter.encode(stored).count) ?? 0)
        }
    }

    private struct LoggedOp {
        var op: OutboundOp
        var result: OpResult
        var createdAt: Int64
    }

    private struct Customer {
        /// The last sequence handed out to this customer's changes.
        var sequence: Int64 = 0
        var records: [String: Record] = [:]
        var horizon: Int64 = 0
        var opLog: [String: LoggedOp] = [:]
        /// Ops written since the caps were last checked.
        var writesSinceCapCheck = 0
        /// The write budget's tokens and when they were last topped up.
        var budget: (tokens: Double, updatedAt: Int64)?
    }

    private struct State {
        var customers: [String: Customer] = [:]
    }

    /// The merchant behind the credentials, as `identity(scope:)` answers it: one instance is one merchant's view.
    public let merchantId: String
    /// Request caps.
    public let limits: Limits
    private let retentionMillis: Int64
    private let opRetentionMillis: Int64
    private let clock: WallClock
    private let state = Locked(State())
    /// The fault switches and the access log (`failNext`, `hold`, `requests`, ...).
    public let faults = RemoteFaults()

    /// Creates an empty vault. `clock` is the server's wall clock (tombstone and op-record
    /// retention, the write budget); pass a test clock (e.g. a `TestClock`'s `wallClock`)
    /// to expire cursors and op records without waiting.
    public init(merchantId: String = "merchant", limits: Limits = Limits(), tombstoneRetention: Duration = .seconds(30 * 24 * 3600),
                opRecordRetention: Duration = .seconds(7 * 24 * 3600), clock: WallClock = .system) {
        self.merchantId = merchantId
        self.limits = limits
        func millis(_ duration: Duration) -> Int64 {
            duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        }
        self.retentionMillis = millis(tombstoneRetention)
        // Never longer than tombstones, as the server's `effectiveOpRecordRetentionSeconds`.
        self.opRetentionMillis = min(millis(opRecordRetention), retentionMillis)
        self.clock = clock
    }

    // MARK: Fault injection and inspection

    /// The next `count` calls (to `endpoint`, or to any endpoint when nil) throw `error` without
    /// reaching the vault (`RemoteFaults.failNext`).
    public func failNext(_ count: Int = 1, _ endpoint: Endpoint? = nil, with error: RemoteVaultError) {
        faults.failNext(count, endpoint, with: error)
    }

    /// The next push is applied and then throws `unreachable`: the answer was lost on the way back.
    public func loseNextResponse() { faults.loseNextResponse() }

    /// Parks the next call to `endpoint` until the returned hold is released.
    public func hold(_ endpoint: Endpoint) -> RemoteVaultHold { faults.hold(endpoint) }

    /// Every call received, in order.
    public var requests: [Request] { faults.requests }

    /// How many calls were received (to `endpoint`, or in total when nil).
    public func requestCount(_ endpoint: Endpoint? = nil) -> Int { faults.requestCount(endpoint) }

    /// Forgets the recorded requests.
    public func resetRequestLog() { faults.resetRequestLog() }

    /// The customer's live instruments (default first, then by id), read without recording a request.
    public func snapshot(customerId: String) -> [RemoteInstrument] {
        state.withLock { state in Self.live(state.customers[customerId] ?? Customer()) }
    }

    /// Deletes an instrument as another client would (the server's `DELETE` endpoint); false when
    /// there is no live instrument with that id.
    @discardableResult
    public func deleteOnServer(customerId: String, id: String) -> Bool {
        let now = clock.nowMillis
        return state.withLock { state in
            var customer = state.customers[customerId] ?? Customer()
            purgeExpired(&customer, now: now)
            guard let record = customer.records[id], !record.deleted else {
                state.customers[customerId] = customer
                return false
            }
            var sequence = customer.sequence
            Self.tombstone(record, in: &customer, sequence: &sequence, now: now)
            customer.sequence = sequence
            trimIfDue(&customer, writes: 1)
            state.customers[customerId] = customer
            return true
        }
    }

    // MARK: RemoteVault

    /// The credentials' owner: `merchantId` (one instance is one merchant's view, reached with
    /// a merchant key). Answered without a request record or a fault, like `HTTPRemoteVault`
    /// answering from a binding it confirmed earlier in the epoch.
    public func identity(scope: VaultScope) async throws -> VaultIdentity {
        VaultIdentity(merchant: merchantId)
    }

    /// One page of the compacted feed after `cursor` (410 before a purged tombstone, 400 for a bad cursor or limit).
    public func changes(scope: VaultScope, cursor: String?, limit: Int) async throws -> ChangePage {
        try await faults.admit(Request(endpoint: .changes, customerId: scope.customerId, cursor: cursor, opIds: []))
        let now = clock.nowMillis
        return try state.withLock { state throws(RemoteVaultError) -> ChangePage in
            try Self.checkCustomer(scope.customerId)
            guard limit > 0 else { throw Self.badRequest("invalid-limit", "limit must be a positive integer") }
            let pageSize = min(limit, limits.maxPageSize)
            var after: Int64 = 0
            var issuedAtHorizon: Int64 = 0
            if let cursor, !cursor.isEmpty {
                guard let position = Self.decodeCursor(cursor) else {
                    throw Self.badRequest("invalid-cursor", "the cursor was not issued by this server")
                }
                (after, issuedAtHorizon) = position
            }
            var customer = state.customers[scope.customerId] ?? Customer()
            purgeExpired(&customer, now: now)
            state.customers[scope.customerId] = customer
            // Expired only when tombstones after the cursor were purged since it was issued (the server's rule).
            if !(cursor ?? "").isEmpty, customer.horizon > after, customer.horizon > issuedAtHorizon {
                throw RemoteVaultError.cursorExpired
            }
            let feed = customer.records.values.filter { $0.sequence > after }.sorted { $0.sequence < $1.sequence }
            var page = Array(feed.prefix(pageSize))
            var hasMore = feed.count > pageSize
            // The byte bound: the row that crosses it waits for the next page, unless it is the only one.
            var total = 0
            for (index, record) in page.enumerated() {
                total += record.feedBytes
                if total > limits.maxFeedPageBytes {
                    page.removeLast(page.count - max(1, index))
                    hasMore = true
                    break
                }
            }
            let changes = page.map { RemoteChange(token: $0.id, version: $0.version, method: Self.method(of: $0)) }
            return ChangePage(changes: changes, cursor: Self.encodeCursor(page.last?.sequence ?? after,
                                                                         horizon: max(customer.horizon, issuedAtHorizon)),
                              hasMore: hasMore)
        }
    }

    /// Applies the batch atomically and answers one result per op, in order (422 for a reused op id).
    public func push(scope: VaultScope, ops: [OutboundOp]) async throws -> [OpResult] {
        let losesResponse = try await faults.admit(Request(endpoint: .push, customerId: scope.customerId, cursor: nil,
                                                    opIds: ops.map(\.opId)))
        let now = clock.nowMillis
        let results = try state.withLock { state throws(RemoteVaultError) -> [OpResult] in
            try Self.checkCustomer(scope.customerId)
            guard !ops.isEmpty else { throw Self.badRequest("invalid-request", "ops must not be empty") }
            guard ops.count <= limits.maxOpsPerBatch else {
                throw .httpStatus(status: 413, code: "too-many-ops", message: "a batch may carry at most \(limits.maxOpsPerBatch) ops",
                                  retryAfterSeconds: nil)
            }
            var seen = Set<String>()
            for op in ops {
                guard Self.isValidIdentifier(op.opId) else {
                    throw Self.badRequest("invalid-op-id", "every op needs an opId of 1–128 letters, digits or -._:")
                }
                guard seen.insert(op.opId).inserted else {
                    throw Self.badRequest("duplicate-op-id", "an opId appears twice in the batch")
                }
            }
            // The batch is atomic: work on a copy and publish it only when every op went through.
            var customer = state.customers[scope.customerId] ?? Customer()
            purgeExpired(&customer, now: now)
            try spendWriteBudget(&customer, ops: ops.count, now: now)
            var sequence = customer.sequence
            var results: [OpResult] = []
            for op in ops {
                if Self.containsCardNumber(op) {
                    results.append(OpResult(opId: op.opId, status: .rejected, reason: "sensitive-data-rejected",
                                            message: "the op holds something that looks like a card number"))
                    continue
                }
                guard Self.isValidIdentifier(op.instrumentId) else {
                    results.append(OpResult(opId: op.opId, status: .rejected, reason: "invalid-op",
                                            message: "instrumentId must be 1–128 letters, digits or -._:"))
                    continue
                }
                if let method = op.method, let violation = InstrumentLimits.violation(of: method) {
                    results.append(OpResult(opId: op.opId, status: .rejected, reason: violation.reason, message: violation.message))
                    continue
                }
                if let logged = customer.opLog[op.opId] {
                    guard logged.op == op else {
                        throw .httpStatus(status: 422, code: "idempotency-key-reused",
                                          message: "an op id was reused with a different body", retryAfterSeconds: nil)
                    }
                    results.append(logged.result)
                    continue
                }
                let result = Self.apply(op, to: &customer, sequence: &sequence, now: now,
                                        maxInstruments: limits.maxInstrumentsPerCustomer)
                customer.opLog[op.opId] = LoggedOp(op: op, result: result, createdAt: now)
                results.append(result)
            }
            customer.sequence = sequence
            trimIfDue(&customer, writes: ops.count)
            state.customers[scope.customerId] = customer
            return results
        }
        if losesResponse { throw RemoteFaults.lostResponse }
        return results
    }

    /// The customer's live instruments, default first, then by id.
    public func instruments(scope: VaultScope) async throws -> [RemoteInstrument] {
        try await faults.admit(Request(endpoint: .instruments, customerId: scope.customerId, cursor: nil, opIds: []))
        let now = clock.nowMillis
        return try state.withLock { state throws(RemoteVaultError) -> [RemoteInstrument] in
            try Self.checkCustomer(scope.customerId)
            var customer = state.customers[scope.customerId] ?? Customer()
            purgeExpired(&customer, now: now)
            state.customers[scope.customerId] = customer
            return Self.live(customer)
        }
    }

    // MARK: The server's purge, caps and write budget

    /// Removes tombstones past the retention (raising the purge horizon) and op records past
    /// theirs: what the server's background purge does.
    private func purgeExpired(_ customer: inout Customer, now: Int64) {
        purgeTombstones(&customer, deletedAtOrBefore: now - retentionMillis)
        customer.opLog = customer.opLog.filter { $0.value.createdAt > now - opRetentionMillis }
    }

    private func purgeTombstones(_ customer: inout Customer, deletedAtOrBefore cutoff: Int64) {
        for record in customer.records.values where record.deleted && (record.deletedAt ?? .max) <= cutoff {
            customer.records[record.id] = nil
            customer.horizon = max(customer.horizon, record.sequence)
        }
    }

    /// Every `capCheckInterval` ops, purges the customer's oldest tombstones and op records past
    /// the caps (all those as old as the oldest one kept, as the server's cutoff does).
    private func trimIfDue(_ customer: inout Customer, writes: Int) {
        customer.writesSinceCapCheck += writes
        guard customer.writesSinceCapCheck >= limits.capCheckInterval else { return }
        customer.writesSinceCapCheck = 0
        let tombstoneTimes = customer.records.values.filter(\.deleted).compactMap(\.deletedAt).sorted(by: >)
        if tombstoneTimes.count > limits.maxTombstonesPerCustomer {
            purgeTombstones(&customer, deletedAtOrBefore: tombstoneTimes[limits.maxTombstonesPerCustomer])
        }
        let opTimes = customer.opLog.values.map(\.createdAt).sorted(by: >)
        if opTimes.count > limits.maxOpRecordsPerCustomer {
            let cutoff = opTimes[limits.maxOpRecordsPerCustomer]
            customer.opLog = customer.opLog.filter { $0.value.createdAt > cutoff }
        }
    }

    /// Takes `ops` from the customer's budget (a token bucket, as the server's), or throws 429
    /// `write-budget-exhausted` with the seconds until enough is back; nothing is applied then.
    private func spendWriteBudget(_ customer: inout Customer, ops: Int, now: Int64) throws(RemoteVaultError) {
        let perSecond = limits.customerWriteOpsPerHour / 3600
        guard perSecond > 0, ops > 0 else { return }
        let burst = Double(limits.customerWriteOpsBurst)
        var (tokens, updatedAt) = customer.budget ?? (burst, now)
        tokens = min(burst, tokens + Double(max(0, now - updatedAt)) / 1000 * perSecond)
        updatedAt = max(updatedAt, now)
        guard tokens >= Double(ops) else {
            customer.budget = (tokens, updatedAt)
            let wait = max(1, Int(((min(Double(ops), burst) - tokens) / perSecond).rounded(.up)))
            throw .httpStatus(status: 429, code: "write-budget-exhausted",
                              message: "this key or customer has written too many ops lately; nothing was applied, retry later",
                              retryAfterSeconds: wait)
        }
        customer.budget = (tokens - Double(ops), updatedAt)
    }

    // MARK: Rules (the server's `VaultService`, restated)

    private static func apply(_ op: OutboundOp, to customer: inout Customer, sequence: inout Int64, now: Int64,
                              maxInstruments: Int) -> OpResult {
        let existing = customer.records[op.instrumentId]
        switch op.kind {
        case .upsert:
            guard var method = op.method, method.id == op.instrumentId else {
                return reject(op, "invalid-op", "an upsert needs a method whose id is the instrumentId")
            }
            do {
                try VaultedPaymentMethodGuard.check(method)
            } catch let error as CheckoutError where error.code == .invalidPaymentData {
                return reject(op, "invalid-expiry", error.message)
            } catch {
                return reject(op, "sensitive-data-rejected", "the instrument holds data that must not be stored")
            }
            let isDefault = method.isDefault
            method.isDefault = false
            if let problem = PreferredNetworkRule.problem(method, previous: existing.flatMap { $0.deleted ? nil : $0.method }) {
                return reject(op, "invalid-network", problem)
            }
            guard let existing else {
                if let base = op.baseVersion, base != 0 {
                    return OpResult(opId: op.opId, status: .conflict, reason: "not-found",
                                    message: "the instrument does not exist (it may have been deleted and purged)")
                }
                guard customer.records.values.count(where: { !$0.deleted }) < maxInstruments else {
                    return reject(op, "instrument-limit-reached",
                                  "a customer holds at most \(maxInstruments) instruments; delete one first")
                }
                if isDefault { clearOtherDefaults(in: &customer, keeping: op.instrumentId, sequence: &sequence) }
                sequence += 1
                customer.records[op.instrumentId] = Record(id: op.instrumentId, version: 1, sequence: sequence, deleted: false,
                                                           isDefault: isDefault, method: method, deletedAt: nil)
                return OpResult(opId: op.opId, status: .applied, version: 1)
            }
            if existing.deleted { return conflict(op, "deleted", "the instrument was deleted", existing) }
            guard op.baseVersion == existing.version else {
                return conflict(op, "version-mismatch", "the instrument changed on the server", existing)
            }
            if isDefault { clearOtherDefaults(in: &customer, keeping: existing.id, sequence: &sequence) }
            sequence += 1
            let record = Record(id: existing.id, version: existing.version + 1, sequence: sequence, deleted: false,
                                isDefault: isDefault, method: method, deletedAt: nil)
            customer.records[record.id] = record
            return OpResult(opId: op.opId, status: .applied, version: record.version)

        case .delete:
            guard let existing else { return reject(op, "not-found", "no such instrument") }
            if existing.deleted { return OpResult(opId: op.opId, status: .applied, version: existing.version) }
            let tombstone = tombstone(existing, in: &customer, sequence: &sequence, now: now)
            return OpResult(opId: op.opId, status: .applied, version: tombstone.version)

        case .setDefault:
            guard let existing else { return reject(op, "not-found", "no such instrument") }
            if existing.deleted { return conflict(op, "deleted", "the instrument was deleted", existing) }
            clearOtherDefaults(in: &customer, keeping: existing.id, sequence: &sequence)
            var record = existing
            if !existing.isDefault {
                sequence += 1
                record.version += 1
                record.sequence = sequence
                record.isDefault = true
                customer.records[record.id] = record
            }
            return OpResult(opId: op.opId, status: .applied, version: record.version)
        }
    }

    @discardableResult
    private static func tombstone(_ record: Record, in customer: inout Customer, sequence: inout Int64, now: Int64) -> Record {
        sequence += 1
        let tombstone = Record(id: record.id, version: record.version + 1, sequence: sequence, deleted: true,
                               isDefault: false, method: nil, deletedAt: now)
        customer.records[record.id] = tombstone
        return tombstone
    }

    private static func clearOtherDefaults(in customer: inout Customer, keeping id: String, sequence: inout Int64) {
        let others = customer.records.values.filter { !$0.deleted && $0.isDefault && $0.id != id }.sorted { $0.id < $1.id }
        for var other in others {
            sequence += 1
            other.isDefault = false
            other.version += 1
            other.sequence = sequence
            customer.records[other.id] = other
        }
    }

    private static func reject(_ op: OutboundOp, _ reason: String, _ message: String) -> OpResult {
        OpResult(opId: op.opId, status: .rejected, reason: reason, message: message)
    }

    private static func conflict(_ op: OutboundOp, _ reason: String, _ message: String, _ current: Record) -> OpResult {
        OpResult(opId: op.opId, status: .conflict, reason: reason, message: message,
                 current: RemoteChange(token: current.id, version: current.version, method: method(of: current)))
    }

    private static func method(of record: Record) -> VaultedPaymentMethod? {
        guard !record.deleted, var method = record.method else { return nil }
        method.isDefault = record.isDefault
        return method
    }

    private static func live(_ customer: Customer) -> [RemoteInstrument] {
        customer.records.values.filter { !$0.deleted }
            .sorted { lhs, rhs in lhs.isDefault != rhs.isDefault ? lhs.isDefault : lhs.id < rhs.id }
            .compactMap { record in method(of: record).map { RemoteInstrument(id: record.id, version: record.version, method: $0) } }
    }

    // MARK: Validation and cursors

    private static func badRequest(_ code: String, _ message: String) -> RemoteVaultError {
        .httpStatus(status: 400, code: code, message: message, retryAfterSeconds: nil)
    }

    private static func checkCustomer(_ id: String) throws(RemoteVaultError) {
        guard isValidIdentifier(id) else {
            throw badRequest("invalid-customer", "customer ids are 1–128 letters, digits or -._:")
        }
    }

    /// 1–128 ASCII letters, digits, `-`, `.`, `_` or `:`, and not a card number (the server's rule).
    static func isValidIdentifier(_ text: String) -> Bool {
        let bytes = text.utf8
        guard (1...128).contains(bytes.count) else { return false }
        for byte in bytes {
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F, 0x3A: continue
            default: return false
            }
        }
        return !PaymentDataRedactor.containsCardNumber(text)
    }

    private static func containsCardNumber(_ op: OutboundOp) -> Bool {
        guard let json = try? JSONWriter.encode(op) else { return true }
        return PaymentDataRedactor.containsCardNumber(String(decoding: json, as: UTF8.self))
    }

    /// A cursor of this double: `v1.` and the sequence in hex, then `.` and the purge horizon when
    /// it was issued (like the server's, whose cursor is enciphered).
    static func encodeCursor(_ sequence: Int64, horizon: Int64) -> String {
        "v1." + String(sequence, radix: 16) + "." + String(horizon, radix: 16)
    }

    static func decodeCursor(_ text: String) -> (sequence: Int64, horizon: Int64)? {
        guard text.hasPrefix("v1."), text.utf8.count <= 40 else { return nil }
        let parts = text.dropFirst(3).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        var values: [Int64] = []
        for digits in parts {
            guard !digits.isEmpty, digits.allSatisfy({ $0.isHexDigit && $0.isASCII && !$0.isUppercase }),
                  let value = Int64(digits, radix: 16), value >= 0 else { return nil }
            values.append(value)
        }
        return (values[0], values[1])
    }
}
