import CheckoutCore
@testable import CheckoutOrchestration
import CheckoutOrchestrationPostgres
import Foundation
import Testing

/// The PostgreSQL ledger: the same rules as SQLite (checked moves, one open attempt, outbox in the
/// same transaction) and the router's scenarios on it. Skipped, with the reason, without a server.
@Suite(.enabled(if: PostgresTestEnvironment.isConfigured, Comment(rawValue: PostgresTestEnvironment.skipMessage)))
struct PostgresLedgerTests {
    static func ledger(_ schema: PostgresTestSchema) throws -> PaymentLedger {
        PaymentLedger(storage: try PostgresLedgerStorage(url: schema.url))
    }

    @Test("checked moves, one intent per key, one open attempt, and the outbox on PostgreSQL")
    func rules() async throws {
        let schema = try PostgresTestSchema()
        let ledger = try Self.ledger(schema)
        let new = NewIntent(stableKey: "pg-1", route: "r", methodType: "PAYMENT_CARD", amount: 5, currency: "EUR", card: nil)
        let intent = try await ledger.open(new)
        #expect(try await ledger.open(new).id == intent.id)
        let attempt = try await ledger.startAttempt(intentId: intent.id, processor: "a", idempotencyKey: "k")
        await #expect(throws: LedgerError.self) {
            _ = try await ledger.startAttempt(intentId: intent.id, processor: "b", idempotencyKey: "k2")
        }
        try await ledger.settle(intentId: intent.id, sequence: attempt.sequence,
                                AttemptSettlement(status: .succeeded, authentication: AuthenticationResult(
                                    version: "2.2.0", transactionId: "t", eci: "05", authenticationValue: "v")),
                                intentState: .succeeded)
        await #expect(throws: LedgerError.self) { try await ledger.move(intentId: intent.id, to: .failed) }
        let stored = try #require(try await ledger.intent(id: intent.id))
        #expect(stored.state == .succeeded)
        #expect(stored.attempts[0].authentication?.eci == "05")
        let due = try await ledger.dueEvents(now: Date().addingTimeInterval(5), limit: 10)
        #expect(due.map(\.event.type) == ["payment.succeeded"])
        try await ledger.markDelivered(eventId: due[0].event.id, at: Date())
        #expect(try await ledger.dueEvents(now: Date().addingTimeInterval(5), limit: 10).isEmpty)
        // A second instance on the same database sees the same ledger.
        #expect(try await Self.ledger(schema).intent(stableKey: "pg-1")?.id == intent.id)
    }

    @Test("fallback and timeout-after-charge reconcile on the PostgreSQL ledger")
    func routerOnPostgres() async throws {
        let schema = try PostgresTestSchema()
        let ledger = try Self.ledger(schema)
        let file = try RoutingFileLoader.load(Array("""
            { "processors": [ { "name": "psp-a", "kind": "sandbox", "behaviour": { "createPayment": ["processor-error", "timeout-after-charge"],
                                                                                 "attemptStatus": ["network-error", "succeed"] } },
                              { "name": "psp-b", "kind": "sandbox" } ],
              "routes": [ { "name": "all", "processors": ["psp-a", "psp-b"], "fallbackOn": ["processor-error"] } ] }
            """.utf8))
        let sandboxes = Dictionary(uniqueKeysWithValues: file.processors.map {
            ($0.name, ScriptedSandboxProcessor(name: $0.name, behaviour: $0.behaviour))
        })
        let router = try PaymentRouter(file: file, processors: sandboxes, ledger: ledger)
        let session = Harness.session()
        func pay(_ key: String) async throws -> PaymentResponse {
            let token = try await router.tokenize(.card(CardDetails(number: Harness.visa, cvv: "123", expiryMonth: 1, expiryYear: 2031)),
                                                  session: session)
            return try await router.createPayment(CreatePaymentRequest(token: token, session: session, idempotencyKey: key))
        }
        #expect(try await pay("pg-fallback").status == .succeeded)
        await #expect(throws: CheckoutError.self) { _ = try await pay("pg-timeout") }
        #expect(try await ledger.intent(stableKey: "pg-timeout")?.state == .unknown)
        let report = try await router.reconcile()
        #expect(report.entries.map(\.to) == [.succeeded])
        #expect(sandboxes.values.reduce(0) { $0 + $1.chargeCount } == 2)
    }

    @Test("50 concurrent calls over 5 keys on 5 routers sharing a PostgreSQL ledger: one payment per key, succeeded, charged once, no internal error")
    func concurrentSameKeyCalls() async throws {
        let schema = try PostgresTestSchema()
        let file = try RoutingFileLoader.load(Array(PaymentSafetyTests.concurrentRouting.utf8))
        let sandboxes = Dictionary(uniqueKeysWithValues: file.processors.map {
            ($0.name, ScriptedSandboxProcessor(name: $0.name, behaviour: $0.behaviour))
        })
        try await PaymentSafetyTests.concurrentCalls(ledger: try Self.ledger(schema), file: file, sandboxes: sandboxes)
    }

    @Test("20 concurrent refunds of 100 on a captured 1000 over PostgreSQL: exactly 10 go through; the storage's constraint refuses the rest")
    func concurrentRefunds() async throws {
        let schema = try PostgresTestSchema()
        let ledger = try Self.ledger(schema)
        let file = try RoutingFileLoader.load(Array(LifecycleTests.file().utf8))
        let sandboxes = Dictionary(uniqueKeysWithValues: file.processors.map {
            ($0.name, ScriptedSandboxProcessor(name: $0.name, behaviour: $0.behaviour))
        })
        let router = try PaymentRouter(file: file, processors: sandboxes, ledger: ledger)
        let session = Harness.session()
        let token = try await router.tokenize(.card(CardDetails(number: Harness.visa, cvv: "123", expiryMonth: 1, expiryYear: 2031)),
                                              session: session)
        let paid = try await router.createPayment(CreatePaymentRequest(token: token, session: session, idempotencyKey: "pg-refunds"))
        try await LifecycleTests.concurrentRefunds(router: router, ledger: ledger, paymentId: paid.paymentId)
        let error = await #expect(throws: LedgerError.self) {
            try await ledger.storage.write { transaction in
                try transaction.saveBalance(intentId: paid.paymentId, PaymentBalance(authorized: 1000, captured: 1000, refunded: 1001))
            }
        }
        #expect(error?.code == .amountExceedsCaptured)
    }
}
