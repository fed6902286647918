import CheckoutCore
import CheckoutCoreTesting
import CheckoutLocking
import Foundation
import Testing

/// The core's step flow keeps the attempt and outcome rules whatever a plugin's steps do: the
/// steps here are scripted per test and try to break each rule.
@Suite struct CorePaymentFlowTests {
    /// Steps whose tokenize the test scripts; it counts what it was asked to do.
    final class ScriptedSteps: PaymentSteps {
        typealias Tokenize = @Sendable (PaymentFlowContext, PaymentStepAttempt) async throws -> PaymentTokenization
        let context: PaymentFlowContext
        let script: Tokenize
        let refuse: @Sendable (RequiredAction) -> String?

        init(context: PaymentFlowContext, script: @escaping Tokenize, refuse: @escaping @Sendable (RequiredAction) -> String?) {
            self.context = context
            self.script = script
            self.refuse = refuse
        }

        func tokenize(_ attempt: PaymentStepAttempt) async throws -> PaymentTokenization {
            try await script(context, attempt)
        }


        func unsupportedAction(_ action: RequiredAction) -> String? { refuse(action) }
    }

    struct ScriptedHandler: PaymentMethodHandler {
        let type: PaymentMethodType = .payPal
        let display = PaymentMethodDisplay(name: "Scripted", buttonText: "Pay")
        let script: ScriptedSteps.Tokenize
        let refuse: @Sendable (RequiredAction) -> String?

        func makeSteps(context: PaymentFlowContext) -> ScriptedSteps {
            ScriptedSteps(context: context, script: script, refuse: refuse)
        }
    }

    static let success = "4111111111111111"
    static let challenge = "4000000000003220"

    /// Tokenizes `number` through the session's processor.
    static func card(_ number: String) -> ScriptedSteps.Tokenize {
        { context, _ in
            let details = CardDetails(number: number, cvv: "123", expiryMonth: 12, expiryYear: 2030, network: .visa)
            return .token(try await context.services.tokenize(.card(details)), surcharge: 0)
        }
    }

    struct Setup {
        let session: CheckoutSession
        let processor: ControllableProcessor<SandboxProcessor>
        let flow: CorePaymentFlow<ScriptedSteps>
    }

    static func setUp(_ script: @escaping ScriptedSteps.Tokenize,
                      refuse: @escaping @Sendable (RequiredAction) -> String? = { _ in nil }) async throws -> Setup {
        let registry = PaymentMethodRegistry()
        try registry.register(ScriptedHandler(script: script, refuse: refuse))
        let processor = ControllableProcessor()
        let session = Fixtures.session(registry: registry, processor: processor, configuration: Fixtures.configuration([.payPal]))
        await session.start()
        let flow = try #require(try session.flow(for: .payPal) as? CorePaymentFlow<ScriptedSteps>)
        return Setup(session: session, processor: processor, flow: flow)
    }

    @Test func aSubmitWhileAnAttemptRunsOrAfterSuccessIsRefused() async throws {
        let setup = try await Self.setUp(Self.card(Self.success))
        setup.processor.hold(.createPayment)
        let first = Task { await setup.flow.submit() }
        #expect(await setup.processor.waitForHeldCall(.createPayment))
        #expect(await setup.flow.submit() == .processing)
        setup.processor.release(.createPayment)
        guard case .succeeded(let result) = await first.value else {
            Issue.record("expected success, got \(setup.flow.flowState)")
            return
        }
        #expect(await setup.flow.submit() == .succeeded(result))
        #expect(setup.processor.callCount(.tokenize) == 1)
        #expect(setup.processor.callCount(.createPayment) == 1)
        #expect(setup.session.deliveredOutcomes == [.success(result)])
    }

    @Test func aTokenArrivingAfterCancelCreatesNothing() async throws {
        let setup = try await Self.setUp(Self.card(Self.success))
        let states = setup.flow.flowStates()
        setup.processor.hold(.tokenize)
        let attempt = Task { await setup.flow.submit() }
        #expect(await setup.processor.waitForHeldCall(.tokenize))
        await setup.flow.cancel()
        setup.processor.release(.tokenize)
        #expect(await attempt.value == .cancelled)
        #expect(setup.processor.callCount(.createPayment) == 0)
        #expect(setup.processor.callCount(.createPayment) == 0)
        #expect(setup.session.deliveredOutcomes.isEmpty)
        #expect(await PaymentFlowStateKeeperTests.published(states) == [.idle, .processing, .cancelled])
    }

    @Test func invalidInputFailsTheAttemptWithoutAnOutcome() async throws {
        let invalid = CheckoutError(.invalidPaymentData, "enter the code first")
        let setup = try await Self.setUp { _, _ in .invalidInput(invalid) }
        #expect(await setup.flow.submit() == .failed(invalid))
        #expect(setup.session.deliveredOutcomes.isEmpty)
        #expect(setup.processor.callCount(.createPayment) == 0)
    }

    @Test func aThrownErrorFailsTheAttemptAndIsTheOutcome() async throws {
        let declined = CheckoutError(.paymentDeclined, "the wallet refused")
        let setup = try await Self.setUp { _, _ in throw declined }
        #expect(await setup.flow.submit() == .failed(declined))
        #expect(setup.session.deliveredOutcomes.map(\.failureError) == [declined])
    }

    @Test func anErrorThatIsNotACheckoutErrorBecomesPaymentFailed() async throws {
        let setup = try await Self.setUp { _, _ in throw CocoaError(.fileNoSuchFile) }
        guard case .failed(let error) = await setup.flow.submit() else {
            Issue.record("expected a failure, got \(setup.flow.flowState)")
            return
        }
        #expect(error.code == .paymentFailed)
        #expect(error.message == "PAYPAL could not be tokenized")
    }

    @Test func aDismissedAttemptIsCancelledAndANewOneStarts() async throws {
        let dismissals = Locked(1)
        let success = Self.card(Self.success)
        let setup = try await Self.setUp { context, attempt in
            if dismissals.withLock({ left in defer { left -= 1 }; return left > 0 }) { return .cancelled }
            return try await success(context, attempt)
        }
        #expect(await setup.flow.submit() == .cancelled)
        #expect(setup.session.deliveredOutcomes.isEmpty)
        guard case .succeeded = await setup.flow.submit() else {
            Issue.record("expected the second attempt to succeed, got \(setup.flow.flowState)")
            return
        }
        #expect(setup.processor.callCount(.tokenize) == 1)
    }

    @Test func anActionTheStepsRefuseFailsTheAttempt() async throws {
        let setup = try await Self.setUp(Self.card(Self.challenge), refuse: { _ in "no challenges here" })
        #expect(await setup.flow.submit() == .failed(CheckoutError(.paymentFailed, "no challenges here")))
        #expect(setup.flow.paymentId == nil, "a refused action leaves nothing to resume")
        await #expect(throws: CheckoutError.self) { try await setup.flow.resume(with: .challengeResult("challenge-success")) }
    }

    @Test func onlyOneResumeCompletesTheChallengeAndRejectedInputChangesNothing() async throws {
        let setup = try await Self.setUp(Self.card(Self.challenge))
        guard case .awaitingChallenge(let challengeId) = await setup.flow.submit() else {
            Issue.record("expected a challenge, got \(setup.flow.flowState)")
            return
        }
        let waiting = PaymentFlowState.awaitingChallenge(challengeId: challengeId)
        await #expect(throws: CheckoutError(.invalidReturn, "this payment method resumes with a challenge result")) {
            try await setup.flow.resume(with: .returnURL(URL(fileURLWithPath: "/shop/return")))
        }
        #expect(setup.flow.flowState == waiting)
        setup.processor.hold(.resumePayment)
        let first = Task { try await setup.flow.resume(with: .challengeResult("challenge-success")) }
        #expect(await setup.processor.waitForHeldCall(.resumePayment))
        await #expect(throws: CheckoutError.self) { try await setup.flow.resume(with: .challengeResult("challenge-success")) }
        setup.processor.release(.resumePayment)
        guard case .succeeded(let result) = try await first.value else {
            Issue.record("expected the resume to succeed, got \(setup.flow.flowState)")
            return
        }
        #expect(setup.processor.callCount(.resumePayment) == 1)
        #expect(setup.session.deliveredOutcomes == [.success(result)])
    }
}
