import CheckoutCore
@testable import CheckoutOrchestration
import Foundation
import Testing

/// One router shared by many tasks (run under the thread sanitizer by `make tsan`).
@Suite struct OrchestrationConcurrency {
    @Test("concurrent payments, two calls per stable key: one intent, one charge and one succeeded payment per key")
    func concurrentPayments() async throws {
        let harness = try Harness("""
            { "processors": [ { "name": "psp-a", "kind": "sandbox", "behaviour": { "createPayment": ["succeed", "processor-error"] } },
                              { "name": "psp-b", "kind": "sandbox" } ],
              "routes": [ { "name": "all", "processors": ["psp-a", "psp-b"], "weights": { "psp-a": 1, "psp-b": 1 },
                            "fallbackOn": ["processor-error"] } ] }
            """)
        let keys = (0..<40).map { "k\($0 % 20)" }
        let answers = await withTaskGroup(of: (String, PaymentResponse?).self) { group in
            for key in keys { group.addTask { (key, try? await harness.pay(key: key).get()) } }
            return await group.reduce(into: [(String, PaymentResponse?)]()) { $0.append($1) }
        }
        // Both calls of every key report the same succeeded payment.
        #expect(answers.count == 40)
        #expect(answers.allSatisfy { $0.1?.status == .succeeded }, "\(answers.filter { $0.1?.status != .succeeded })")
        for (key, group) in Dictionary(grouping: answers, by: \.0) {
            #expect(Set(group.map { $0.1?.paymentId }).count == 1, "\(key): \(group.map { $0.1?.paymentId })")
        }
        let intents = try await harness.ledger.intents(limit: 100)
        #expect(intents.count == 20)
        for key in Set(keys) {
            let intent = try #require(try await harness.ledger.intent(stableKey: key))
            #expect(intent.state == .succeeded)
            #expect(intent.attempts.filter { $0.status == .succeeded }.count == 1)
        }
        let byKey = harness.sandboxes.values.flatMap { $0.chargesByKey.values }
        #expect(byKey.count == 20 && byKey.allSatisfy { $0 == 1 })
        #expect(harness.totalCharges == 20)
    }
}
