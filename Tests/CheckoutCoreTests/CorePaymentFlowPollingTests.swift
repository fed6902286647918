import CheckoutCore
import CheckoutCoreTesting
import CheckoutLocking
import Foundation
import Testing

/// The core's step flow polls a pending payment and verifies returns for any method whose steps
/// ask for it: the steps here are a minimal redirect method, not the redirect plugin.
@Suite struct CorePaymentFlowPollingTests {
    /// Waits of 1 s doubling, giving up after `timeout`.
    struct Doubling: PaymentPollingSchedule {
        let timeout: Duration
        var initialInterval: Duration { .seconds(1) }
        func interval(after interval: Duration) -> Duration { interval * 2 }
    }

    /// A redirect method: tokenizes a redirect, takes the `resumeToken` of a return URL and
    /// resumes through the pipeline's verifying resume.
    struct ReturnSteps: PaymentSteps {
        let context: PaymentFlowContext
        let polling: PaymentPolling?
        var singleUseResumeTokens: Bool { true }

        func tokenize(_ attempt: PaymentStepAttempt) async throws -> PaymentTokenization {
            .token(try await context.services.tokenize(.redirect(context.method.type)), surcharge: 0)
        }

        func unsupportedAction(_ action: RequiredAction) -> String? { nil }

        func resumeToken(from input: PaymentResumeInput, for pending: PaymentFlowRules.PendingAction) throws -> String {
            guard case .returnURL(let url) = input,
                  let token = URLComponents(url: url, resolvingAgainstBaseURL: false)?
                      .queryItems?.first(where: { $0.name == "resumeToken" })?.value else {
                throw CheckoutError(.invalidReturn, "not a return URL with a resume token")
            }
            return token
        }

        var verifiesReturn: Bool { true }
    }

    struct ReturnHandler: PaymentMethodHandler {
        let type: PaymentMethodType = .payPal
        let display = PaymentMethodDisplay(name: "Returning", buttonText: "Pay")
        let polling: PaymentPolling?

        func makeSteps(context: PaymentFlowContext) -> ReturnSteps { ReturnSteps(context: context, polling: polling) }
    }

    struct Setup {
        let session: CheckoutSession
        let processor: ControllableProcessor<SandboxProcessor>
        let flow: CorePaymentFlow<ReturnSteps>
        let redirect: URL
    }

    /// A ready session whose flow has been submitted and awaits its redirect.
    static func redirected(polling: PaymentPolling?) async throws -> Setup {
        let registry = PaymentMethodRegistry()
        try registry.register(ReturnHandler(polling: polling))
        let processor = ControllableProcessor()
        let session = Fixtures.session(registry: registry, processor: processor, configuration: Fixtures.configuration([.payPal]))
        await session.start()
        let flow = try #require(try session.flow(for: .payPal) as? CorePaymentFlow<ReturnSteps>)
        guard case .awaitingRedirect(let url) = await flow.submit() else {
            Issue.record("expected a redirect, got \(flow.flowState)")
            throw CheckoutError(.invalidState, "not redirected")
        }
        return Setup(session: session, processor: processor, flow: flow, redirect: url)
    }

    /// The sandbox's genuine return URL for the setup's redirect.
    static func genuineReturn(_ setup: Setup) throws -> URL {
        try #require(setup.processor.backing.simulateRedirect(setup.redirect))
    }

    @Test func pollingSettlesThePaymentOnceTheProcessorNoLongerReportsItPending() async throws {
        let clock = TestClock()
        let setup = try await Self.redirected(polling: PaymentPolling(schedule: Doubling(timeout: .seconds(60)), clock: clock))
        let poll = Task { await setup.flow.pollForCompletion() }
        #expect(await clock.waitForSleeper())
        #expect(setup.processor.callCount(.paymentStatus) == 1, "the first check happens at once")
        let paymentId = try #require(setup.flow.paymentId)
        let returned = try Self.genuineReturn(setup)
        let token = try #require(URLComponents(url: returned, resolvingAgainstBaseURL: false)?
            .queryItems?.first(where: { $0.name == "resumeToken" })?.value)
        _ = try await setup.processor.backing.resumePayment(paymentId: paymentId, resumeToken: token)
        clock.advance(by: .seconds(1))
        let result = PaymentResult(paymentId: paymentId, status: .succeeded, paymentMethodType: .payPal)
        #expect(await poll.value == .succeeded(result))
        #expect(setup.processor.callCount(.paymentStatus) == 3, "two polls and the pipeline's own check")
        #expect(setup.session.deliveredOutcomes == [.success(result)])
    }

    @Test func aPaymentStillPendingAtTheTimeoutFailsTheAttempt() async throws {
        let clock = TestClock()
        let setup = try await Self.redirected(polling: PaymentPolling(schedule: Doubling(timeout: .seconds(10)), clock: clock))
        let poll = Task { await setup.flow.pollForCompletion() }
        #expect(await clock.waitForSleeper())
        clock.advance(by: .seconds(10))
        let error = CheckoutError(.timeout, "the payment was not completed within 10 seconds")
        #expect(await poll.value == .failed(error))
        #expect(setup.processor.callCount(.paymentStatus) == 2)
        #expect(setup.session.deliveredOutcomes.map(\.failureError) == [error])
    }

    @Test func cancelStopsThePollingLoop() async throws {
        let clock = TestClock()
        let setup = try await Self.redirected(polling: PaymentPolling(schedule: Doubling(timeout: .seconds(60)), clock: clock))
        let poll = Task { await setup.flow.pollForCompletion() }
        #expect(await clock.waitForSleeper())
        await setup.flow.cancel()
        #expect(await poll.value == .cancelled)
        #expect(setup.processor.callCount(.paymentStatus) == 1, "stopped while asleep")
        #expect(clock.sleeperCount == 0)
        #expect(setup.session.deliveredOutcomes.isEmpty)
    }

    @Test func withoutPollingThePendingPaymentIsNotChecked() async throws {
        let setup = try await Self.redirected(polling: nil)
        #expect(await setup.flow.pollForCompletion() == .awaitingRedirect(setup.redirect))
        #expect(setup.processor.callCount(.paymentStatus) == 0)
    }

    @Test func aScheduleThatCouldNotBeMadeFailsTheAttemptAtItsFirstPoll() async throws {
        let invalid = CheckoutError(.invalidConfiguration, "the poll interval must be positive")
        let setup = try await Self.redirected(polling: PaymentPolling(unavailable: invalid))
        #expect(await setup.flow.pollForCompletion() == .failed(invalid))
        #expect(setup.processor.callCount(.paymentStatus) == 0)
        #expect(setup.session.deliveredOutcomes.map(\.failureError) == [invalid])
    }

    @Test func aReturnTheProcessorRejectsGivesThePaymentBackAndIsNotAcceptedAgain() async throws {
        let setup = try await Self.redirected(polling: nil)
        let genuine = try Self.genuineReturn(setup)
        let forged = try #require(URL(string: genuine.absoluteString + "x"))
        await #expect(throws: CheckoutError.self) { try await setup.flow.resume(with: .returnURL(forged)) }
        #expect(setup.flow.flowState == .awaitingRedirect(setup.redirect), "the genuine return can still complete it")
        await #expect(throws: CheckoutError(.invalidReturn, "this return was already used")) {
            try await setup.flow.resume(with: .returnURL(forged))
        }
        guard case .succeeded(let result) = try await setup.flow.resume(with: .returnURL(genuine)) else {
            Issue.record("expected the genuine return to succeed, got \(setup.flow.flowState)")
            return
        }
        #expect(setup.session.deliveredOutcomes == [.success(result)])
        await #expect(throws: CheckoutError.self) { try await setup.flow.resume(with: .returnURL(genuine)) }
    }
}
