import CheckoutCore
import CheckoutVault
import Testing

@Suite("VaultStore concurrency")
struct VaultStoreConcurrencyTests {
    @Test("200 tasks x 20 writes lose nothing: every row and every outbox op is there")
    func manyWriters() async throws {
        let directory = try TemporaryDirectory()
        let store = try Fixtures.store(in: directory)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<200 {
                group.addTask {
                    let scope = VaultScope(merchantId: "m_\(task % 2)", customerId: "c_\(task % 10)")
                    for write in 0..<20 {
                        try await store.upsert(Fixtures.card("t\(task)_\(write)", isDefault: write == 19), scope: scope)
                        if write % 5 == 0 { _ = try await store.instruments(scope: scope) }
                    }
                }
            }
            try await group.waitForAll()
        }
        var total = 0
        var pending = 0
        for merchant in 0..<2 {
            for customer in 0..<10 {
                let scope = VaultScope(merchantId: "m_\(merchant)", customerId: "c_\(customer)")
                let methods = try await store.instruments(scope: scope)
                total += methods.count
                await pending += try store.pendingCount(scope: scope)
                #expect(methods.filter(\.isDefault).count == (methods.isEmpty ? 0 : 1))
            }
        }
        #expect(total == 4_000)
        #expect(pending == 4_000)
    }

    @Test("two stores on the same file writing at once lose nothing")
    func twoConnectionsOneFile() async throws {
        let directory = try TemporaryDirectory()
        let first = try Fixtures.store(in: directory)
        let second = try Fixtures.store(in: directory)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<40 {
                let store = task % 2 == 0 ? first : second
                group.addTask {
                    for write in 0..<10 {
                        try await store.upsert(Fixtures.card("t\(task)_\(write)"), scope: Fixtures.alice)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await first.instruments(scope: Fixtures.alice).count == 400)
        #expect(try await second.pendingCount(scope: Fixtures.alice) == 400)
    }
}
