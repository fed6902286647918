import CheckoutCore
import CheckoutCoreTesting
import Testing

@Suite(.timeLimit(.minutes(2)))
struct ControllableProcessorTests {
    @Test func scriptedCreateAnswersAreUsedOnceEachThenTheSandboxAnswersAgain() async throws {
        let processor = ControllableProcessor()
        let offline = CheckoutError(.networkError, "offline")
        // The pipeline retries a network error twice: three failures fail the attempt.
        processor.script(.createPayment, .fail(offline), .fail(offline), .fail(offline))
        let session = Fixtures.session(processor: processor)
        let harness = CheckoutHarness(session: session)
        await session.start()
        let flow = try session.flow(for: .paymentCard)
        harness.observe(flow)
        await harness.receive(.idle)
        _ = await harness.run { await flow.submit() }.value
        await harness.receive(.processing)
        await harness.receive { if case .failed(let error) = $0 { error.code == .networkError } else { false } }
        await harness.receiveOutcome { $0.failureError?.code == .networkError }
        _ = await harness.run { await flow.submit() }.value
        await harness.receive(.processing)
        await harness.receive { if case .succeeded = $0 { true } else { false } }
        await harness.receiveOutcome { if case .success = $0 { true } else { false } }
        await harness.finish()
        #expect(processor.callCount(.createPayment) == 4, "three scripted, one to the sandbox")
    }

    @Test func aHeldCallWaitsForItsReleaseAndIsCounted() async throws {
        let processor = ControllableProcessor()
        processor.hold(.clientSession)
        let session = Fixtures.session(processor: processor)
        let start = Task { await session.start() }
        #expect(await processor.waitForHeldCall(.clientSession))
        #expect(processor.waitingCount(.clientSession) == 1)
        #expect(session.phase == .initializing)
        processor.release(.clientSession)
        await start.value
        #expect(session.phase == .ready)
        #expect(processor.callCount(.clientSession) == 1)
        #expect(processor.waitingCount(.clientSession) == 0)
    }

    @Test func aResponseScriptedForACallWithoutOneIsATypedError() async throws {
        let processor = ControllableProcessor()
        processor.script(.clientSession, .respond(PaymentResponse(paymentId: "pay_1", status: .succeeded)))
        let session = Fixtures.session(processor: processor)
        await session.start()
        #expect(session.deliveredOutcomes.first?.failureError?.code == .invalidState)
    }
}
