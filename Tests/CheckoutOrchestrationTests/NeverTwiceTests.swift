import CheckoutCore
import CheckoutCoreTesting
import CheckoutLocking
import CheckoutTestSupport
@testable import CheckoutOrchestration
import Foundation
import Testing

/// An unknown outcome is asked about first, never sent elsewhere, and reconciled.
@Suite struct NeverTwiceTests {
    static func file(a: String) -> String {
        """
        { "processors": [ { "name": "psp-a", "kind": "sandbox", "behaviour": \(a) },
                          { "name": "psp-b", "kind": "sandbox" }, { "name": "psp-c", "kind": "sandbox" } ],
          "routes": [ { "name": "all", "processors": ["psp-a", "psp-b", "psp-c"],
                        "fallbackOn": ["processor-error", "network-error", "issuer-unavailable", "soft-decline"] } ] }
        """
    }

    @Test("a timeout after the charge is settled by the status call at once: succeeded, one charge")
    func timeoutSettledByStatus() async throws {
        let harness = try Harness(Self.file(a: #"{"createPayment": "timeout-after-charge"}"#))
        let response = try await harness.pay(key: "order-t1").get()
        #expect(response.status == .succeeded)
        #expect(harness.totalCharges == 1)
        #expect(harness.sandboxes["psp-b"]?.createCallCount == 0)
        let intent = try #require(try await harness.ledger.intent(id: response.paymentId))
        #expect(intent.attempts.map(\.note) == ["settled-by-status-call"])
    }

    @Test("a timeout after the charge with the status call down stays unknown, goes nowhere else, and is reconciled to succeeded")
    func timeoutReconciled() async throws {
        let harness = try Harness(Self.file(a: #"{"createPayment": "timeout-after-charge", "attemptStatus": ["network-error", "succeed"]}"#))
        let result = await harness.pay(key: "order-t2")
        guard case .failure(let error) = result, let checkout = error as? CheckoutError else {
            Issue.record("expected the unknown outcome to be reported, got \(result)")
            return
        }
        #expect(checkout.code == .networkError)
        let intent = try #require(try await harness.ledger.intents().first)
        #expect(intent.state == .unknown)
        #expect(intent.attempts.map(\.status) == [.unknown])
        #expect(harness.sandboxes["psp-b"]?.createCallCount == 0)
        #expect(harness.sandboxes["psp-c"]?.createCallCount == 0)
        // The ledger itself refuses a second attempt while the first is unknown.
        await #expect(throws: LedgerError.self) {
            _ = try await harness.ledger.startAttempt(intentId: intent.id, processor: "psp-b", idempotencyKey: "x")
        }

        let report = try await harness.router.reconcile()
        #expect(report.entries == [.init(intentId: intent.id, from: .unknown, to: .succeeded)])
        let settled = try #require(try await harness.ledger.intent(id: intent.id))
        #expect(settled.state == .succeeded)
        #expect(settled.attempts.map(\.status) == [.succeeded])
        #expect(harness.totalCharges == 1)
        #expect(harness.sandboxes["psp-a"]?.chargesByKey.values.allSatisfy { $0 == 1 } == true)
        #expect(try await harness.ledger.events(paymentId: intent.id).map(\.type)
                == ["payment.unknown", "payment.reconciled", "payment.succeeded"])
        #expect(try await harness.router.reconcile().entries.isEmpty)
    }

    @Test("a retry with the same key while unknown asks the same processor's status, never another processor")
    func retryWhileUnknown() async throws {
        let harness = try Harness(Self.file(a: #"{"createPayment": "timeout-after-charge", "attemptStatus": ["network-error", "network-error", "succeed"]}"#))
        _ = await harness.pay(key: "order-t3")
        _ = await harness.pay(key: "order-t3")
        #expect(harness.sandboxes["psp-b"]?.createCallCount == 0)
        let third = try await harness.pay(key: "order-t3").get()
        #expect(third.status == .succeeded)
        #expect(harness.totalCharges == 1)
        #expect(harness.sandboxes["psp-a"]?.createCallCount == 1)
    }

    @Test("a status call that finds nothing right after sending proves nothing: unknown, never sent elsewhere; failed only after the grace")
    func notFoundSoonAfterSendingStaysUnknown() async throws {
        // A processor that throws after "sending" and keeps no record: the status call says not found.
        // Across a process boundary the request may still be on its way and charge later, so the
        // router must not fall back on it (that is how a card gets charged twice).
        let harness = try Harness(Self.file(a: "{}"))
        let lossy = LossyProcessor(name: "psp-a")
        var processors: [String: any RoutableProcessor] = harness.sandboxes
        processors["psp-a"] = lossy
        let router = try PaymentRouter(file: harness.router.file, processors: processors, ledger: harness.ledger,
                                       clock: harness.clock.wallClock, notFoundGrace: 60)
        let session = Harness.session()
        let token = try await router.tokenize(.card(CardDetails(number: Harness.visa, cvv: "123", expiryMonth: 1, expiryYear: 2031)),
                                              session: session)
        let error = await #expect(throws: CheckoutError.self) {
            try await router.createPayment(CreatePaymentRequest(token: token, session: session, idempotencyKey: "lost"))
        }
        #expect(error?.message.contains("unknown") == true)
        let id = try #require(try await harness.ledger.intents(limit: 10).first?.id)
        var intent = try #require(try await harness.ledger.intent(id: id))
        #expect(intent.state == .unknown)
        #expect(intent.attempts.map(\.processor) == ["psp-a"], "never sent to psp-b while psp-a's outcome is unknown")
        #expect(intent.attempts[0].note == "status-call-not-found-yet")
        #expect(harness.totalCharges == 0)

        // Within the grace, reconcile asks again and leaves it unknown.
        harness.clock.advance(by: .seconds(30))
        #expect(try await router.reconcile().stillOpen == 1)
        #expect(try await harness.ledger.intent(id: id)?.state == .unknown)

        // Past the grace, "not found" is proof: failed, and a reconcile never sends it elsewhere.
        harness.clock.advance(by: .seconds(31))
        let report = try await router.reconcile()
        #expect(report.stillOpen == 0)
        intent = try #require(try await harness.ledger.intent(id: id))
        #expect(intent.state == .failed)
        #expect(intent.attempts.map(\.processor) == ["psp-a"])
        #expect(intent.attempts[0].note == "status-call-not-found")
        #expect(lossy.statusCalls.withLock { $0 } == 3)
        #expect(harness.totalCharges == 0)
    }
}

/// A processor whose requests vanish: every create throws "outcome unknown", its status call finds nothing.
final class LossyProcessor: ForwardingProcessor {
    let base: ScriptedSandboxProcessor
    let statusCalls = Locked(0)

    init(name: String) {
        base = ScriptedSandboxProcessor(name: name)
    }

    func createAttempt(_ request: AttemptRequest) async throws -> PaymentResponse {
        throw AttemptFailure(rawCode: "TIMEOUT", sent: true, message: "connection cut")
    }

    func attemptStatus(idempotencyKey: String) async throws -> AttemptLookup {
        statusCalls.withLock { $0 += 1 }
        return .notFound
    }
}
