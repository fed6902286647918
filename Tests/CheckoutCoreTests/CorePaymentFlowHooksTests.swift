import CheckoutCore
import CheckoutCoreTesting
import CheckoutLocking
import CheckoutTestSupport
import Foundation
import Testing

/// What the core's step flow offers a method with a richer state of its own (the card form):
/// checking the input before an attempt, a cancel that is final, and seeing every change.
@Suite struct CorePaymentFlowHooksTests {
    /// Card steps whose input error, cancel rule and observations a test controls and reads.
    final class CheckedSteps: PaymentSteps {
        let context: PaymentFlowContext
        let cardNumber: String
        let cancelIsFinal: Bool
        let secret = "steps-held-value"
        let refusal = Locked<CheckoutError?>(nil)
        let checks = Counter()
        let seen = Recorder<PaymentFlowSnapshot>()

        init(context: PaymentFlowContext, cardNumber: String, cancelIsFinal: Bool) {
            self.context = context
            self.cardNumber = cardNumber
            self.cancelIsFinal = cancelIsFinal
        }

        func inputError() -> CheckoutError? {
            _ = checks.increment()
            return refusal.withLock { $0 }
        }

        func tokenize(_ attempt: PaymentStepAttempt) async throws -> PaymentTokenization {
            let card = CardDetails(number: cardNumber, cvv: "123", expiryMonth: 12, expiryYear: 2030, network: .visa)
            return .token(try await context.services.tokenize(.card(card)), surcharge: 0)
        }

        /// The processor verifies each return (the tests script it to refuse one).
        var verifiesReturn: Bool { true }

        func flowChanged(_ snapshot: PaymentFlowSnapshot) { seen.append(snapshot) }
    }

    /// The same steps, describing themselves.
    struct DescribedSteps: PaymentSteps, CustomStringConvertible {
        let context: PaymentFlowContext
        func tokenize(_ attempt: PaymentStepAttempt) async throws -> PaymentTokenization { .cancelled }
        var description: String { "described steps" }
    }

    struct Handler: PaymentMethodHandler {
        let type: PaymentMethodType = .paymentCard
        let display = PaymentMethodDisplay(name: "Checked", buttonText: "Pay")
        let cardNumber: String
        let cancelIsFinal: Bool

        func makeSteps(context: PaymentFlowContext) -> CheckedSteps {
            CheckedSteps(context: context, cardNumber: cardNumber, cancelIsFinal: cancelIsFinal)
        }
    }

    struct DescribedHandler: PaymentMethodHandler {
        let type: PaymentMethodType = .payPal
        let display = PaymentMethodDisplay(name: "Described", buttonText: "Pay")
        func makeSteps(context: PaymentFlowContext) -> DescribedSteps { DescribedSteps(context: context) }
    }

    struct Setup {
        let session: CheckoutSession
        let processor: ControllableProcessor<SandboxProcessor>
        let flow: CorePaymentFlow<CheckedSteps>
        var steps: CheckedSteps { flow.steps }
    }

    static func setup(cardNumber: String = "4242424242424242", cancelIsFinal: Bool = false) async throws -> Setup {
        let registry = PaymentMethodRegistry()
        try registry.register(Handler(cardNumber: cardNumber, cancelIsFinal: cancelIsFinal))
        try registry.register(DescribedHandler())
        let processor = ControllableProcessor()
        let session = Fixtures.session(registry: registry, processor: processor,
                                       configuration: Fixtures.configuration([.paymentCard, .payPal]))
        await session.start()
        let flow = try #require(try session.flow(for: .paymentCard) as? CorePaymentFlow<CheckedSteps>)
        return Setup(session: session, processor: processor, flow: flow)
    }

    /// The states `stream` gives until (and including) `last`; nil when it does not come in time.
    static func states(_ stream: AsyncStream<PaymentFlowState>, until last: PaymentFlowState) async -> [PaymentFlowState]? {
        await elements(of: stream, until: { $0 == last })
    }

    @Test("an input error fails the attempt at once: no processing, nothing sent, no outcome")
    func inputErrorFailsAtOnce() async throws {
        let setup = try await Self.setup()
        let invalid = CheckoutError(.invalidPaymentData, "the card form has invalid fields: card number")
        setup.steps.refusal.withLock { $0 = invalid }
        let stream = setup.flow.flowStates()
        #expect(await setup.flow.submit() == .failed(invalid))
        #expect(await Self.states(stream, until: .failed(invalid)) == [.idle, .failed(invalid)])
        #expect(setup.processor.callCount(.tokenize) == 0)
        #expect(setup.processor.callCount(.createPayment) == 0)
        #expect(setup.session.deliveredOutcomes.isEmpty)

        // Corrected input: the next submit is a new attempt that pays.
        setup.steps.refusal.withLock { $0 = nil }
        guard case .succeeded(let result) = await setup.flow.submit() else {
            Issue.record("expected success, got \(setup.flow.flowState)")
            return
        }
        #expect(setup.session.deliveredOutcomes == [.success(result)])
        #expect(setup.steps.checks.count == 2)
    }

    @Test("the input is checked only when a submit would start an attempt")
    func inputCheckedOnlyForANewAttempt() async throws {
        let setup = try await Self.setup()
        setup.processor.hold(.createPayment)
        let first = Task { await setup.flow.submit() }
        #expect(await setup.processor.waitForHeldCall(.createPayment))
        setup.steps.refusal.withLock { $0 = CheckoutError(.invalidPaymentData, "changed meanwhile") }
        #expect(await setup.flow.submit() == .processing, "a submit during an attempt is refused")
        #expect(setup.steps.checks.count == 1, "the refused submit did not check the input")
        #expect(setup.processor.callCount(.tokenize) == 1, "the refused submit did not tokenize")
        setup.processor.release(.createPayment)
        guard case .succeeded = await first.value else {
            Issue.record("expected the first attempt to succeed, got \(setup.flow.flowState)")
            return
        }
        #expect(await setup.flow.submit() == setup.flow.flowState, "nothing starts after success")
        #expect(setup.steps.checks.count == 1)
        #expect(setup.processor.callCount(.tokenize) == 1)
    }

    @Test("a flow whose cancel is final takes no new attempt; others start over", arguments: [true, false])
    func cancelIsFinal(_ final: Bool) async throws {
        let setup = try await Self.setup(cancelIsFinal: final)
        await setup.flow.cancel()
        #expect(setup.flow.flowState == .cancelled)
        let after = await setup.flow.submit()
        if final {
            #expect(after == .cancelled)
            #expect(setup.steps.checks.count == 0)
            #expect(setup.processor.callCount(.tokenize) == 0)
        } else {
            guard case .succeeded = after else {
                Issue.record("expected a new attempt to succeed, got \(after)")
                return
            }
        }
    }

    @Test("the steps see every change, a resume's claim included, before a call returns it or flowStates() subscribers see it")
    func stepsSeeEveryChangeFirst() async throws {
        let setup = try await Self.setup(cardNumber: "4000000000003220")
        // A subscriber reading while the flow runs notes, as each state arrives, whether the steps
        // had seen it already.
        let stream = setup.flow.flowStates()
        let steps = setup.steps
        let seenOnArrival = Recorder<Bool>()
        let subscriber = Task {
            await elements(of: stream, until: { state in
                seenOnArrival.append(state == .idle || steps.seen.all.contains { $0.state == state })
                if case .succeeded = state { return true }
                return false
            })
        }
        let submitted = await setup.flow.submit()
        #expect(setup.steps.seen.all.last?.state == submitted, "the steps saw the state submit() returned")
        guard case .awaitingChallenge(let challengeId) = submitted else {
            Issue.record("expected a challenge, got \(setup.flow.flowState)")
            return
        }
        setup.processor.hold(.resumePayment)
        let resuming = Task { try await setup.flow.resume(with: .challengeResult("challenge-success")) }
        #expect(await setup.processor.waitForHeldCall(.resumePayment))
        let awaiting = PaymentFlowState.awaitingChallenge(challengeId: challengeId)
        #expect(setup.steps.seen.all.last == PaymentFlowSnapshot(state: awaiting, isCompletingPending: true))
        setup.processor.release(.resumePayment)
        guard case .succeeded(let result) = try await resuming.value else {
            Issue.record("expected success, got \(setup.flow.flowState)")
            return
        }
        #expect(setup.steps.seen.all == [
            PaymentFlowSnapshot(state: .processing, isCompletingPending: false),
            PaymentFlowSnapshot(state: awaiting, isCompletingPending: false),
            PaymentFlowSnapshot(state: awaiting, isCompletingPending: true),
            PaymentFlowSnapshot(state: .succeeded(result), isCompletingPending: false),
        ])
        let received = try #require(await subscriber.value, "the subscriber did not see the success")
        #expect(received == [.idle, .processing, awaiting, .succeeded(result)])
        #expect(seenOnArrival.all == [true, true, true, true], "a subscriber saw a state before the steps did")
    }

    @Test("a rejected resume that was claimed gives the claim back, and the steps see it")
    func releasedClaimIsSeen() async throws {
        let setup = try await Self.setup(cardNumber: "4000000000003220")
        guard case .awaitingChallenge(let challengeId) = await setup.flow.submit() else {
            Issue.record("expected a challenge, got \(setup.flow.flowState)")
            return
        }
        // The processor refuses the forged return as not belonging to the payment.
        setup.processor.script(.resumePayment, .fail(CheckoutError(.invalidReturn, "not this payment")))
        await #expect(throws: CheckoutError(.invalidReturn, "not this payment")) {
            try await setup.flow.resume(with: .challengeResult("forged"))
        }
        #expect(setup.flow.flowState == .awaitingChallenge(challengeId: challengeId))
        let awaiting = PaymentFlowState.awaitingChallenge(challengeId: challengeId)
        #expect(setup.steps.seen.all.suffix(2) == [PaymentFlowSnapshot(state: awaiting, isCompletingPending: true),
                                                   PaymentFlowSnapshot(state: awaiting, isCompletingPending: false)])
    }

    @Test("printing a flow shows its steps only when they describe or reflect themselves")
    func printingAFlow() async throws {
        let setup = try await Self.setup()
        var dumped = ""
        dump(setup.flow, to: &dumped)
        for text in [String(describing: setup.flow), String(reflecting: setup.flow), dumped] {
            #expect(text.contains("PAYMENT_CARD"))
            #expect(!text.contains(setup.steps.secret), "the steps' fields were printed: \(text)")
        }
        let described = try #require(try setup.session.flow(for: .payPal) as? CorePaymentFlow<DescribedSteps>)
        #expect(String(describing: described) == "CorePaymentFlow(PAYPAL, idle, described steps)")
    }

    /// A flow that ignores every rule: what a handler could once return in place of the core's.
    final class OwnFlow: PaymentFlow {
        let paymentMethodType: PaymentMethodType = .payPal
        var flowState: PaymentFlowState { .idle }
        func flowStates() -> AsyncStream<PaymentFlowState> { AsyncStream { $0.finish() } }
        func submit() async -> PaymentFlowState { .succeeded(PaymentResult(paymentId: "forged", status: .succeeded,
                                                                          paymentMethodType: .payPal)) }
        func cancel() async {}
        func resume(with input: PaymentResumeInput) async throws -> PaymentFlowState { .idle }
    }

    /// A handler that also declares a `makeFlow` of its own; the core never calls it.
    struct OwnFlowHandler: PaymentMethodHandler {
        let type: PaymentMethodType = .payPal
        let display = PaymentMethodDisplay(name: "Own", buttonText: "Pay")
        func makeSteps(context: PaymentFlowContext) -> DescribedSteps { DescribedSteps(context: context) }
        func makeFlow(context: PaymentFlowContext) -> any PaymentFlow { OwnFlow() }
    }

    @Test("a handler supplies steps only: the session's flow is always the core's step flow")
    func aHandlerCannotSupplyItsOwnFlow() async throws {
        let registry = PaymentMethodRegistry()
        try registry.register(OwnFlowHandler())
        let session = Fixtures.session(registry: registry, processor: ControllableProcessor(),
                                       configuration: Fixtures.configuration([.payPal]))
        await session.start()
        let flow = try session.flow(for: .payPal)
        #expect(flow is CorePaymentFlow<DescribedSteps>, "got \(type(of: flow))")
        #expect(!(flow is OwnFlow))
        #expect(await flow.submit() == .cancelled, "the steps' tokenize (a dismissal) ran, under the core's rules")
        #expect(session.deliveredOutcomes.isEmpty)
    }

    /// Steps whose observer, when the flow starts processing, starts a reader of the flow on another
    /// thread and, once the reader is about to read, gives it up to a second to finish before it
    /// notes the change. Run inside the flow's lock (the rule), the observer holds the reader off
    /// for that whole second, and the reader then gets a state the observer has seen. Run outside
    /// it, the reader finishes at once with a state the observer has not noted yet.
    final class SlowObserverSteps: PaymentSteps {
        let flow = Locked<(any PaymentFlow)?>(nil)
        let seen = Recorder<PaymentFlowState>()
        let reads = AsyncStream<(PaymentFlowState, Bool)>.makeStream()
        let readDone = AsyncStream<Void>.makeStream()

        /// Stays `processing` until the reader has read, then fails the attempt.
        func tokenize(_ attempt: PaymentStepAttempt) async throws -> PaymentTokenization {
            _ = await firstElement(of: readDone.stream) { _ in true }
            return .invalidInput(CheckoutError(.invalidPaymentData, "nothing to pay with"))
        }

        func flowChanged(_ snapshot: PaymentFlowSnapshot) {
            if snapshot.state == .processing, let flow = flow.withLock({ $0 }) {
                let aboutToRead = DispatchSemaphore(value: 0)
                let read = DispatchSemaphore(value: 0)
                Thread { [self] in
                    aboutToRead.signal()
                    let state = flow.flowState
                    read.signal()
                    reads.continuation.yield((state, seen.all.contains(state)))
                    readDone.continuation.yield()
                }.start()
                aboutToRead.wait()
                _ = read.wait(timeout: .now() + 1)
            }
            seen.append(snapshot.state)
        }
    }

    struct SlowObserverHandler: PaymentMethodHandler {
        let type: PaymentMethodType = .payPal
        let display = PaymentMethodDisplay(name: "Slow", buttonText: "Pay")
        func makeSteps(context: PaymentFlowContext) -> SlowObserverSteps { SlowObserverSteps() }
    }

    @Test("a caller reading the flow during a change gets the new state only once the steps have seen it")
    func theObserverRunsInsideTheChange() async throws {
        let registry = PaymentMethodRegistry()
        try registry.register(SlowObserverHandler())
        let session = Fixtures.session(registry: registry, processor: ControllableProcessor(),
                                       configuration: Fixtures.configuration([.payPal]))
        await session.start()
        let flow = try #require(try session.flow(for: .payPal) as? CorePaymentFlow<SlowObserverSteps>)
        flow.steps.flow.withLock { $0 = flow }
        defer { flow.steps.flow.withLock { $0 = nil } }
        _ = await flow.submit()
        let read = try #require(await firstElement(of: flow.steps.reads.stream) { _ in true }, "the reader never read")
        #expect(read.1, "the reader got \(read.0) before the steps had seen it")
    }
}
