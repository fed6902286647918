import CheckoutTestSupport
import CheckoutCore
import CheckoutCoreTesting
import CheckoutLocking
import Foundation
import RedirectPaymentMethod
import Testing

/// Something a polling test sets up after the clock exists (the clock is needed to build the session).
final class LateAction: Sendable {
    private let action = Locked<(@Sendable () async -> Void)?>(nil)

    func set(_ body: @escaping @Sendable () async -> Void) { action.withLock { $0 = body } }

    func run() async {
        let body = action.withLock { $0 }
        await body?()
    }
}

@Suite("Redirect polling")
struct RedirectPollingTests {
    typealias Support = RedirectPaymentFlowTests

    @Test func pendingPaymentTimesOutAfterBackoff() async throws {
        let clock = TestClock.automatic()
        let harness = try await Support.harness(amount: 1002, policy: try Support.policy(interval: 1, timeout: 10),
                                                clock: clock)
        let (flow, states, url) = try await Support.redirected(harness)
        #expect(harness.sandbox.simulateRedirect(url) == nil)

        let final = await flow.pollForCompletion()

        let error = CheckoutError(.timeout, "the payment was not completed within 10 seconds")
        #expect(final == .failed(error))
        #expect(clock.sleepHistory == [.seconds(1), .seconds(2), .seconds(4), .seconds(3)])
        #expect(harness.processor.statusCalls == 5)
        #expect(await drain(states) == [.idle, .processing, .awaitingRedirect(url), .failed(error)])
        #expect(harness.session.deliveredOutcomes.map(\.ignoringCheckoutData) == [.failure(error, checkoutData: nil)])
    }

    @Test func configurationOptionsSetIntervalAndTimeout() async throws {
        let clock = TestClock.automatic()
        let harness = try await Support.harness(amount: 1002, clock: clock,
                                                options: ["pollInterval": .number(0.5), "pollTimeout": .number(3)])
        let (flow, _, _) = try await Support.redirected(harness)

        let final = await flow.pollForCompletion()

        #expect(final == .failed(CheckoutError(.timeout, "the payment was not completed within 3 seconds")))
        #expect(clock.sleepHistory == [.milliseconds(500), .seconds(1), .milliseconds(1500)])
    }

    @Test(arguments: [(1000, true), (1001, false)])
    func pollingSeesTheProviderSettleThePayment(amount: Int, succeeds: Bool) async throws {
        let late = LateAction()
        let clock = TestClock.automatic { index in if index == 2 { await late.run() } }
        let harness = try await Support.harness(amount: amount, policy: try Support.policy(interval: 1, timeout: 60),
                                                clock: clock)
        let (flow, states, url) = try await Support.redirected(harness)
        let paymentId = try #require(flow.paymentId)
        let returnURL = try #require(harness.sandbox.simulateRedirect(url))
        let token = try #require(URLComponents(url: returnURL, resolvingAgainstBaseURL: false)?
            .queryItems?.first { $0.name == "resumeToken" }?.value)
        // The shopper finishes at the provider while the app is polling (e.g. on another device).
        let sandbox = harness.sandbox
        late.set { _ = try? await sandbox.resumePayment(paymentId: paymentId, resumeToken: token) }

        let final = await flow.pollForCompletion()

        let expected: PaymentFlowState = succeeds
            ? .succeeded(PaymentResult(paymentId: paymentId, status: .succeeded, paymentMethodType: .payPal))
            : .failed(CheckoutError(.paymentFailed, "The shopper did not authorise the payment"))
        #expect(final == expected)
        #expect(clock.sleepHistory == [.seconds(1), .seconds(2)])
        #expect(await drain(states) == [.idle, .processing, .awaitingRedirect(url), expected])
        #expect(harness.session.deliveredOutcomes.count == 1)
        // Once settled, the return URL is no longer accepted.
        await #expect(throws: CheckoutError.self) { try await flow.resume(with: .returnURL(returnURL)) }
    }

    @Test func cancelStopsPolling() async throws {
        let late = LateAction()
        let clock = TestClock.automatic { _ in await late.run() }
        let harness = try await Support.harness(amount: 1002, policy: try Support.policy(interval: 1, timeout: 60),
                                                clock: clock)
        let (flow, states, url) = try await Support.redirected(harness)
        late.set { await flow.cancel() }

        let final = await flow.pollForCompletion()

        #expect(final == .cancelled)
        #expect(clock.sleepHistory == [.seconds(1)])
        #expect(await drain(states) == [.idle, .processing, .awaitingRedirect(url), .cancelled])
        #expect(harness.session.deliveredOutcomes == [])
    }

    @Test func aCancelledCallerGetsTheCurrentStateAtOnceWhilePollingGoesOn() async throws {
        let gate = AsyncGate()
        let clock = TestClock.automatic { index in if index == 1 { await gate.pass() } }
        let harness = try await Support.harness(amount: 1002, policy: try Support.policy(interval: 1, timeout: 10),
                                                clock: clock)
        let (flow, _, url) = try await Support.redirected(harness)
        let caller = Task { await flow.pollForCompletion() }
        try #require(await firstElement(of: gate.arrivals) { $0 >= 1 } != nil, "the poll did not reach its first sleep")

        caller.cancel()
        #expect(await caller.value == .awaitingRedirect(url))  // while the poll is parked on its first sleep
        gate.open()
        let error = CheckoutError(.timeout, "the payment was not completed within 10 seconds")
        #expect(await flow.pollForCompletion() == .failed(error))  // the shared loop went on to its end
        #expect(clock.sleepHistory == [.seconds(1), .seconds(2), .seconds(4), .seconds(3)])
        #expect(harness.session.deliveredOutcomes.map(\.ignoringCheckoutData) == [.failure(error, checkoutData: nil)])
    }

    @Test func returnURLWinsOverAPollInProgress() async throws {
        let late = LateAction()
        let clock = TestClock.automatic { index in if index == 1 { await late.run() } }
        let harness = try await Support.harness(policy: try Support.policy(interval: 1, timeout: 60), clock: clock)
        let (flow, states, url) = try await Support.redirected(harness)
        let paymentId = try #require(flow.paymentId)
        let returnURL = try #require(harness.sandbox.simulateRedirect(url))
        let resumed = Locked<PaymentFlowState?>(nil)
        late.set {
            let state = try? await flow.resume(with: .returnURL(returnURL))
            resumed.withLock { $0 = state }
        }

        let final = await flow.pollForCompletion()

        let result = PaymentFlowState.succeeded(PaymentResult(paymentId: paymentId, status: .succeeded,
                                                              paymentMethodType: .payPal))
        #expect(resumed.withLock { $0 } == result)
        #expect(final == result)
        #expect(await drain(states) == [.idle, .processing, .awaitingRedirect(url), result])
        #expect(harness.session.deliveredOutcomes.count == 1)
    }

    @Test(arguments: [
        (JSONValue.string("fast"), "options.pollInterval must be a number of seconds between 0.001 and 86400"),
        (JSONValue.number(0), "options.pollInterval must be a number of seconds between 0.001 and 86400"),
        (JSONValue.number(-1), "options.pollInterval must be a number of seconds between 0.001 and 86400"),
    ])
    func invalidPollingOptionsMakeTheMethodUnavailable(value: JSONValue, reason: String) async throws {
        let harness = try await Support.harness(options: ["pollInterval": value])
        #expect(harness.session.paymentMethods == [])
        #expect(harness.session.diagnostics == [.unavailable(.payPal, reason: reason)])
    }

    @Test func policyRejectsNonPositiveDurations() {
        #expect(throws: CheckoutError.self) { try RedirectPollingPolicy(initialInterval: .zero, timeout: .seconds(1)) }
        #expect(throws: CheckoutError.self) { try RedirectPollingPolicy(initialInterval: .seconds(1), timeout: .zero) }
        #expect(throws: CheckoutError.self) {
            try RedirectPollingPolicy(initialInterval: .seconds(2), maximumInterval: .seconds(1), timeout: .seconds(9))
        }
    }
}

@Suite("Redirect registration")
struct RedirectRegistrationTests {
    @Test func configurationEntriesNamingTheRedirectHandlerResolveToIt() async throws {
        let json = """
            { "paymentMethods": [
                { "type": "PAYPAL", "handler": "redirect", "display": { "name": "PayPal", "buttonText": "Pay with PayPal" } },
                { "type": "ADYEN_IDEAL", "handler": "redirect", "display": { "name": "iDEAL" } },
                { "type": "KLARNA", "handler": "redirect" },
                { "type": "ADYEN_SOFORT", "handler": "redirect", "enabled": false } ] }
            """
        let configuration = try CheckoutConfiguration.decode(Data(json.utf8))
        let registry = PaymentMethodRegistry()
        try RedirectPaymentHandler.registerFactory(in: registry)
        #expect(registry.factoryNames == ["redirect"])
        #expect(throws: CheckoutError.self) { try RedirectPaymentHandler.registerFactory(in: registry) }
        let advertised: [AdvertisedPaymentMethod] = [
            .init(id: "k", type: .klarna), .init(id: "s", type: .adyenSofort), .init(id: "i", type: .adyenIdeal),
            .init(id: "p", type: .payPal), .init(id: "w", type: "WECHAT_PAY"),
        ]
        let harness = try await Harness.start(methods: advertised, configuration: configuration, registry: registry)

        #expect(harness.session.paymentMethods.map(\.name) == ["PayPal", "iDEAL", "Klarna"])
        #expect(harness.session.diagnostics == [.disabledByConfiguration(.adyenSofort), .unknownMethod("WECHAT_PAY")])
        for type in [PaymentMethodType.payPal, .adyenIdeal, .klarna] {
            let flow = try harness.session.flow(for: type)
            #expect(flow is RedirectPaymentFlow)
            #expect(flow.paymentMethodType == type)
        }
        let handler = try #require(registry.resolve(.klarna, configuration: configuration))
        #expect(handler.display == PaymentMethodDisplay(name: "Klarna", buttonText: "Pay with Klarna"))
        #expect(RedirectPaymentHandler(type: "PAY_BY_BANK").display.name == "Pay By Bank")
    }
}

/// Parks every task that passes until `open()` (then lets all through); counts the arrivals.
final class AsyncGate: Sendable {
    private struct State {
        var isOpen = false
        var arrivals = 0
        var parked: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())
    private let arrived = AsyncStream<Int>.makeStream()

    /// The number of arrivals so far, yielded at each arrival (one reader).
    var arrivals: AsyncStream<Int> { arrived.stream }

    func pass() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isOpen = state.withLock { state -> Bool in
                state.arrivals += 1
                if !state.isOpen { state.parked.append(continuation) }
                arrived.continuation.yield(state.arrivals)
                return state.isOpen
            }
            if isOpen { continuation.resume() }
        }
    }

    func open() {
        let parked = state.withLock { state in
            state.isOpen = true
            defer { state.parked.removeAll() }
            return state.parked
        }
        parked.forEach { $0.resume() }
    }
}
