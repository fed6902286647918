import CheckoutCore
import CheckoutCoreTesting
import Testing

/// The harness of CheckoutCoreTesting: it passes a run whose every state and outcome is asserted,
/// and fails (proved with `withKnownIssue`) on what it must catch.
@Suite(.timeLimit(.minutes(2)))
struct CheckoutHarnessTests {
    static let declined = CheckoutError(.paymentDeclined, "Do not honor")

    private static func readyFlow(cardNumber: String = "4242424242424242",
                                  processor: ControllableProcessor<SandboxProcessor> = ControllableProcessor())
        async throws -> (CheckoutSession, any PaymentFlow, CheckoutHarness) {
        let session = Fixtures.session(registry: Fixtures.registry { cardNumber }, processor: processor)
        let harness = CheckoutHarness(session: session, timeout: .seconds(30))
        await session.start()
        let flow = try session.flow(for: .paymentCard)
        harness.observe(flow)
        return (session, flow, harness)
    }

    @Test func aRunWhoseEveryStateAndOutcomeIsAssertedPasses() async throws {
        let (_, flow, harness) = try await Self.readyFlow()
        await harness.receive(.idle)
        harness.run { await flow.submit() }
        await harness.receive(.processing)
        let state = await harness.receive { if case .succeeded = $0 { true } else { false } }
        guard case .succeeded(let result) = state else { return }
        await harness.receiveOutcome(.success(result))
        await harness.finish()
    }

    @Test func aDeclineIsReceivedAsAFailedStateAndAFailureOutcome() async throws {
        let (_, flow, harness) = try await Self.readyFlow(cardNumber: "4000000000000002")
        await harness.receive(.idle)
        _ = await harness.run { await flow.submit() }.value
        await harness.receive(.processing)
        await harness.receive(.failed(Self.declined))
        await harness.receiveOutcome { $0.failureError == Self.declined }
        await harness.finish()
    }

    @Test func anUnassertedStateFailsFinish() async throws {
        let (_, _, harness) = try await Self.readyFlow()
        await withKnownIssue("the flow's .idle was never received") {
            await harness.finish()
        } matching: { issue in
            issue.comments.contains { $0.rawValue.hasPrefix("Flow state ") && $0.rawValue.hasSuffix("was published but not received") }
        }
    }

    @Test func anUnassertedOutcomeFailsFinish() async throws {
        let (_, flow, harness) = try await Self.readyFlow(cardNumber: "4000000000000002")
        await harness.receive(.idle)
        _ = await harness.run { await flow.submit() }.value
        await harness.receive(.processing)
        await harness.receive(.failed(Self.declined))
        await withKnownIssue("the failure outcome was never received") {
            await harness.finish()
        } matching: { issue in
            issue.comments.contains { $0.rawValue.hasPrefix("Outcome ") }
        }
    }

    @Test func aTaskStillRunningFailsFinish() async throws {
        let processor = ControllableProcessor()
        processor.hold(.createPayment)
        let (_, flow, harness) = try await Self.readyFlow(processor: processor)
        await harness.receive(.idle)
        let submit = harness.run { await flow.submit() }
        #expect(await processor.waitForHeldCall(.createPayment))
        await harness.receive(.processing)
        await withKnownIssue("submit() is parked in createPayment") {
            await harness.finish(timeout: .milliseconds(200))
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("still running") }
        }
        processor.release(.createPayment)
        _ = await submit.value
    }

    @Test func aDifferentStateFailsReceive() async throws {
        let (_, _, harness) = try await Self.readyFlow()
        await withKnownIssue("the next state is .idle") {
            await harness.receive(.processing)
        } matching: { issue in
            issue.comments.contains { $0.rawValue.hasPrefix("Received flow state ") && $0.rawValue.contains(", expected ") }
        }
        await harness.finish()
    }

    @Test func aStateThatNeverComesFailsReceiveAfterTheTimeout() async throws {
        let (_, _, harness) = try await Self.readyFlow()
        await harness.receive(.idle)
        await withKnownIssue("nothing was submitted") {
            await harness.receive(.processing, timeout: .milliseconds(100))
        } matching: { issue in
            issue.comments.contains { $0.rawValue.hasPrefix("No flow state was published within") }
        }
        await withKnownIssue("no outcome either") {
            await harness.receiveOutcome(timeout: .milliseconds(100)) { _ in true }
        } matching: { issue in
            issue.comments.contains { $0.rawValue.hasPrefix("No outcome was delivered within") }
        }
        await harness.finish()
    }

    @Test func outcomesDeliveredBeforeTheHarnessAreRecordedFirst() async throws {
        let session = Fixtures.session(token: Fixtures.token(expiresIn: -10))
        await session.start()
        let harness = CheckoutHarness(session: session)
        await harness.receiveOutcome { $0.failureError?.code == .clientTokenExpired }
        await harness.finish()
    }
}
