import CheckoutCore
import CheckoutVault
import Testing

@Suite("VaultStore local changes")
struct VaultStoreTests {
    let directory: TemporaryDirectory
    let store: VaultStore

    init() throws {
        directory = try TemporaryDirectory()
        store = try Fixtures.store(in: directory)
    }

    func op(_ id: String, _ kind: OutboxOperation.Kind, _ token: String, method: VaultedPaymentMethod? = nil,
            base: Int64 = 0, scope: VaultScope = Fixtures.alice) -> OutboxOperation {
        OutboxOperation(id: id, scope: scope, kind: kind, token: token, method: method, baseVersion: base,
                        attempts: 0, lastError: nil, createdAt: 1_000)
    }

    @Test("each local change writes its outbox row; mark-used and no-op changes write none")
    func outboxPerChange() throws {
        let a = Fixtures.card("a", bin: BinData(networks: [.cartesBancaires, .visa], issuerCountry: "FR",
                                                   accountFundingType: "DEBIT"))
        let b = Fixtures.card("b", network: .mastercard, name: nil, bin: BinData(networks: []))
        let upsertA = try store.blocking.upsert(a, scope: Fixtures.alice)
        let upsertB = try store.blocking.upsert(b, scope: Fixtures.alice)
        try store.blocking.markUsed(token: "a", scope: Fixtures.alice)
        try store.blocking.setDefault(token: "b", scope: Fixtures.alice)
        try store.blocking.setDefault(token: "b", scope: Fixtures.alice)
        #expect(try store.blocking.delete(token: "a", scope: Fixtures.alice))
        #expect(try store.blocking.delete(token: "a", scope: Fixtures.alice) == false)
        let ops = try store.blocking.pendingOps(scope: Fixtures.alice)
        #expect(ops.count == 4)
        #expect(Set(ops.map(\.id)).count == 4)
        #expect(ops.allSatisfy { $0.id.count == 36 && $0.id == $0.id.lowercased() })
        let expected = [
            op(upsertA, .upsert, "a", method: a),
            op(upsertB, .upsert, "b", method: b),
            op(ops[2].id, .setDefault, "b"),
            op(ops[3].id, .delete, "a"),
        ]
        #expect(ops == expected)
        #expect(try store.blocking.pendingCount(scope: Fixtures.alice) == 4)
        #expect(try store.blocking.pendingCount(scope: Fixtures.bob) == 0)
        #expect(try store.blocking.pendingScopes() == [Fixtures.alice])
    }

    @Test("the full stored state after a sequence of changes")
    func snapshot() throws {
        let a = Fixtures.card("a")
        let b = Fixtures.card("b", isDefault: true)
        try store.blocking.upsert(a, scope: Fixtures.alice)           // last used 1000
        try store.blocking.upsert(b, scope: Fixtures.alice)           // 1001
        try store.blocking.markUsed(token: "a", scope: Fixtures.alice) // 1002
        try store.blocking.delete(token: "b", scope: Fixtures.alice)
        var notDefault = b
        notDefault.isDefault = false
        #expect(try store.blocking.storedInstruments(scope: Fixtures.alice, includeDeleted: true) == [
            StoredInstrument(method: a, version: 0, isDeleted: false, lastUsedAt: 1_002, updatedAt: 1_000),
            StoredInstrument(method: notDefault, version: 0, isDeleted: true, lastUsedAt: 1_001, updatedAt: 1_000),
        ])
        #expect(try store.blocking.instrument(token: "b", scope: Fixtures.alice)?.isDeleted == true)
        #expect(try store.blocking.instrument(token: "b", scope: Fixtures.bob) == nil)
        #expect(try store.blocking.instruments(scope: Fixtures.alice) == [a])
        // Saving a deleted instrument brings it back.
        try store.blocking.upsert(notDefault, scope: Fixtures.alice)
        #expect(try store.blocking.instruments(scope: Fixtures.alice) == [notDefault, a])
    }

    @Test("a refused change writes neither the row nor an outbox row")
    func refusedChangeWritesNothing() throws {
        try store.blocking.upsert(Fixtures.card("a"), scope: Fixtures.alice)
        let batch = [Fixtures.card("b"), Fixtures.card("c", name: "5555555555554444")]
        let error = try #require(throws: CheckoutError.self) { try store.blocking.upsert(batch, scope: Fixtures.alice) }
        #expect(error.code == .sensitiveDataRejected)
        #expect(!error.description.contains("5555555555554444"))
        #expect(try store.blocking.instruments(scope: Fixtures.alice).map(\.id) == ["a"])
        #expect(try store.blocking.pendingCount(scope: Fixtures.alice) == 1)
    }

    @Test("a batch upsert behaves like saving one after the other")
    func batch() throws {
        let ids = try store.blocking.upsert([Fixtures.card("a", isDefault: true), Fixtures.card("b"), Fixtures.card("c", isDefault: true)],
                                            scope: Fixtures.alice)
        #expect(ids.count == 3)
        let methods = try store.blocking.instruments(scope: Fixtures.alice)
        #expect(methods.map(\.id) == ["c", "b", "a"])
        #expect(methods.map(\.isDefault) == [true, false, false])
        #expect(try store.blocking.pendingOps(scope: Fixtures.alice).map(\.id) == ids)
    }

    @Test("invalid scopes and tokens are refused", arguments: [
        (VaultScope(merchantId: "", customerId: "c"), "a"),
        (VaultScope(merchantId: "m", customerId: ""), "a"),
        (VaultScope(merchantId: "m", customerId: "4111111111111111"), "a"),
        (VaultScope(merchantId: "m", customerId: "c"), ""),
    ])
    func invalidInput(_ scope: VaultScope, _ token: String) throws {
        #expect(throws: CheckoutError.self) { try store.blocking.upsert(Fixtures.card(token), scope: scope) }
        #expect(throws: CheckoutError.self) { try store.blocking.delete(token: token, scope: scope) }
        #expect(throws: CheckoutError.self) { try store.blocking.setDefault(token: token, scope: scope) }
        #expect(try store.blocking.pendingScopes() == [])
    }

    @Test("a BIN network containing the separator is refused rather than mangled")
    func networkSeparator() throws {
        let method = Fixtures.card("a", bin: BinData(networks: ["VISA,MASTERCARD"]))
        let error = try #require(throws: CheckoutError.self) { try store.blocking.upsert(method, scope: Fixtures.alice) }
        #expect(error.code == .invalidPaymentData)
    }

    @Test("a full scan visits every row of every scope, tombstones included, in key order")
    func fullScan() throws {
        try store.blocking.upsert(Fixtures.card("b"), scope: Fixtures.bob)
        try store.blocking.upsert(Fixtures.card("a"), scope: Fixtures.alice)
        try store.blocking.upsert(Fixtures.card("z"), scope: Fixtures.alice)
        try store.blocking.delete(token: "z", scope: Fixtures.alice)
        try store.blocking.upsert(Fixtures.card("o"), scope: Fixtures.otherMerchantAlice)
        var visited: [String] = []
        try store.blocking.forEachInstrument { scope, row in
            visited.append("\(scope)/\(row.method.id)\(row.isDeleted ? " (deleted)" : "")")
        }
        #expect(visited == ["m_other/c_alice/o", "m_shop/c_alice/a", "m_shop/c_alice/z (deleted)", "m_shop/c_bob/b"])
    }
}
