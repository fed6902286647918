import CheckoutCore
import CheckoutCoreTesting
@testable import CheckoutOrchestration
import Foundation
import Testing

/// The circuit per processor opens under a scripted failure rate and closes after a probe.
@Suite struct BreakerTests {
    static func file(script: String, breaker: String) -> String {
        """
        { "processors": [ { "name": "psp-a", "kind": "sandbox", "behaviour": { "createPayment": \(script) } },
                          { "name": "psp-b", "kind": "sandbox" } ],
          "routes": [ { "name": "all", "processors": ["psp-a", "psp-b"], "fallbackOn": ["processor-error"] } ],
          "breaker": \(breaker) }
        """
    }

    @Test("consecutive failures open the circuit; the skip shows in the ledger and in explain; one probe after the cool-down closes it")
    func consecutive() async throws {
        let harness = try Harness(Self.file(script: #"["processor-error", "processor-error", "processor-error", "processor-error", "succeed"]"#,
                                            breaker: #"{"consecutiveFailures": 3, "failureRate": 0, "window": 10, "coolDownSeconds": 30}"#))
        for index in 0..<3 { #expect(try await harness.pay(key: "c\(index)").get().status == .succeeded) }
        #expect(harness.sandboxes["psp-a"]?.createCallCount == 3)
        // Open: psp-a is skipped, visibly.
        let skipped = try await harness.pay(key: "c3").get()
        #expect(harness.sandboxes["psp-a"]?.createCallCount == 3)
        let intent = try #require(try await harness.ledger.intent(id: skipped.paymentId))
        #expect(intent.attempts.map(\.status) == [.skipped, .succeeded])
        #expect(intent.attempts[0].note == "circuit-open")
        let facts = RoutingFacts(methodType: "PAYMENT_CARD", currency: "EUR", amount: 1000)
        let explanation = harness.router.explain(facts)
        #expect(explanation.steps.map(\.skipped) == [true, false])
        #expect(explanation.steps[0].skippedUntil == harness.clock.wallClock.now.addingTimeInterval(30))
        // Cool-down over: one probe, which fails (script call 4): open again.
        harness.clock.advance(by: .seconds(31))
        _ = try await harness.pay(key: "c4").get()
        #expect(harness.sandboxes["psp-a"]?.createCallCount == 4)
        _ = try await harness.pay(key: "c5").get()
        #expect(harness.sandboxes["psp-a"]?.createCallCount == 4)
        // Next probe succeeds: closed, traffic flows again.
        harness.clock.advance(by: .seconds(31))
        #expect(try await harness.pay(key: "c6").get().status == .succeeded)
        #expect(harness.breakerState("psp-a") == .closed)
        _ = try await harness.pay(key: "c7").get()
        #expect(harness.sandboxes["psp-a"]?.createCallCount == 6)
        #expect(harness.router.explain(facts).steps.map(\.skipped) == [false, false])
    }

    @Test("a failure rate over the window opens the circuit even without a run of failures")
    func rate() async throws {
        // Alternating failure/success: never 2 in a row, but 50 % over a window of 6.
        let script = "[" + Array(repeating: #""processor-error", "succeed""#, count: 10).joined(separator: ", ") + "]"
        let harness = try Harness(Self.file(script: script,
                                            breaker: #"{"consecutiveFailures": 0, "failureRate": 0.5, "window": 6, "coolDownSeconds": 10}"#))
        // F S F S F S: 3 of 6, but the circuit only opens on a failure that reaches the rate.
        for index in 0..<7 { _ = try await harness.pay(key: "r\(index)").get() }
        #expect(harness.sandboxes["psp-a"]?.createCallCount == 7)
        if case .open = harness.breakerState("psp-a") {} else { Issue.record("expected the circuit open, got \(harness.breakerState("psp-a"))") }
        _ = try await harness.pay(key: "r7").get()
        #expect(harness.sandboxes["psp-a"]?.createCallCount == 7)
        harness.clock.advance(by: .seconds(11))
        _ = try await harness.pay(key: "r8").get() // the probe: script call 7 succeeds -> closed
        #expect(harness.breakerState("psp-a") == .closed)
        #expect(harness.sandboxes["psp-a"]?.createCallCount == 8)
    }

    @Test("the breaker state machine: half-open admits one probe and skips the rest")
    func halfOpenSingleProbe() {
        var breaker = CircuitBreaker(policy: BreakerPolicy(consecutiveFailures: 1, failureRate: 0, window: 5, coolDownSeconds: 5))
        let start = Date(timeIntervalSince1970: 0)
        #expect(breaker.admit(now: start) == .allowed)
        breaker.record(failure: true, now: start)
        #expect(breaker.admit(now: start.addingTimeInterval(1)) == .skipped(until: start.addingTimeInterval(5)))
        #expect(breaker.admit(now: start.addingTimeInterval(5)) == .probe)
        #expect(breaker.admit(now: start.addingTimeInterval(5)) == .skipped(until: nil))
        breaker.record(failure: false, now: start.addingTimeInterval(6))
        #expect(breaker.state == .closed)
        #expect(breaker.admit(now: start.addingTimeInterval(6)) == .allowed)
    }

    @Test("a new router on the same ledger rebuilds the circuits from the recorded attempts")
    func restoredFromLedger() async throws {
        let harness = try Harness(Self.file(script: #""processor-error""#,
                                            breaker: #"{"consecutiveFailures": 2, "failureRate": 0, "window": 5, "coolDownSeconds": 60}"#))
        for index in 0..<2 { _ = try await harness.pay(key: "p\(index)").get() }
        let fresh = try PaymentRouter(file: harness.router.file, processors: harness.sandboxes, ledger: harness.ledger,
                                      clock: harness.clock.wallClock)
        #expect(fresh.breakers.state("psp-a") == .closed)
        try await fresh.restoreCircuits()
        if case .open = fresh.breakers.state("psp-a") {} else { Issue.record("expected the restored circuit open") }
    }
}

extension Harness {
    func breakerState(_ name: String) -> CircuitBreaker.State { router.breakers.state(name) }
}
