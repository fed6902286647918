import CheckoutCore
@testable import CheckoutOrchestration
import Foundation
import Testing

/// The decline taxonomy drives the fallback; fraud and lost/stolen never fall back; 3-D Secure
/// results travel to the fallback.
@Suite struct FallbackTests {
    static func threeProcessors(a: String, b: String = "{}", c: String = "{}", fallbackOn: String) -> String {
        """
        { "processors": [ { "name": "psp-a", "kind": "sandbox", "behaviour": \(a) },
                          { "name": "psp-b", "kind": "sandbox", "behaviour": \(b) },
                          { "name": "psp-c", "kind": "sandbox", "behaviour": \(c) } ],
          "routes": [ { "name": "eur-cards", "when": { "methodType": ["PAYMENT_CARD"], "currency": ["EUR"] },
                        "processors": ["psp-a", "psp-b", "psp-c"], "fallbackOn": \(fallbackOn) },
                      { "name": "default", "processors": ["psp-c"] } ] }
        """
    }

    @Test("a processor error falls back to the next processor, which charges once")
    func fallbackAfterProcessorError() async throws {
        let harness = try Harness(Self.threeProcessors(a: #"{"createPayment": "processor-error"}"#,
                                                       fallbackOn: #"["processor-error", "network-error"]"#))
        let response = try await harness.pay(key: "order-1").get()
        #expect(response.status == .succeeded)
        let intent = try #require(try await harness.ledger.intent(id: response.paymentId))
        #expect(intent.state == .succeeded)
        #expect(intent.route == "eur-cards")
        #expect(intent.attempts.map(\.processor) == ["psp-a", "psp-b"])
        #expect(intent.attempts.map(\.status) == [.failed, .succeeded])
        #expect(intent.attempts[0].category == .processorError)
        #expect(intent.attempts[0].rawCode == "96")
        #expect(harness.sandboxes["psp-a"]?.chargeCount == 0)
        #expect(harness.sandboxes["psp-b"]?.chargeCount == 1)
        #expect(harness.sandboxes["psp-c"]?.createCallCount == 0)
        #expect(try await harness.ledger.events(paymentId: intent.id).map(\.type) == ["payment.succeeded"])
    }

    @Test("a network error before sending falls back; each attempt has its own key derived from the stable key")
    func networkErrorKeys() async throws {
        let harness = try Harness(Self.threeProcessors(a: #"{"createPayment": "network-error"}"#,
                                                       fallbackOn: #"["network-error"]"#))
        let response = try await harness.pay(key: "order-keys").get()
        let intent = try #require(try await harness.ledger.intent(id: response.paymentId))
        #expect(intent.attempts.map(\.idempotencyKey)
                == [AttemptKey.derive(paymentKey: LedgerText.stableKeyDigest("order-keys"), processor: "psp-a"),
                    AttemptKey.derive(paymentKey: LedgerText.stableKeyDigest("order-keys"), processor: "psp-b")])
        #expect(intent.stableKey == LedgerText.stableKeyDigest("order-keys"))
        #expect(Set(intent.attempts.map(\.idempotencyKey)).count == 2)
        #expect(intent.attempts[0].category == .networkError)
    }

    @Test("suspected fraud and lost-or-stolen never fall back on a route that falls back on everything it may",
          arguments: [DeclineCategory.suspectedFraud, .lostOrStolen])
    func noFallbackAfterFraud(category: DeclineCategory) async throws {
        let harness = try Harness(Self.threeProcessors(a: "{\"createPayment\": \"\(category.rawValue)\"}",
                                                       fallbackOn: #"["processor-error", "soft-decline", "issuer-unavailable"]"#))
        let response = try await harness.pay(key: "order-fraud").get()
        #expect(response.status == .declined)
        #expect(response.reason == category.rawValue)
        #expect(harness.sandboxes["psp-b"]?.createCallCount == 0)
        #expect(harness.sandboxes["psp-c"]?.createCallCount == 0)
        let intent = try #require(try await harness.ledger.intent(id: response.paymentId))
        #expect(intent.state == .failed)
        #expect(intent.attempts.map(\.category) == [category])
    }

    @Test("a route built in code that lists fraud in fallbackOn still does not fall back")
    func fraudIgnoredInCode() async throws {
        let harness = try Harness(Self.threeProcessors(a: #"{"createPayment": "suspected-fraud"}"#, fallbackOn: "[]"))
        var file = harness.router.file
        file.routes[0].fallbackOn = Set(DeclineCategory.allCases)
        let router = try PaymentRouter(file: file, processors: harness.sandboxes, ledger: harness.ledger)
        let session = Harness.session()
        let token = try await router.tokenize(.card(CardDetails(number: Harness.visa, cvv: "123", expiryMonth: 1, expiryYear: 2031,
                                                                network: .visa)), session: session)
        let response = try await router.createPayment(CreatePaymentRequest(token: token, session: session, idempotencyKey: "k"))
        #expect(response.status == .declined)
        #expect(harness.sandboxes["psp-b"]?.createCallCount == 0)
    }

    @Test("a category outside fallbackOn stops the route: a hard decline is final")
    func hardDeclineStops() async throws {
        let harness = try Harness(Self.threeProcessors(a: #"{"createPayment": "hard-decline"}"#, fallbackOn: #"["processor-error"]"#))
        let response = try await harness.pay(key: "order-hard").get()
        #expect(response.status == .declined)
        #expect(response.reason == "hard-decline")
        #expect(harness.sandboxes["psp-b"]?.createCallCount == 0)
    }

    @Test("the 3-D Secure result of the first attempt goes to the fallback: the shopper authenticates once")
    func threeDSCarried() async throws {
        let harness = try Harness(Self.threeProcessors(
            a: #"{"createPayment": "authentication-required", "resumePayment": "processor-error"}"#,
            b: #"{"createPayment": "authentication-required"}"#, fallbackOn: #"["processor-error"]"#))
        let first = try await harness.pay(key: "order-3ds").get()
        #expect(first.status == .pending)
        guard case .challenge? = first.requiredAction else {
            Issue.record("expected a challenge, got \(String(describing: first.requiredAction))")
            return
        }
        let intentId = first.paymentId
        #expect(try await harness.ledger.intent(id: intentId)?.state == .requiresAction)
        let final = try await harness.router.resumePayment(paymentId: intentId, resumeToken: "challenge-success")
        #expect(final.status == .succeeded)
        #expect(final.requiredAction == nil)
        let intent = try #require(try await harness.ledger.intent(id: intentId))
        #expect(intent.attempts.map(\.processor) == ["psp-a", "psp-b"])
        #expect(intent.attempts[0].category == .processorError)
        let carried = try #require(intent.attempts[1].authentication)
        #expect(carried == intent.attempts[0].authentication)
        #expect(harness.sandboxes["psp-b"]?.chargeCount == 1)
        #expect(try await harness.ledger.events(paymentId: intentId).map(\.type) == ["payment.requires_action", "payment.succeeded"])
    }

    @Test("a retry of the same payment (same stable key) charges nothing more")
    func idempotentRetry() async throws {
        let harness = try Harness(Self.threeProcessors(a: "{}", fallbackOn: "[]"))
        let first = try await harness.pay(key: "order-twice").get()
        let second = try await harness.pay(key: "order-twice").get()
        #expect(first.paymentId == second.paymentId)
        #expect(second.status == .succeeded)
        #expect(harness.totalCharges == 1)
        #expect(try await harness.ledger.intents().count == 1)
    }
}
