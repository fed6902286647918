import CheckoutCore
import CheckoutCoreTesting
import CheckoutLocking
@testable import CheckoutOrchestration
import Foundation
import Testing

/// Safety by construction: a shopper who failed 3-D Secure is never charged elsewhere, a key reused
/// for another payment is refused, and concurrent calls with one key agree on one result.
@Suite struct PaymentSafetyTests {
    static func twoProcessors(a: String, b: String = "{}", fallbackOn: String = #"["processor-error"]"#,
                              aTable: String? = nil) -> String {
        let table = aTable.map { #", "declineTable": "# + $0 } ?? ""
        return """
            { "processors": [ { "name": "psp-a", "kind": "sandbox", "behaviour": \(a)\(table) },
                              { "name": "psp-b", "kind": "sandbox", "behaviour": \(b) } ],
              "routes": [ { "name": "all", "processors": ["psp-a", "psp-b"], "fallbackOn": \(fallbackOn) } ] }
            """
    }

    /// A router over `harness`'s processors and ledger whose only route falls back on every category.
    static func fallBackOnEverything(_ harness: Harness) throws -> PaymentRouter {
        var file = harness.router.file
        file.routes[0].fallbackOn = Set(DeclineCategory.allCases)
        return try PaymentRouter(file: file, processors: harness.sandboxes, ledger: harness.ledger, clock: harness.clock.wallClock)
    }

    static func payAndFailChallenge(_ router: PaymentRouter, key: String) async throws -> PaymentResponse {
        let session = Harness.session()
        let token = try await router.tokenize(.card(CardDetails(number: Harness.visa, cvv: "123", expiryMonth: 1, expiryYear: 2031,
                                                                network: .visa)), session: session)
        let first = try await router.createPayment(CreatePaymentRequest(token: token, session: session, idempotencyKey: key))
        #expect(first.status == .pending)
        return try await router.resumePayment(paymentId: first.paymentId, resumeToken: "challenge-failed")
    }

    @Test("a failed 3-D Secure challenge is authentication-failed and never reaches the next processor, even where a route built in code falls back on every category")
    func failedChallengeNeverFallsBack() async throws {
        let harness = try Harness(Self.twoProcessors(a: #"{"createPayment": "authentication-required"}"#))
        let router = try Self.fallBackOnEverything(harness)
        let final = try await Self.payAndFailChallenge(router, key: "order-3ds-fail")
        #expect(final.status == .declined)
        #expect(final.reason == "authentication-failed")
        #expect(harness.sandboxes["psp-b"]?.createCallCount == 0)
        #expect(harness.totalCharges == 0)
        let intent = try #require(try await harness.ledger.intent(id: final.paymentId))
        #expect(intent.state == .failed)
        #expect(intent.attempts.map(\.category) == [.authenticationFailed])
        #expect(intent.attempts[0].rawCode == "3DS_FAILED")
    }

    @Test("a processor whose own table calls a failed challenge a soft decline still gets authentication-failed: no authentication result after the challenge means no fallback")
    func failedChallengeWhateverTheTableSays() async throws {
        let harness = try Harness(Self.twoProcessors(a: #"{"createPayment": "authentication-required"}"#,
                                                     fallbackOn: #"["processor-error", "soft-decline"]"#,
                                                     aTable: #"{ "codes": { "1A": "authentication-required", "3DS_FAILED": "soft-decline" }, "default": "processor-error" }"#))
        let final = try await Self.payAndFailChallenge(harness.router, key: "order-3ds-soft")
        #expect(final.reason == "authentication-failed")
        #expect(harness.sandboxes["psp-b"]?.createCallCount == 0)
    }

    @Test("a challenge passed, then a processor error: the authenticated payment may still fall back, carrying its result")
    func passedChallengeMayFallBack() async throws {
        let harness = try Harness(Self.twoProcessors(a: #"{"createPayment": "authentication-required", "resumePayment": "processor-error"}"#))
        let session = Harness.session()
        let token = try await harness.router.tokenize(.card(CardDetails(number: Harness.visa, cvv: "123", expiryMonth: 1,
                                                                        expiryYear: 2031, network: .visa)), session: session)
        let first = try await harness.router.createPayment(CreatePaymentRequest(token: token, session: session, idempotencyKey: "k"))
        let final = try await harness.router.resumePayment(paymentId: first.paymentId, resumeToken: "challenge-success")
        #expect(final.status == .succeeded)
        #expect(harness.sandboxes["psp-b"]?.chargeCount == 1)
    }

    @Test("the categories that must never retry elsewhere are refused in fallbackOn, naming the JSON path",
          arguments: ["suspected-fraud", "lost-or-stolen", "hard-decline", "insufficient-funds", "authentication-failed"])
    func loaderRefusesNeverFallBack(category: String) throws {
        let json = Self.twoProcessors(a: "{}", fallbackOn: "[\"processor-error\", \"\(category)\"]")
        let error = #expect(throws: RoutingFileError.self, "\(category) in fallbackOn was accepted") {
            _ = try RoutingFileLoader.load(Array(json.utf8))
        }
        #expect(error?.description.contains("$.routes[0].fallbackOn[1]: \(category) never falls back") == true,
                "\(String(describing: error))")
        #expect(DeclineCategory.neverFallBack.contains(try #require(DeclineCategory(rawValue: category))))
    }

    @Test("every never-fall-back category stops the route at the first processor, whatever a route built in code says",
          arguments: ["suspected-fraud", "lost-or-stolen", "hard-decline", "insufficient-funds", "authentication-failed"])
    func neverFallBackInCode(category: String) async throws {
        let harness = try Harness(Self.twoProcessors(a: "{\"createPayment\": \"\(category)\"}"))
        let router = try Self.fallBackOnEverything(harness)
        let session = Harness.session()
        let token = try await router.tokenize(.card(CardDetails(number: Harness.visa, cvv: "123", expiryMonth: 1, expiryYear: 2031,
                                                                network: .visa)), session: session)
        let response = try await router.createPayment(CreatePaymentRequest(token: token, session: session, idempotencyKey: "k"))
        #expect(response.status == .declined)
        #expect(response.reason == category)
        #expect(harness.sandboxes["psp-b"]?.createCallCount == 0)
    }

    struct Reuse: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var amount = 1000
        var currency = "EUR"
        var number = Harness.visa
        var merchant = "m_1"
        var field: String
    }

    @Test("a key reused for a different payment is refused with idempotency-key-reused, naming what differs; the first payment is untouched",
          arguments: [Reuse(testDescription: "amount", amount: 99_999, field: "amount"),
                      Reuse(testDescription: "currency", currency: "USD", field: "currency"),
                      Reuse(testDescription: "card", number: "5555555555554444", field: "card"),
                      Reuse(testDescription: "merchant", merchant: "m_2", field: "merchant")])
    func keyReuse(_ reuse: Reuse) async throws {
        let harness = try Harness(Self.twoProcessors(a: "{}"))
        let first = try await harness.pay(key: "order-reuse").get()
        #expect(first.status == .succeeded)
        let again = await harness.pay(key: "order-reuse", number: reuse.number, amount: reuse.amount, currency: reuse.currency,
                                      merchant: reuse.merchant)
        switch again {
        case .success(let response):
            Issue.record("the reused key answered \(response.status.rawValue) \(response.paymentId)")
        case .failure(let error):
            let checkout = try #require(error as? CheckoutError, "\(error)")
            #expect(checkout.code == .idempotencyKeyReused)
            #expect(checkout.message.contains(reuse.field), "\(checkout.message)")
            #expect(!checkout.message.contains(first.paymentId), "the refusal names the other payment")
        }
        #expect(harness.totalCharges == 1)
        #expect(try await harness.ledger.intents().count == 1)
        // The same request again is still the same payment.
        #expect(try await harness.pay(key: "order-reuse").get().paymentId == first.paymentId)
    }

    /// 50 calls over 5 keys at once, spread over 5 routers (as 5 service instances) that share the
    /// processors and the ledger.
    static func concurrentCalls(ledger: PaymentLedger, file: RoutingFile, sandboxes: [String: ScriptedSandboxProcessor]) async throws {
        let routers = try (0..<5).map { _ in try PaymentRouter(file: file, processors: sandboxes, ledger: ledger) }
        let session = Harness.session()
        let results = await withTaskGroup(of: (String, Result<PaymentResponse, any Error>).self) { group in
            for call in 0..<50 {
                let key = "order-\(call % 5)"
                let router = routers[call % routers.count]
                group.addTask {
                    do {
                        let token = try await router.tokenize(.card(CardDetails(number: Harness.visa, cvv: "123", expiryMonth: 1,
                                                                                expiryYear: 2031, network: .visa)), session: session)
                        return (key, .success(try await router.createPayment(CreatePaymentRequest(token: token, session: session,
                                                                                                  idempotencyKey: key))))
                    } catch {
                        return (key, .failure(error))
                    }
                }
            }
            var all: [(String, Result<PaymentResponse, any Error>)] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 50)
        for (key, result) in results {
            if case .failure(let error) = result { Issue.record("\(key): \(error)") }
        }
        let byKey = Dictionary(grouping: results.compactMap { key, result in (try? result.get()).map { (key, $0) } }, by: \.0)
        #expect(byKey.count == 5)
        for (key, answers) in byKey {
            #expect(answers.count == 10, "\(key)")
            #expect(Set(answers.map(\.1.paymentId)).count == 1, "\(key): \(answers.map(\.1.paymentId))")
            #expect(Set(answers.map(\.1.status)) == [.succeeded], "\(key): \(answers.map(\.1.status))")
            let intent = try #require(try await ledger.intent(stableKey: key))
            #expect(intent.state == .succeeded)
            #expect(intent.attempts.filter { $0.status == .succeeded }.count == 1)
        }
        let charges = sandboxes.values.reduce(0) { $0 + $1.chargeCount }
        #expect(charges == 5, "one charge per key, counted at the processors")
        #expect(sandboxes.values.flatMap { $0.chargesByKey.values }.allSatisfy { $0 == 1 })
    }

    static let concurrentRouting = """
        { "processors": [ { "name": "psp-a", "kind": "sandbox", "behaviour": { "createPayment": ["processor-error", "succeed"] } },
                          { "name": "psp-b", "kind": "sandbox" } ],
          "routes": [ { "name": "all", "processors": ["psp-a", "psp-b"], "fallbackOn": ["processor-error"] } ] }
        """

    @Test("50 concurrent calls over 5 keys on 5 routers sharing a SQLite ledger: each key reports one payment, succeeded, charged once, and no call sees an internal error")
    func concurrentSameKeyCalls() async throws {
        let harness = try Harness(Self.concurrentRouting)
        try await Self.concurrentCalls(ledger: PaymentLedger(storage: harness.ledger.storage), file: harness.router.file,
                                       sandboxes: harness.sandboxes)
    }
}

/// A sandbox whose attempts wait at a gate the test opens, counting status calls.
final class GatedProcessor: ForwardingProcessor, Sendable {
    let base: ScriptedSandboxProcessor
    let statusCalls = Locked(0)
    let attemptsArrived = Locked(0)
    /// nil once open; the held attempts otherwise.
    private let held = Locked<[CheckedContinuation<Void, Never>]?>([])

    init(name: String) {
        base = ScriptedSandboxProcessor(name: name)
    }

    /// Lets every held attempt (and every later one) through.
    func open() {
        for waiter in held.withLock({ held in defer { held = nil }; return held ?? [] }) { waiter.resume() }
    }

    func createAttempt(_ request: AttemptRequest) async throws -> PaymentResponse {
        attemptsArrived.withLock { $0 += 1 }
        await withCheckedContinuation { waiter in
            let wait = held.withLock { held in
                guard held != nil else { return false }
                held?.append(waiter)
                return true
            }
            if !wait { waiter.resume() }
        }
        return try await base.createAttempt(request)
    }

    func attemptStatus(idempotencyKey: String) async throws -> AttemptLookup {
        statusCalls.withLock { $0 += 1 }
        return try await base.attemptStatus(idempotencyKey: idempotencyKey)
    }
}

extension PaymentSafetyTests {
    @Test("a second call with the same key while the first call's attempt is on its way waits for it instead of asking the processor, and both report the one payment")
    func secondCallWaitsForTheFirst() async throws {
        let harness = try Harness(Self.twoProcessors(a: "{}"))
        let gated = GatedProcessor(name: "psp-a")
        let router = try PaymentRouter(file: harness.router.file, processors: ["psp-a": gated, "psp-b": harness.sandboxes["psp-b"]!],
                                       ledger: harness.ledger, clock: harness.clock.wallClock)
        func pay() async -> Result<PaymentResponse, any Error> {
            let session = Harness.session()
            do {
                let token = try await router.tokenize(.card(CardDetails(number: Harness.visa, cvv: "123", expiryMonth: 1,
                                                                        expiryYear: 2031, network: .visa)), session: session)
                return .success(try await router.createPayment(CreatePaymentRequest(token: token, session: session,
                                                                                    idempotencyKey: "order-gated")))
            } catch {
                return .failure(error)
            }
        }
        let first = Task { await pay() }
        while gated.attemptsArrived.withLock({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(5)) }
        let second = Task { await pay() }
        // Without the wait, the second call asks the processor's status at once (and, finding nothing
        // yet, reports the payment unknown). Give it that chance, then let the first attempt through.
        try await Task.sleep(for: .milliseconds(300))
        #expect(gated.statusCalls.withLock { $0 } == 0)
        gated.open()
        let answers = [await first.value, await second.value]
        let responses = try answers.map { try $0.get() }
        #expect(responses.map(\.status) == [.succeeded, .succeeded])
        #expect(responses[0].paymentId == responses[1].paymentId)
        #expect(gated.statusCalls.withLock { $0 } == 0)
        #expect(gated.attemptsArrived.withLock { $0 } == 1)
    }
}

/// Tokenizing at an attempt's processor only, when that attempt starts.
@Suite struct TokenizePerAttemptTests {
    static func file(a: String, breaker: String = #"{"consecutiveFailures": 3, "failureRate": 0, "window": 10, "coolDownSeconds": 30}"#)
        -> String {
        """
        { "processors": [ { "name": "psp-a", "kind": "sandbox", "behaviour": \(a) },
                          { "name": "psp-b", "kind": "sandbox" } ],
          "routes": [ { "name": "all", "processors": ["psp-a", "psp-b"], "fallbackOn": ["processor-error", "network-error"] } ],
          "breaker": \(breaker) }
        """
    }

    @Test("a payment the first processor takes is tokenized there only: the next processor never sees the card")
    func onlyAtTheAttemptsProcessor() async throws {
        let harness = try Harness(Self.file(a: "{}"))
        #expect(try await harness.pay(key: "k1").get().status == .succeeded)
        #expect(harness.sandboxes["psp-a"]?.tokenizeCallCount == 1)
        #expect(harness.sandboxes["psp-b"]?.tokenizeCallCount == 0)
    }

    @Test("a processor that cannot tokenize is an attempt with its category and note, the payment falls back, and its circuit opens: later payments skip it, visibly in explain",
          arguments: [("network-error", DeclineCategory.networkError, "NETWORK"), ("processor-error", .processorError, "96")])
    func tokenizationFailureIsAnAttempt(script: String, category: DeclineCategory, raw: String) async throws {
        let harness = try Harness(Self.file(a: "{\"tokenize\": \"\(script)\"}"))
        for index in 0..<3 {
            let response = try await harness.pay(key: "t\(index)").get()
            #expect(response.status == .succeeded)
            let intent = try #require(try await harness.ledger.intent(id: response.paymentId))
            #expect(intent.attempts.map(\.processor) == ["psp-a", "psp-b"])
            #expect(intent.attempts[0].status == .failed)
            #expect(intent.attempts[0].category == category)
            #expect(intent.attempts[0].rawCode == raw)
            #expect(intent.attempts[0].note == "tokenization-failed")
        }
        #expect(harness.sandboxes["psp-a"]?.createCallCount == 0)
        #expect(harness.breakerState("psp-a") != .closed)
        let skipped = try await harness.pay(key: "t3").get()
        let intent = try #require(try await harness.ledger.intent(id: skipped.paymentId))
        #expect(intent.attempts.map(\.status) == [.skipped, .succeeded])
        #expect(harness.sandboxes["psp-a"]?.tokenizeCallCount == 3)
        let explanation = harness.router.explain(RoutingFacts(methodType: "PAYMENT_CARD", currency: "EUR", amount: 1000))
        #expect(explanation.steps.map(\.skipped) == [true, false])
    }

    @Test("the router refuses a card number no processor could tokenize before it opens a payment")
    func invalidCardRefusedUpFront() async throws {
        let harness = try Harness(Self.file(a: "{}"))
        let result = await harness.pay(key: "bad", number: "4242424242424241")
        #expect((try? result.get()) == nil)
        #expect(try await harness.ledger.intents().isEmpty)
        #expect(harness.sandboxes.values.allSatisfy { $0.tokenizeCallCount == 0 })
    }
}

/// Currencies: ISO 4217 only, and processors that declare the currencies they take.
@Suite struct RoutingCurrencyTests {
    static let file = """
        { "processors": [ { "name": "psp-usd", "kind": "sandbox", "currencies": ["USD"] },
                          { "name": "psp-any", "kind": "sandbox" } ],
          "routes": [ { "name": "all", "processors": ["psp-usd", "psp-any"], "fallbackOn": ["processor-error"] } ] }
        """

    @Test("a processor that does not take the payment's currency is never tried, and explain says why")
    func skipsAProcessorThatDoesNotTakeTheCurrency() async throws {
        let harness = try Harness(Self.file)
        let eur = try await harness.pay(key: "eur-1").get()
        #expect(eur.status == .succeeded)
        let intent = try #require(try await harness.ledger.intent(id: eur.paymentId))
        #expect(intent.attempts.map(\.processor) == ["psp-any"])
        #expect(harness.sandboxes["psp-usd"]?.tokenizeCallCount == 0)
        let usd = try await harness.pay(key: "usd-1", currency: "USD").get()
        #expect(try await harness.ledger.intent(id: usd.paymentId)?.attempts.map(\.processor) == ["psp-usd"])
        let explained = harness.router.explain(RoutingFacts(methodType: "PAYMENT_CARD", currency: "EUR", amount: 1000))
        #expect(explained.steps.map(\.currencyNotTaken) == [true, false])
        #expect(explained.steps.map(\.skipped) == [true, false])
        #expect(harness.router.explain(RoutingFacts(methodType: "PAYMENT_CARD", currency: "USD", amount: 1000))
                .steps.map(\.skipped) == [false, false])
    }

    @Test("currencies must be active ISO 4217 codes, each refusal at its JSON path")
    func loaderChecksCurrencies() {
        let bad = Self.file.replacingOccurrences(of: #"["USD"]"#, with: #"["USD", "ZZZ", "usd"]"#)
        let error = #expect(throws: RoutingFileError.self) { _ = try RoutingFileLoader.load(Array(bad.utf8)) }
        let text = error?.description ?? ""
        #expect(text.contains("$.processors[0].currencies[1]: ZZZ is not an active ISO 4217 currency code"), "\(text)")
        #expect(text.contains("$.processors[0].currencies[2]"), "\(text)")
        let empty = Self.file.replacingOccurrences(of: #"["USD"]"#, with: "[]")
        #expect(throws: RoutingFileError.self) { _ = try RoutingFileLoader.load(Array(empty.utf8)) }
    }

    @Test("a payment in a code that is not an ISO 4217 currency is refused before anything opens", arguments: ["ZZZ", "XAU"])
    func unknownCurrencyRefused(code: String) async throws {
        let harness = try Harness(Self.file)
        let result = await harness.pay(key: "zzz", currency: code)
        #expect((try? result.get()) == nil)
        #expect(try await harness.ledger.intents().isEmpty)
    }
}

/// The card a router holds between tokenizing and paying.
@Suite struct HeldCardTests {
    @Test("a token unused for tokenLifetime is dropped with its card: paying with it is refused, and nothing is tried")
    func unusedTokensExpire() async throws {
        let harness = try Harness(PaymentSafetyTests.twoProcessors(a: "{}"))
        let session = Harness.session()
        let stale = try await harness.router.tokenize(.card(CardDetails(number: Harness.visa, cvv: "123", expiryMonth: 1, expiryYear: 2031,
                                                                        network: .visa)), session: session)
        harness.clock.advance(by: .seconds(PaymentRouter.tokenLifetime + 1))
        // Tokenizing again sweeps the expired one.
        let fresh = try await harness.router.tokenize(.card(CardDetails(number: Harness.visa, cvv: "123", expiryMonth: 1,
                                                                        expiryYear: 2031, network: .visa)), session: session)
        #expect(harness.router.tokens.withLock { $0[stale.token] } == nil)
        await #expect(throws: CheckoutError.self) {
            _ = try await harness.router.createPayment(CreatePaymentRequest(token: stale, session: session, idempotencyKey: "stale"))
        }
        #expect(harness.sandboxes.values.allSatisfy { $0.tokenizeCallCount == 0 })
        #expect(try await harness.router.createPayment(CreatePaymentRequest(token: fresh, session: session, idempotencyKey: "fresh"))
                .status == .succeeded)
        // A payment that ended holds no card any more.
        #expect(harness.router.tokens.withLock { $0[fresh.token]?.request } == nil)
    }
}
