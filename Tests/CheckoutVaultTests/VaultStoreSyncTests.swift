import CheckoutTestSupport
import CheckoutCore
import CheckoutVault
import Testing

@Suite("VaultStore sync API")
struct VaultStoreSyncTests {
    let directory: TemporaryDirectory
    let store: VaultStore
    let scope = Fixtures.alice

    init() throws {
        directory = try TemporaryDirectory()
        store = try Fixtures.store(in: directory)
    }

    func versions() throws -> [String: Int64] {
        Dictionary(uniqueKeysWithValues: try store.blocking.storedInstruments(scope: scope, includeDeleted: true).map { ($0.method.id, $0.version) })
    }

    /// What a malicious or broken server could send: card numbers spelled past the old guard, a
    /// card number in the expiry year (`checkout vault list` printed `12/4242424242424242`), and
    /// expiries no card has.
    static let plantedMethods: [(String, @Sendable (inout VaultedPaymentMethod) -> Void)] = [
        ("full-width digits in the name", { $0.paymentInstrumentData.cardholderName = "４２４２４２４２４２４２４２４２" }),
        ("no-break spaces in the name", { $0.paymentInstrumentData.cardholderName = "4111\u{00A0}1111\u{00A0}1111\u{00A0}1111" }),
        ("dots in the analytics id", { $0.analyticsId = "4242.4242.4242.4242" }),
        ("a card number as the expiry year", { $0.paymentInstrumentData.expirationYear = 4_242_424_242_424_242 }),
        ("expiry month 13", { $0.paymentInstrumentData.expirationMonth = 13 }),
        ("a two-digit expiry year", { $0.paymentInstrumentData.expirationYear = 31 }),
    ]

    @Test("fields that spell a card number side by side, as SQLite lays the row out in the file, are refused")
    func adjacentFieldsSpellingACardNumber() throws {
        // network, first6 and last4 are neighbours in the record: "…424242" + "424242" + "4242".
        var method = Fixtures.card("a", first6: "424242", last4: "4242")
        method.paymentInstrumentData.network = CardNetwork(rawValue: "X424242")
        #expect(throws: CheckoutError.self) { try store.blocking.upsert(method, scope: scope) }
        #expect(throws: CheckoutError.self) {
            try store.blocking.applyRemotePage(scope: scope, changes: [.upsert(method, version: 1)], newCursor: "v3.a")
        }
        #expect(try versions().isEmpty)
        // Each field alone is fine, and so is the everyday row.
        try store.blocking.upsert(Fixtures.card("b", first6: "424242", last4: "4242"), scope: scope)
        #expect(try versions().keys.sorted() == ["b"])
    }

    @Test("a pulled page with a planted card number or an impossible expiry is refused whole, and nothing moves",
          arguments: plantedMethods.indices)
    func plantedDataIsRefused(_ index: Int) throws {
        let (reason, plant) = Self.plantedMethods[index]
        try store.blocking.applyRemotePage(scope: scope, changes: [.upsert(Fixtures.card("a"), version: 1)], newCursor: "v3.a")
        var planted = Fixtures.card("b")
        plant(&planted)
        #expect(throws: CheckoutError.self, "\(reason)") {
            try store.blocking.applyRemotePage(scope: scope, changes: [.upsert(Fixtures.card("c"), version: 1), .upsert(planted, version: 1)],
                                               newCursor: "v3.b")
        }
        #expect(try versions() == ["a": 1], "\(reason)")
        #expect(try store.blocking.cursor(scope: scope) == "v3.a", "\(reason)")
    }

    @Test("a page is applied with its cursor; older or equal versions are skipped")
    func applyPage() throws {
        let result = try store.blocking.applyRemotePage(scope: scope, changes: [
            .upsert(Fixtures.card("a"), version: 3),
            .upsert(Fixtures.card("b", isDefault: true), version: 1),
            .delete(token: "never-seen", version: 4),
        ], newCursor: "c1")
        #expect(result == RemotePageResult(applied: 2, skipped: 1))
        #expect(try store.blocking.syncState(scope: scope) == SyncState(cursor: "c1", lastSyncedAt: 1_000))
        #expect(try store.blocking.storedInstruments(scope: scope) == [
            StoredInstrument(method: Fixtures.card("b", isDefault: true), version: 1, isDeleted: false, lastUsedAt: 0, updatedAt: 1_000),
            StoredInstrument(method: Fixtures.card("a"), version: 3, isDeleted: false, lastUsedAt: 0, updatedAt: 1_000),
        ])
        let second = try store.blocking.applyRemotePage(scope: scope, changes: [
            .upsert(Fixtures.card("a", last4: "9999"), version: 3),
            .upsert(Fixtures.card("b", last4: "9999"), version: 2),
        ], newCursor: "c2")
        #expect(second == RemotePageResult(applied: 1, skipped: 1))
        #expect(try store.blocking.instruments(scope: scope).map { $0.paymentInstrumentData.last4Digits } == ["4242", "9999"])
        #expect(try store.blocking.cursor(scope: scope) == "c2")
        #expect(try store.blocking.pendingCount(scope: scope) == 0)
    }

    @Test("rows with pending local operations keep their local state, but a remote delete wins")
    func pendingRowsAreProtected() throws {
        try store.blocking.applyRemotePage(scope: scope, changes: [.upsert(Fixtures.card("a"), version: 1),
                                                         .upsert(Fixtures.card("b"), version: 1)], newCursor: "c1")
        let localA = Fixtures.card("a", name: "Local Edit")
        try store.blocking.upsert(localA, scope: scope)
        try store.blocking.upsert(Fixtures.card("b", name: "Local Edit"), scope: scope)
        let result = try store.blocking.applyRemotePage(scope: scope, changes: [
            .upsert(Fixtures.card("a", name: "Server State"), version: 2),
            .delete(token: "b", version: 2),
        ], newCursor: "c2")
        #expect(result == RemotePageResult(applied: 1, skipped: 1))
        #expect(try store.blocking.instruments(scope: scope) == [localA])
        #expect(try store.blocking.instrument(token: "b", scope: scope)?.isDeleted == true)
        #expect(try store.blocking.pendingOps(scope: scope).map(\.token) == ["a", "b"])
    }

    @Test("a remote default does not displace a local default that is still queued")
    func remoteDefaultVersusLocalDefault() throws {
        try store.blocking.applyRemotePage(scope: scope, changes: [.upsert(Fixtures.card("a"), version: 1),
                                                         .upsert(Fixtures.card("b"), version: 1)], newCursor: "c1")
        try store.blocking.setDefault(token: "a", scope: scope)
        try store.blocking.applyRemotePage(scope: scope, changes: [.upsert(Fixtures.card("b", isDefault: true), version: 2)],
                                           newCursor: "c2")
        #expect(try store.blocking.instruments(scope: scope).filter(\.isDefault).map(\.id) == ["a"])
        // Once the local op is settled, the next remote default takes over.
        let op = try #require(try store.blocking.pendingOps(scope: scope).first)
        try store.blocking.completeOps(applied: [(opId: op.id, newVersion: 2)])
        try store.blocking.applyRemotePage(scope: scope, changes: [.upsert(Fixtures.card("b", isDefault: true), version: 3)],
                                           newCursor: "c3")
        let methods = try store.blocking.instruments(scope: scope)
        #expect(methods.map(\.id) == ["b", "a"])
        #expect(methods.map(\.isDefault) == [true, false])
    }

    @Test("a page with a card number is refused whole: nothing applied, cursor unchanged")
    func guardedPage() throws {
        try store.blocking.applyRemotePage(scope: scope, changes: [.upsert(Fixtures.card("a"), version: 1)], newCursor: "c1")
        let error = try #require(throws: CheckoutError.self) {
            try store.blocking.applyRemotePage(scope: scope, changes: [
                .upsert(Fixtures.card("b"), version: 1),
                .upsert(Fixtures.card("c", name: "378282246310005"), version: 1),
            ], newCursor: "c2")
        }
        #expect(error.code == .sensitiveDataRejected)
        #expect(try store.blocking.instruments(scope: scope).map(\.id) == ["a"])
        #expect(try store.blocking.cursor(scope: scope) == "c1")
        #expect(throws: CheckoutError.self) {
            try store.blocking.applyRemotePage(scope: scope, changes: [], newCursor: "cursor-4111111111111111")
        }
        #expect(throws: CheckoutError.self) {
            try store.blocking.applyRemotePage(scope: scope, changes: [RemoteChange(token: "x", version: 1, method: Fixtures.card("y"))],
                                               newCursor: "c3")
        }
        #expect(try store.blocking.cursor(scope: scope) == "c1")
    }

    @Test("applied operations leave the queue, set the version and rebase later operations")
    func completeApplied() throws {
        try store.blocking.upsert(Fixtures.card("a"), scope: scope)
        try store.blocking.setDefault(token: "a", scope: scope)
        try store.blocking.upsert(Fixtures.card("b"), scope: scope)
        let ops = try store.blocking.pendingOps(scope: scope)
        #expect(ops.map(\.baseVersion) == [0, 0, 0])
        try store.blocking.completeOps(applied: [(opId: ops[0].id, newVersion: 1)])
        #expect(try store.blocking.pendingOps(scope: scope).map(\.baseVersion) == [1, 0])
        #expect(try versions() == ["a": 1, "b": 0])
        try store.blocking.completeOps(applied: [(opId: ops[1].id, newVersion: 2), (opId: ops[2].id, newVersion: 1),
                                        (opId: "unknown", newVersion: 9)])
        #expect(try versions() == ["a": 2, "b": 1])
        #expect(try store.blocking.pendingCount(scope: scope) == 0)
        // Settling the same op twice changes nothing.
        try store.blocking.completeOps(applied: [(opId: ops[0].id, newVersion: 1)])
        #expect(try versions() == ["a": 2, "b": 1])
    }

    @Test("rejected operations are dropped; a creation the server refused disappears locally")
    func completeRejected() throws {
        try store.blocking.applyRemotePage(scope: scope, changes: [.upsert(Fixtures.card("synced"), version: 4)], newCursor: "c1")
        try store.blocking.upsert(Fixtures.card("synced", name: "Edited"), scope: scope)
        try store.blocking.upsert(Fixtures.card("fresh"), scope: scope)
        let ops = try store.blocking.pendingOps(scope: scope)
        try store.blocking.completeOps(rejected: [(opId: ops[0].id, reason: "version-mismatch"), (opId: ops[1].id, reason: "invalid")])
        #expect(try store.blocking.pendingCount(scope: scope) == 0)
        #expect(try store.blocking.instruments(scope: scope).map(\.id) == ["synced"])
        #expect(try versions() == ["synced": 4])
    }

    @Test("a retryable failure counts an attempt and keeps a scrubbed note")
    func recordFailure() throws {
        let opId = try store.blocking.upsert(Fixtures.card("a"), scope: scope)
        try store.blocking.recordOpFailure(opId: opId, error: "HTTP 503 while sending 4111 1111 1111 1111")
        try store.blocking.recordOpFailure(opId: opId, error: "timeout")
        let op = try #require(try store.blocking.pendingOps(scope: scope).first)
        #expect(op.attempts == 2)
        #expect(op.lastError == "timeout")
        try store.blocking.recordOpFailure(opId: opId, error: "HTTP 503 while sending 4111 1111 1111 1111")
        let noted = try #require(try store.blocking.pendingOps(scope: scope).first?.lastError)
        #expect(!ReferenceCardNumberDetector.containsCardNumber(noted))
        #expect(noted.hasPrefix("HTTP 503 while sending 411111"))
    }

    @Test("a reset wipes synced rows and the cursor but keeps the outbox and its rows")
    func reset() throws {
        try store.blocking.applyRemotePage(scope: scope, changes: [.upsert(Fixtures.card("a"), version: 1),
                                                         .upsert(Fixtures.card("b"), version: 1)], newCursor: "c1")
        try store.blocking.applyRemotePage(scope: Fixtures.bob, changes: [.upsert(Fixtures.card("a"), version: 1)], newCursor: "b1")
        try store.blocking.upsert(Fixtures.card("local"), scope: scope)
        try store.blocking.markUsed(token: "b", scope: scope)
        try store.blocking.delete(token: "b", scope: scope)
        try store.blocking.resetSynced(scope: scope)
        #expect(try store.blocking.storedInstruments(scope: scope, includeDeleted: true).map(\.method.id) == ["local", "b"])
        #expect(try store.blocking.cursor(scope: scope) == nil)
        #expect(try store.blocking.pendingOps(scope: scope).map(\.kind) == [.upsert, .delete])
        #expect(try store.blocking.instruments(scope: Fixtures.bob).map(\.id) == ["a"])
        #expect(try store.blocking.cursor(scope: Fixtures.bob) == "b1")
    }

    @Test("operations are listed per scope, oldest first, up to the limit")
    func pendingOpsLimit() throws {
        for index in 0..<5 { try store.blocking.upsert(Fixtures.card("t\(index)"), scope: scope) }
        try store.blocking.upsert(Fixtures.card("x"), scope: Fixtures.bob)
        #expect(try store.blocking.pendingOps(scope: scope, limit: 3).map(\.token) == ["t0", "t1", "t2"])
        #expect(try store.blocking.pendingOps(scope: Fixtures.bob).map(\.token) == ["x"])
        #expect(try store.blocking.pendingScopes() == [Fixtures.alice, Fixtures.bob])
    }
}
