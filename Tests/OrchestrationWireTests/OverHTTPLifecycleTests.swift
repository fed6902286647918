import CheckoutCore
import CheckoutOrchestration
import Foundation
import Testing

/// Capture, void and refund end to end through `sandbox-psp` child processes over HTTP.
@Suite(.timeLimit(.minutes(5))) struct OverHTTPLifecycleTests {
    static let routes = """
        [ { "name": "manual", "when": { "currency": ["EUR"] }, "processors": ["psp-a"], "capture": "manual" },
          { "name": "auto", "processors": ["psp-a"] } ]
        """

    @Test("over HTTP: authorize only, capture part, refund in two parts, the processor's money matching the ledger's")
    func captureThenRefund() async throws {
        let harness = try await OverHTTPScenarioTests.HTTPHarness.start(names: ["psp-a"], behaviours: [:], routes: Self.routes)
        defer { Task { await harness.stop() } }
        let paid = try await harness.pay(key: "h-life").get()
        #expect(paid.status == .succeeded)
        #expect(try await harness.ledger.intent(id: paid.paymentId)?.state == .requiresCapture)
        #expect(try await harness.ledgers()["psp-a"]?.charges == 0)
        let captured = try await harness.router.capture(paymentId: paid.paymentId, amount: 800, idempotencyKey: "cap-1")
        #expect(captured.status == .succeeded)
        #expect(captured.captured == 800)
        #expect(try await harness.ledgers()["psp-a"]?.charges == 1)
        // The processor refuses a second capture on its own, too: a retry under a new key.
        let again = try await harness.router.capture(paymentId: paid.paymentId, idempotencyKey: "cap-2")
        #expect(again.errorCode == "not-capturable")
        #expect(try await harness.router.refund(paymentId: paid.paymentId, amount: 300, idempotencyKey: "ref-1").status == .succeeded)
        #expect(try await harness.router.refund(paymentId: paid.paymentId, amount: 501, idempotencyKey: "ref-2").errorCode
                == "amount-exceeds-captured")
        let rest = try await harness.router.refund(paymentId: paid.paymentId, idempotencyKey: "ref-3")
        #expect(rest.status == .succeeded)
        #expect(rest.amount == 500)
        #expect(rest.refunded == 800)
        let intent = try #require(try await harness.ledger.intent(id: paid.paymentId))
        #expect(intent.state == .refunded)
        #expect(try await harness.ledger.events(paymentId: paid.paymentId).map(\.type)
                == ["payment.requires_capture", "payment.captured", "refund.succeeded", "refund.succeeded"])
    }

    @Test("over HTTP: void an authorization; the processor then refuses a capture as already-voided")
    func voidThenCapture() async throws {
        let harness = try await OverHTTPScenarioTests.HTTPHarness.start(names: ["psp-a"], behaviours: [:], routes: Self.routes)
        defer { Task { await harness.stop() } }
        let paid = try await harness.pay(key: "h-void").get()
        #expect(try await harness.router.void(paymentId: paid.paymentId, idempotencyKey: "v-1").status == .succeeded)
        #expect(try await harness.ledger.intent(id: paid.paymentId)?.state == .voided)
        #expect(try await harness.router.capture(paymentId: paid.paymentId, idempotencyKey: "c-1").errorCode == "already-voided")
        // Straight at the processor, under a key the ledger never saw: the processor refuses too.
        let processor = try #require(harness.router.processors["psp-a"])
        let held = try #require(try await harness.ledger.intent(id: paid.paymentId)?.authorizingAttempt?.processorPaymentId)
        let answer = try await processor.perform(OperationRequest(kind: .capture, paymentId: held, amount: 1000, currency: "EUR",
                                                                  idempotencyKey: "direct"))
        #expect(answer.status == .failed)
        #expect(answer.rawCode == "already-voided")
        #expect(try await harness.ledgers()["psp-a"]?.charges == 0)
    }

    @Test("over HTTP: a refund whose answer times out after the processor applied it, and whose first status call fails, is unknown; reconcile finds it succeeded")
    func refundTimeoutThenReconcile() async throws {
        let harness = try await OverHTTPScenarioTests.HTTPHarness.start(
            names: ["psp-a"], behaviours: ["psp-a": #"{"refund": "timeout-after-charge", "operationStatus": ["network-error", "succeed"]}"#], routes: Self.routes)
        defer { Task { await harness.stop() } }
        let session = HTTPPaymentProcessorTests.session()
        let token = try await harness.router.tokenize(.card(HTTPPaymentProcessorTests.card), session: session)
        let paid = try await harness.router.createPayment(CreatePaymentRequest(token: token, session: session, idempotencyKey: "h-t"),
                                                          capture: .automatic)
        let refund = try await harness.router.refund(paymentId: paid.paymentId, amount: 250, idempotencyKey: "r")
        #expect(refund.status == .unknown)
        let report = try await harness.router.reconcile()
        #expect(report.operations.map(\.to) == [.succeeded])
        #expect(try await harness.ledger.intent(id: paid.paymentId)?.state == .partiallyRefunded)
    }
}
