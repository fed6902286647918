@testable import CheckoutCore
import CheckoutCoreTesting
import CheckoutTestSupport
import Foundation
import Testing

@Suite struct CheckoutSessionTests {
    @Test func startReachesReadyWithOrderedMethodsAndChildSessions() async throws {
        let session = Fixtures.session()
        let harness = CheckoutHarness(session: session)
        #expect(session.phase == .initializing)
        #expect(session.selection == nil)
        #expect(throws: CheckoutError.self) { try session.flow(for: .payPal) }
        await session.start()
        #expect(session.phase == .ready)
        #expect(session.paymentMethods.map(\.id) == ["pm_ideal", "pm_card", "pm_paypal"])
        let selection = try #require(session.selection)
        #expect(selection.state == PaymentMethodSelectionState(paymentMethods: session.paymentMethods))
        // Reaching ready delivers no outcome.
        await harness.finish()
    }

    @Test func startTwiceFetchesOnce() async {
        let processor = ControllableProcessor()
        let session = Fixtures.session(processor: processor)
        await session.start()
        await session.start()
        #expect(processor.callCount(.clientSession) == 1)
        #expect(session.phase == .ready)
    }

    @Test func concurrentStartsFetchOnce() async {
        let processor = ControllableProcessor()
        let session = Fixtures.session(processor: processor)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<50 { group.addTask { await session.start() } }
        }
        #expect(processor.callCount(.clientSession) == 1)
        #expect(session.phase == .ready)
    }

    @Test func refreshWhileInitializingIsANoOp() async {
        let processor = ControllableProcessor()
        processor.hold(.clientSession)
        let session = Fixtures.session(processor: processor)
        let start = Task { await session.start() }
        #expect(await processor.waitForHeldCall(.clientSession))
        await session.refresh()
        #expect(processor.callCount(.clientSession) == 1)
        #expect(session.phase == .initializing)
        processor.release(.clientSession)
        await start.value
        #expect(session.phase == .ready)
        #expect(processor.callCount(.clientSession) == 1)
    }

    @Test func concurrentRefreshesCollapseIntoOneFetch() async throws {
        let processor = ControllableProcessor()
        let session = Fixtures.session(processor: processor)
        await session.start()
        processor.hold(.clientSession)
        processor.advertise([AdvertisedPaymentMethod(id: "pm_paypal", type: .payPal)])
        let first = Task { await session.refresh() }
        let second = Task { await session.refresh() }
        #expect(await processor.waitForHeldCall(.clientSession))
        processor.release(.clientSession)
        await first.value
        await second.value
        #expect(processor.callCount(.clientSession) == 2, "one for start, one shared by both refreshes")
        #expect(session.paymentMethods.map(\.id) == ["pm_paypal"])
        let selection = try #require(session.selection)
        #expect(selection.state == PaymentMethodSelectionState(paymentMethods: session.paymentMethods))
    }

    @Test func aCancelledRefreshCallerReturnsAtOnceWhileTheFetchGoesOn() async throws {
        let processor = ControllableProcessor()
        let session = Fixtures.session(processor: processor)
        await session.start()
        processor.hold(.clientSession)
        processor.advertise([AdvertisedPaymentMethod(id: "pm_paypal", type: .payPal)])
        let cancelled = Task { await session.refresh() }
        #expect(await processor.waitForHeldCall(.clientSession))
        cancelled.cancel()
        await cancelled.value  // returns while the fetch is still held
        #expect(processor.waitingCount(.clientSession) == 1)
        // The session's methods change before the selection's, so the selection's new state says the fetch went on.
        let states = try #require(session.selection).states()
        processor.release(.clientSession)
        #expect(await firstElement(of: states) { $0.paymentMethods.map(\.id) == ["pm_paypal"] } != nil)
        #expect(session.paymentMethods.map(\.id) == ["pm_paypal"])  // the fetch went on
        #expect(processor.callCount(.clientSession) == 2)
    }

    @Test func refreshFailureIsDeliveredAndSessionStaysReady() async {
        let processor = ControllableProcessor()
        let session = Fixtures.session(processor: processor)
        let harness = CheckoutHarness(session: session)
        await session.start()
        processor.failClientSession(with: CheckoutError(.networkError, "offline"))
        await session.refresh()
        #expect(session.phase == .ready)
        await harness.receiveOutcome { $0.ignoringCheckoutData == .failure(CheckoutError(.networkError, "offline"), checkoutData: nil) }
        await harness.finish()
    }

    @Test func cancelThenStartAgain() async throws {
        let processor = ControllableProcessor()
        let session = Fixtures.session(processor: processor)
        await session.start()
        let firstSelection = try #require(session.selection)
        session.cancel()
        session.cancel()
        #expect(session.phase == .initializing)
        #expect(session.selection == nil)
        #expect(session.paymentMethods.isEmpty)
        await session.start()
        #expect(session.phase == .ready)
        #expect(processor.callCount(.clientSession) == 2)
        let secondSelection = try #require(session.selection)
        #expect(firstSelection !== secondSelection)
    }

    @Test func cancelDuringInitializationDiscardsTheStaleStart() async {
        let processor = ControllableProcessor()
        processor.hold(.clientSession)
        let session = Fixtures.session(processor: processor)
        let start = Task { await session.start() }
        #expect(await processor.waitForHeldCall(.clientSession))
        session.cancel()
        processor.release(.clientSession)
        await start.value
        #expect(session.phase == .initializing, "the cancelled run must not become ready")
        await session.start()
        #expect(session.phase == .ready)
    }

    @Test func phasesArePublished() async {
        let session = Fixtures.session()
        var iterator = session.phases().makeAsyncIterator()
        #expect(await iterator.next() == .initializing)
        await session.start()
        #expect(await iterator.next() == .ready)
        session.cancel()
        #expect(await iterator.next() == .initializing)
    }

    @Test func failureWhileInitializingEndsTheRun() async {
        let expired = Fixtures.token(expiresIn: -10)
        let processor = ControllableProcessor()
        let session = Fixtures.session(token: expired, processor: processor)
        let harness = CheckoutHarness(session: session)
        await session.start()
        #expect(session.phase == .initializing)
        await harness.receiveOutcome { $0.errorCode == .clientTokenExpired }
        await session.start()
        session.dismiss()
        // Nothing after the run ended: not the second start's, not the dismissal.
        await harness.finish()
        #expect(processor.callCount(.clientSession) == 0)
    }

    @Test func invalidTokenFailsWithTypedError() async {
        let session = CheckoutSession(clientToken: "garbage", configuration: Fixtures.configuration(),
                                      registry: Fixtures.registry(), processor: SandboxProcessor())
        let harness = CheckoutHarness(session: session)
        await session.start()
        await harness.receiveOutcome { $0.errorCode == .invalidClientToken }
        await harness.finish()
    }

    @Test func successIsDeliveredOnceEvenIfReportedTwice() async throws {
        let session = Fixtures.session(idempotencyKey: { "key-1" })
        let harness = CheckoutHarness(session: session)
        await session.start()
        let flow = try #require(try session.flow(for: .payPal) as? TestFlow)
        harness.observe(flow)
        await harness.receive(.idle)
        let state = await flow.submit()
        guard case .succeeded(let result) = state else {
            Issue.record("expected success, got \(state)")
            return
        }
        await harness.receive(.processing)
        await harness.receive(.succeeded(result))
        await harness.receiveOutcome(.success(result))
        // The same payment through the pipeline again (only the core can; a misbehaving integration
        // might): the sandbox answers from its idempotency record, and no second success is delivered.
        let token = try #require(flow.steps.lastToken.withLock { $0 })
        _ = await flow.steps.context.pipeline.createPayment(token: token)
        session.dismiss()
        // Nothing else: not the second report, not the dismissal after the success.
        await harness.finish()
    }

    @Test func dismissedIsDeliveredAtMostOnce() async throws {
        let session = Fixtures.session()
        let harness = CheckoutHarness(session: session)
        await session.start()
        session.dismiss()
        session.dismiss()
        let flow = try session.flow(for: .payPal)
        harness.observe(flow)
        await harness.receive(.idle)
        guard case .succeeded = await flow.submit() else {
            Issue.record("expected the payment to go through, got \(flow.flowState)")
            return
        }
        await harness.receiveOutcome(.dismissed)
        await harness.receive(.processing)
        await harness.receive { if case .succeeded = $0 { true } else { false } }
        // The run ended with the dismissal: the payment's success is not delivered.
        await harness.finish()
    }

    @Test func failureTwiceThenSuccess() async throws {
        let numbers = Recorder<String>()
        let attempt = Counter()
        let registry = Fixtures.registry([.paymentCard, .payPal, .adyenIdeal]) {
            // Two declines, then a good card.
            let number = attempt.increment() <= 2 ? "4000000000000002" : "4242424242424242"
            numbers.append(number)
            return number
        }
        let session = Fixtures.session(registry: registry)
        let harness = CheckoutHarness(session: session)
        await session.start()
        let flow = try session.flow(for: .paymentCard)
        harness.observe(flow)
        await harness.receive(.idle)
        let first = await flow.submit()
        let second = await flow.submit()
        let third = await flow.submit()
        #expect(first.isFailure && second.isFailure)
        guard case .succeeded(let result) = third else {
            Issue.record("expected success, got \(third)")
            return
        }
        let declined = CheckoutError(.paymentDeclined, "Do not honor")
        for _ in 0..<2 {
            await harness.receive(.processing)
            await harness.receive(.failed(declined))
            await harness.receiveOutcome { $0.ignoringCheckoutData == .failure(declined, checkoutData: nil) }
        }
        await harness.receive(.processing)
        await harness.receive(.succeeded(result))
        await harness.receiveOutcome(.success(result))
        await harness.finish()
        #expect(session.phase == .ready)
        #expect(numbers.all.count == 3)
    }

    @Test func hookAbortFailsTheAttemptWithDefaultMessage() async throws {
        let processor = ControllableProcessor()
        let session = Fixtures.session(processor: processor)
        let harness = CheckoutHarness(session: session)
        await session.start()
        let flow = try session.flow(for: .payPal)
        harness.observe(flow)
        await harness.receive(.idle)
        // The hook's message, or the default one; either way nothing reaches the processor.
        for (message, expected) in [(nil, "Payment creation aborted"), ("Basket changed", "Basket changed")] {
            session.onBeforePaymentCreate = { _ in .abort(message: message) }
            let aborted = CheckoutError(.paymentAborted, expected)
            #expect(await flow.submit() == .failed(aborted))
            await harness.receive(.processing)
            await harness.receive(.failed(aborted))
            await harness.receiveOutcome { $0.ignoringCheckoutData == .failure(aborted, checkoutData: nil) }
            #expect(processor.backing.createPaymentCallCount == 0)
        }
        await harness.finish()
    }

    @Test func idempotencyKeyIsRequestedOncePerAttemptAndIgnoredWhileTheHookIsSet() async throws {
        // The seed: the provider is "invoked once per payment attempt" and "ignored when
        // onBeforePaymentCreate is set". (This test used to pin the opposite: provider still called.)
        let calls = Counter()
        let seen = Recorder<PaymentCreationData>()
        let processor = ControllableProcessor()
        // Every attempt is declined, so each submit() starts a new attempt (after a success the
        // flow refuses another).
        let session = Fixtures.session(registry: Fixtures.registry { "4000000000000002" }, processor: processor,
                                       idempotencyKey: { "provider-\(calls.increment())" })
        await session.start()
        let flow = try session.flow(for: .payPal)
        _ = await flow.submit()
        _ = await flow.submit()
        #expect(calls.count == 2)

        session.onBeforePaymentCreate = { data in
            seen.append(data)
            return .continue(idempotencyKey: "hook-key")
        }
        _ = await flow.submit()
        session.onBeforePaymentCreate = { _ in .continue(idempotencyKey: nil) }
        _ = await flow.submit()
        #expect(calls.count == 2, "the provider is not called while the hook is set")
        #expect(processor.createKeys == ["provider-1", "provider-2", "hook-key", nil])
        #expect(seen.all == [PaymentCreationData(paymentMethodType: .paymentCard, amount: 1999, surcharge: 0,
                                                 currency: "EUR")])
    }

    @Test func hookKeyIsTheKeyTheProcessorSees() async throws {
        // The sandbox answers a repeated idempotency key with the first payment: so two attempts
        // under the same hook key produce one payment.
        let processor = ControllableProcessor()
        let session = Fixtures.session(processor: processor, idempotencyKey: { UUID().uuidString })
        session.onBeforePaymentCreate = { _ in .continue(idempotencyKey: "fixed") }
        await session.start()
        let flow = try session.flow(for: .payPal)
        let first = await flow.submit()
        session.cancel()
        await session.start()
        session.onBeforePaymentCreate = { _ in .continue(idempotencyKey: "fixed") }
        let second = try await session.flow(for: .payPal).submit()
        #expect(first == second)
        #expect(processor.backing.paymentCount == 1)
    }

    @Test func networkErrorRetriesReuseTheKeyAndNewAttemptsGetANewOne() async throws {
        let keys = Counter()
        let registry = Fixtures.registry([.paymentCard, .payPal, .adyenIdeal]) { "4000000000009995" }
        let processor = ControllableProcessor()
        let session = Fixtures.session(registry: registry, processor: processor,
                                       idempotencyKey: { "k\(keys.increment())" })
        await session.start()
        let state = try await session.flow(for: .paymentCard).submit()
        guard case .succeeded = state else {
            Issue.record("expected success after one retried network error, got \(state)")
            return
        }
        #expect(processor.backing.createPaymentCallCount == 2)
        #expect(keys.count == 1, "the retry reused the attempt's key")
    }

    @Test func networkErrorRetriesWaitOnTheSessionsSleepClock() async throws {
        let registry = Fixtures.registry([.paymentCard, .payPal, .adyenIdeal]) { "4000000000009995" }
        let processor = ControllableProcessor()
        let clock = TestClock()
        let session = Fixtures.session(registry: registry, processor: processor, sleepClock: clock)
        await session.start()
        let flow = try session.flow(for: .paymentCard)
        let submit = Task { await flow.submit() }
        // The first try met a network error; the retry waits on the session's clock, not on real time.
        #expect(await clock.waitForSleeper())
        #expect(processor.backing.createPaymentCallCount == 1)
        clock.advance(by: .milliseconds(39))
        #expect(clock.sleeperCount == 1, "the first retry waits 40 ms")
        clock.advance(by: .milliseconds(1))
        #expect(clock.sleeperCount == 0, "the retry wakes at 40 ms")
        // Wakes whatever a broken rule left asleep, so the test fails instead of hanging.
        clock.advance(by: .seconds(10))
        guard case .succeeded = await submit.value else {
            Issue.record("expected success after one retried network error, got \(flow.flowState)")
            return
        }
        #expect(processor.backing.createPaymentCallCount == 2)
    }

    @Test func vaultOnSuccessStoresOnlyMaskedData() async throws {
        let vault = InMemoryVaultProvider()
        var token = Fixtures.token()
        token.paymentMethods[0].options.vaultOnSuccess = true
        let session = Fixtures.session(token: token, vault: vault)
        let harness = CheckoutHarness(session: session)
        await session.start()
        let state = try await session.flow(for: .paymentCard).submit()
        guard case .succeeded(let result) = state else {
            Issue.record("expected success, got \(state)")
            return
        }
        await harness.receiveOutcome(.success(result))
        await harness.finish()
        let saved = try await vault.paymentMethods(for: VaultScope(merchantId: "merchant_a", customerId: "customer_1"))
        #expect(saved.count == 1)
        #expect(saved.first?.id == result.vaultedToken)
        #expect(saved.first?.paymentInstrumentData.first6Digits == "424242")
        #expect(saved.first?.paymentInstrumentData.last4Digits == "4242")
    }
}

extension CheckoutOutcome {
    var errorCode: CheckoutError.Code? {
        if case .failure(let error, _) = self { return error.code }
        return nil
    }
}

extension PaymentFlowState {
    var isFailure: Bool {
        if case .failed = self { return true }
        return false
    }
}
