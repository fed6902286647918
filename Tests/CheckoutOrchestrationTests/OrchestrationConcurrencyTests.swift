import CheckoutCore
@testable import CheckoutOrchestration
import Foundation
import Testing

/// One router shared by many tasks (run under the thread sanitizer by `make tsan`).
@Suite struct OrchestrationConcurrency {
    @Test("concurrent payments, some with the same stable key: one intent and one charge per key")
    func concurrentPayments() async throws {
        let harness = try Harness("""
            { "processors": [ { "name": "psp-a", "kind": "sandbox", "behaviour": { "createPayment": ["succeed", "processor-error"] } },
                              { "name": "psp-b", "kind": "sandbox" } ],
              "routes": [ { "name": "all", "processors": ["psp-a", "psp-b"], "weights": { "psp-a": 1, "psp-b": 1 },
                            "fallbackOn": ["processor-error"] } ] }
            """)
        let keys = (0..<40).map { "k\($0 % 20)" }
        await withTaskGroup(of: Void.self) { group in
            for key in keys { group.addTask { _ = await harness.pay(key: key) } }
        }
        // A second open attempt for a key is refused by the ledger, so duplicates may fail: never charge.
        let intents = try await harness.ledger.intents(limit: 100)
        #expect(intents.count == 20)
        for key in Set(keys) {
            let intent = try #require(try await harness.ledger.intent(stableKey: key))
            let charged = intent.attempts.filter { $0.status == .succeeded }.count
            #expect(charged <= 1)
        }
        let byKey = harness.sandboxes.values.flatMap { $0.chargesByKey.values }
        #expect(byKey.allSatisfy { $0 == 1 })
        #expect(harness.totalCharges <= 20)
    }
}
