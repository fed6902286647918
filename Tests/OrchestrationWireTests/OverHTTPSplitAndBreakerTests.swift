import CheckoutCoreTesting
import CheckoutOrchestration
import CheckoutTestSupport
import CheckoutVaultTesting
import Foundation
import Testing

/// The weighted split and the circuit breaker with the processors in `sandbox-psp` processes,
/// counted at the processors (their `GET /v1/sandbox/ledger`), not only in the router's ledger.
@Suite(.timeLimit(.minutes(5))) struct OverHTTPSplitAndBreakerTests {
    typealias HTTPHarness = OverHTTPScenarioTests.HTTPHarness

    @Test("10,000 payments over HTTP follow the weights within 2 points at the processors, each charged where the ledger says")
    func weightedSplitOverHTTP() async throws {
        let seed = TestSeed.seed(18_011, for: "weightedSplitOverHTTP")
        let harness = try await HTTPHarness.start(behaviours: [:], routes: """
            [ { "name": "split", "processors": ["psp-a", "psp-b", "psp-c"], "weights": { "psp-a": 60, "psp-b": 30, "psp-c": 10 } } ]
            """, picker: WeightedPicker(seed: seed))
        defer { Task { await harness.stop() } }
        var random = SeededRandom(seed: seed)
        let count = 10_000
        let keys = (0..<count).map { _ in "order-\(random.next())" }
        let lanes = 8
        let succeeded = try await withThrowingTaskGroup(of: Int.self) { group in
            for lane in 0..<lanes {
                group.addTask {
                    var succeeded = 0
                    for index in stride(from: lane, to: count, by: lanes) {
                        if try await harness.pay(key: keys[index]).get().status == .succeeded { succeeded += 1 }
                    }
                    return succeeded
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(succeeded == count)

        let ledgers = try await harness.ledgers()
        let names = ["psp-a", "psp-b", "psp-c"]
        let charges = names.map { ledgers[$0]?.charges ?? 0 }
        #expect(charges.reduce(0, +) == count)
        #expect(names.map { ledgers[$0]?.createCalls ?? 0 } == charges, "a payment reached more than one processor")
        for (share, expected) in zip(charges.map { Double($0) / Double(count) }, [0.6, 0.3, 0.1]) {
            #expect(abs(share - expected) < 0.02, "share \(share), expected \(expected) (seed \(seed))")
        }
        // The router's view agrees with the processors', payment by payment.
        let intents = try await harness.ledger.intents(limit: count + 1)
        #expect(intents.count == count)
        var misplaced = 0
        for intent in intents {
            guard let processor = intent.attempts.first?.processor, intent.attempts.count == 1,
                  ledgers[processor]?.chargesByKey[AttemptKey.derive(paymentKey: intent.stableKey, processor: processor)] == 1
            else { misplaced += 1; continue }
        }
        #expect(misplaced == 0)
    }

    @Test("over HTTP, a scripted failure rate opens psp-a's circuit (skipped, not called), and a probe after the cool-down closes it")
    func breakerOverHTTP() async throws {
        let clock = TestClock(startMillis: 1_800_000_000_000)
        // Alternating failure/success: never 2 in a row, but 50 % over a window of 6.
        let script = "[" + Array(repeating: #""processor-error", "succeed""#, count: 10).joined(separator: ", ") + "]"
        let harness = try await HTTPHarness.start(
            names: ["psp-a", "psp-b"], behaviours: ["psp-a": #"{"createPayment": \#(script)}"#],
            routes: #"[ { "name": "all", "processors": ["psp-a", "psp-b"], "fallbackOn": ["processor-error"] } ]"#,
            breaker: #"{"consecutiveFailures": 0, "failureRate": 0.5, "window": 6, "coolDownSeconds": 10}"#,
            clock: clock.wallClock)
        defer { Task { await harness.stop() } }
        func calls() async throws -> Int { try await harness.servers["psp-a"]!.ledger().createCalls }

        // F S F S F S F: the seventh call is a failure with 3 of the last 6 failed, the circuit opens.
        for index in 0..<7 { #expect(try await harness.pay(key: "r\(index)").get().status == .succeeded) }
        #expect(try await calls() == 7)
        let skipped = try await harness.pay(key: "r7").get()
        #expect(try await calls() == 7, "an open circuit still sent psp-a the payment")
        let intent = try #require(try await harness.ledger.intent(id: skipped.paymentId))
        #expect(intent.attempts.map(\.status) == [.skipped, .succeeded])
        #expect(intent.attempts.first?.note == "circuit-open")
        let facts = RoutingFacts(methodType: "PAYMENT_CARD", currency: "EUR", amount: 1000)
        #expect(harness.router.explain(facts).steps.map(\.skipped) == [true, false])

        // The cool-down over, one probe (script call 8 succeeds) closes the circuit; traffic flows again.
        clock.advance(by: .seconds(11))
        #expect(try await harness.pay(key: "r8").get().status == .succeeded)
        #expect(try await calls() == 8)
        #expect(harness.router.explain(facts).steps.map(\.skipped) == [false, false])
        #expect(try await harness.pay(key: "r9").get().status == .succeeded) // script call 9 fails, psp-b charges
        #expect(try await calls() == 9)

        let ledgers = try await harness.ledgers()
        #expect(ledgers.values.map(\.charges).reduce(0, +) == 10, "every payment charged once across psp-a and psp-b")
        #expect(ledgers["psp-b"]?.createCalls == 6, "psp-b took psp-a's five failures and the skip")
    }
}
