import CheckoutCore
@testable import CheckoutOrchestration
import Foundation
import Testing

/// Authorize-only payments, capture, void and refund: ledger states, one operation per key, events,
/// and money that can never go back more than it came in.
@Suite struct LifecycleTests {
    static func file(capture: String = "automatic", behaviour: String = "{}") -> String {
        """
        { "processors": [ { "name": "psp-a", "kind": "sandbox", "behaviour": \(behaviour) }, { "name": "psp-b", "kind": "sandbox" } ],
          "routes": [ { "name": "all", "processors": ["psp-a", "psp-b"], "fallbackOn": ["processor-error"], "capture": "\(capture)" } ] }
        """
    }

    static func events(_ harness: Harness, _ id: String) async throws -> [String] {
        try await harness.ledger.events(paymentId: id).map(\.type)
    }

    @Test("manual capture: authorized only, then a partial capture takes part and releases the rest; the captured amount refunds in parts, never beyond")
    func manualCaptureThenRefunds() async throws {
        let harness = try Harness(Self.file(capture: "manual"))
        let paid = try await harness.pay(key: "m1", amount: 1000).get()
        #expect(paid.status == .succeeded)
        var intent = try #require(try await harness.ledger.intent(id: paid.paymentId))
        #expect(intent.state == .requiresCapture)
        #expect(intent.balance == PaymentBalance(authorized: 1000, captured: 0, refunded: 0))
        #expect(harness.totalCharges == 0, "an authorization takes no money")
        // Nothing captured yet: nothing to refund.
        let early = try await harness.router.refund(paymentId: paid.paymentId, idempotencyKey: "r0")
        #expect(early.status == .failed)
        #expect(early.errorCode == "not-refundable")
        // Too much, then a partial capture.
        let tooMuch = try await harness.router.capture(paymentId: paid.paymentId, amount: 1001, idempotencyKey: "c0")
        #expect(tooMuch.errorCode == "amount-exceeds-captured")
        let captured = try await harness.router.capture(paymentId: paid.paymentId, amount: 600, idempotencyKey: "c1")
        #expect(captured.status == .succeeded)
        #expect(captured.captured == 600)
        #expect(harness.totalCharges == 1)
        intent = try #require(try await harness.ledger.intent(id: paid.paymentId))
        #expect(intent.state == .partiallyCaptured)
        // A second capture and a void are refused: the capture is done.
        #expect(try await harness.router.capture(paymentId: paid.paymentId, idempotencyKey: "c2").errorCode == "not-capturable")
        #expect(try await harness.router.void(paymentId: paid.paymentId, idempotencyKey: "v1").errorCode == "not-voidable")
        // Refunds: 250 + 350 = 600, then nothing more.
        let first = try await harness.router.refund(paymentId: paid.paymentId, amount: 250, idempotencyKey: "r1")
        #expect(first.status == .succeeded)
        #expect(first.refunded == 250)
        #expect(try await harness.ledger.intent(id: paid.paymentId)?.state == .partiallyRefunded)
        let over = try await harness.router.refund(paymentId: paid.paymentId, amount: 351, idempotencyKey: "r2")
        #expect(over.errorCode == "amount-exceeds-captured")
        let rest = try await harness.router.refund(paymentId: paid.paymentId, idempotencyKey: "r3")
        #expect(rest.amount == 350)
        #expect(rest.refunded == 600)
        intent = try #require(try await harness.ledger.intent(id: paid.paymentId))
        #expect(intent.state == .refunded)
        #expect(intent.balance == PaymentBalance(authorized: 1000, captured: 600, refunded: 600))
        #expect(try await harness.router.refund(paymentId: paid.paymentId, amount: 1, idempotencyKey: "r4").errorCode
                == "amount-exceeds-captured")
        #expect(intent.operations.map(\.kind) == [.capture, .refund, .refund])
        #expect(intent.operations.allSatisfy { $0.status == .succeeded })
        #expect(try await Self.events(harness, paid.paymentId)
                == ["payment.requires_capture", "payment.captured", "refund.succeeded", "refund.succeeded"])
        let sandbox = try #require(harness.sandboxes["psp-a"])
        let processorPaymentId = try #require(intent.authorizingAttempt?.processorPaymentId)
        #expect(sandbox.money(paymentId: processorPaymentId)?.captured == 600)
        #expect(sandbox.money(paymentId: processorPaymentId)?.refunded == 600)
    }

    @Test("void before capture releases the authorization; a capture after it is already-voided; a refund has nothing to give back")
    func void() async throws {
        let harness = try Harness(Self.file(capture: "manual"))
        let paid = try await harness.pay(key: "v").get()
        let voided = try await harness.router.void(paymentId: paid.paymentId, idempotencyKey: "v1")
        #expect(voided.status == .succeeded)
        #expect(try await harness.ledger.intent(id: paid.paymentId)?.state == .voided)
        #expect(try await harness.router.capture(paymentId: paid.paymentId, idempotencyKey: "c1").errorCode == "already-voided")
        #expect(try await harness.router.refund(paymentId: paid.paymentId, idempotencyKey: "r1").errorCode == "not-refundable")
        #expect(try await Self.events(harness, paid.paymentId) == ["payment.requires_capture", "payment.voided"])
        #expect(harness.totalCharges == 0)
    }

    @Test("an automatic payment is captured at once: capture is not-capturable, void not-voidable, refund works")
    func automatic() async throws {
        let harness = try Harness(Self.file())
        let paid = try await harness.pay(key: "a").get()
        #expect(try await harness.ledger.intent(id: paid.paymentId)?.state == .succeeded)
        #expect(try await harness.router.capture(paymentId: paid.paymentId, idempotencyKey: "c").errorCode == "not-capturable")
        #expect(try await harness.router.void(paymentId: paid.paymentId, idempotencyKey: "v").errorCode == "not-voidable")
        let refund = try await harness.router.refund(paymentId: paid.paymentId, idempotencyKey: "r")
        #expect(refund.status == .succeeded)
        #expect(refund.amount == 1000)
        #expect(try await harness.ledger.intent(id: paid.paymentId)?.state == .refunded)
    }

    @Test("an operation's key is its own: the same key again reports the same operation and sends nothing; another operation under it is refused")
    func operationKeys() async throws {
        let harness = try Harness(Self.file())
        let paid = try await harness.pay(key: "k").get()
        let first = try await harness.router.refund(paymentId: paid.paymentId, amount: 100, idempotencyKey: "refund-1")
        let again = try await harness.router.refund(paymentId: paid.paymentId, amount: 100, idempotencyKey: "refund-1")
        #expect(first == again)
        #expect(try await harness.ledger.intent(id: paid.paymentId)?.operations.count == 1)
        let other = try await harness.router.refund(paymentId: paid.paymentId, amount: 200, idempotencyKey: "refund-1")
        #expect(other.errorCode == "idempotency-key-reused")
        #expect(try await harness.ledger.intent(id: paid.paymentId)?.balance?.refunded == 100)
    }

    @Test("a refund the processor refuses releases its reservation and writes refund.failed")
    func refusedRefund() async throws {
        let harness = try Harness(Self.file(behaviour: #"{"refund": ["processor-error", "succeed"]}"#))
        let paid = try await harness.pay(key: "f").get()
        let failed = try await harness.router.refund(paymentId: paid.paymentId, idempotencyKey: "r1")
        #expect(failed.status == .failed)
        #expect(failed.errorCode == "96")
        #expect(try await harness.ledger.intent(id: paid.paymentId)?.balance?.refunded == 0)
        #expect(try await harness.router.refund(paymentId: paid.paymentId, idempotencyKey: "r2").status == .succeeded)
        #expect(try await Self.events(harness, paid.paymentId) == ["payment.succeeded", "refund.failed", "refund.succeeded"])
    }

    @Test("a refund whose answer is lost after the processor applied it stays unknown, holds its amount, and reconcile settles it through the processor's status")
    func refundTimeoutAfterSuccess() async throws {
        let harness = try Harness(Self.file(behaviour: #"{"refund": "timeout-after-charge", "operationStatus": ["network-error", "succeed"]}"#))
        let paid = try await harness.pay(key: "t").get()
        let unknown = try await harness.router.refund(paymentId: paid.paymentId, amount: 400, idempotencyKey: "r1")
        #expect(unknown.status == .unknown)
        #expect(unknown.errorCode == "outcome-unknown")
        #expect(try await harness.ledger.intent(id: paid.paymentId)?.balance?.refunded == 400)
        // The reservation holds while the outcome is unknown: 601 more would exceed the captured 1000.
        #expect(try await harness.router.refund(paymentId: paid.paymentId, amount: 601, idempotencyKey: "r2").errorCode
                == "amount-exceeds-captured")
        let report = try await harness.router.reconcile()
        #expect(report.operations.map(\.to) == [.succeeded])
        #expect(report.stillOpen == 0)
        let intent = try #require(try await harness.ledger.intent(id: paid.paymentId))
        #expect(intent.state == .partiallyRefunded)
        #expect(intent.refundedAmount == 400)
    }

    @Test("a late refund failure: accepted as pending, then the bank refuses it; reconcile records refund.failed and gives the amount back to refund")
    func lateRefundFailure() async throws {
        let harness = try Harness(Self.file(behaviour: #"{"refund": ["late-failure", "succeed"]}"#))
        let paid = try await harness.pay(key: "late").get()
        let pending = try await harness.router.refund(paymentId: paid.paymentId, idempotencyKey: "r1")
        #expect(pending.status == .pending)
        #expect(try await harness.ledger.intent(id: paid.paymentId)?.state == .succeeded)
        let report = try await harness.router.reconcile()
        #expect(report.operations.map(\.to) == [.failed])
        let intent = try #require(try await harness.ledger.intent(id: paid.paymentId))
        #expect(intent.balance?.refunded == 0)
        #expect(intent.operations.first?.rawCode == "refund-failed")
        #expect(try await Self.events(harness, paid.paymentId) == ["payment.succeeded", "refund.failed"])
        #expect(try await harness.router.refund(paymentId: paid.paymentId, idempotencyKey: "r2").status == .succeeded)
    }

    @Test("the storage itself refuses refunds above the captured amount, whatever the code above it checks")
    func constraintInTheStorage() async throws {
        let harness = try Harness(Self.file())
        let paid = try await harness.pay(key: "c").get()
        let error = await #expect(throws: LedgerError.self) {
            try await harness.ledger.storage.write { transaction in
                try transaction.saveBalance(intentId: paid.paymentId, PaymentBalance(authorized: 1000, captured: 1000, refunded: 1001))
            }
        }
        #expect(error?.code == .amountExceedsCaptured)
        #expect(try await harness.ledger.intent(id: paid.paymentId)?.balance?.refunded == 0)
    }

    /// 20 refunds of 100 at once on a payment of 1000, over `ledger`: exactly 10 succeed.
    static func concurrentRefunds(router: PaymentRouter, ledger: PaymentLedger, paymentId: String) async throws {
        let results = await withTaskGroup(of: OperationResult?.self) { group in
            for index in 0..<20 {
                group.addTask { try? await router.refund(paymentId: paymentId, amount: 100, idempotencyKey: "cr-\(index)") }
            }
            var all: [OperationResult] = []
            for await result in group { if let result { all.append(result) } }
            return all
        }
        #expect(results.count == 20)
        #expect(results.filter { $0.status == .succeeded }.count == 10)
        #expect(results.filter { $0.status == .failed }.allSatisfy { $0.errorCode == "amount-exceeds-captured" })
        let intent = try #require(try await ledger.intent(id: paymentId))
        #expect(intent.refundedAmount == 1000)
        #expect(intent.balance?.refunded == 1000)
        #expect(intent.state == .refunded)
    }

    @Test("20 concurrent refunds of 100 on a captured 1000 (SQLite): exactly 10 go through, the rest are amount-exceeds-captured")
    func concurrentRefundsOnSQLite() async throws {
        let harness = try Harness(Self.file())
        let paid = try await harness.pay(key: "cc").get()
        try await Self.concurrentRefunds(router: harness.router, ledger: harness.ledger, paymentId: paid.paymentId)
    }

    @Test("a routing file's capture must be automatic or manual, at its JSON path")
    func captureMember() {
        let error = #expect(throws: RoutingFileError.self) {
            _ = try RoutingFileLoader.load(Array(Self.file(capture: "later").utf8))
        }
        #expect(error?.description.contains("$.routes[0].capture: must be one of automatic, manual") == true)
    }

    @Test("a key reused with another capture mode is another payment: refused")
    func captureModeIsPartOfThePayment() async throws {
        let harness = try Harness(Self.file())
        _ = try await harness.pay(key: "mode").get()
        let session = Harness.session()
        let token = try await harness.router.tokenize(.card(CardDetails(number: Harness.visa, cvv: "123", expiryMonth: 12, expiryYear: 2030,
                                                                        network: .visa)), session: session)
        let error = await #expect(throws: CheckoutError.self) {
            _ = try await harness.router.createPayment(CreatePaymentRequest(token: token, session: session, idempotencyKey: "mode"),
                                                       capture: .manual)
        }
        #expect(error?.code == .idempotencyKeyReused)
    }
}

extension LifecycleTests {
    @Test("a payment that succeeded before the ledger kept balances can still be refunded, up to its amount")
    func refundAPaymentFromBeforeBalances() async throws {
        let harness = try Harness(Self.file())
        let paid = try await harness.pay(key: "old").get()
        // What a ledger migrated from before ledger-3 holds: the intent, no balance row.
        try await harness.ledger.storage.write { transaction in
            try (transaction as? SQLiteLedgerTransaction)?.database.execute("DELETE FROM payment_balance")
        }
        #expect(try await harness.ledger.intent(id: paid.paymentId)?.balance == nil)
        #expect(try await harness.router.refund(paymentId: paid.paymentId, amount: 1001, idempotencyKey: "r0").errorCode
                == "amount-exceeds-captured")
        let refund = try await harness.router.refund(paymentId: paid.paymentId, idempotencyKey: "r1")
        #expect(refund.status == .succeeded)
        #expect(refund.amount == 1000)
        #expect(try await harness.ledger.intent(id: paid.paymentId)?.state == .refunded)
    }
}
