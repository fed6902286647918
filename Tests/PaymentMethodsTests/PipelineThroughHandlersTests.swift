import CheckoutCore
import CheckoutCoreTesting
import CheckoutLocking
import Foundation
import RedirectPaymentMethod
import Testing
import VaultedPaymentMethod
import WalletPaymentMethods

@Suite("Third-party handler")
struct ThirdPartyHandlerTests {
    static let advertised = [AdvertisedPaymentMethod(id: "pm_store", type: StoreCardHandler.storeCard),
                             AdvertisedPaymentMethod(id: "pm_paypal", type: .payPal)]

    static func harness() async throws -> Harness {
        let registry = try registry([StoreCardHandler()])
        try RedirectPaymentHandler.registerFactory(in: registry, clock: TestClock.automatic())
        let configuration = CheckoutConfiguration(paymentMethods: [
            .init(type: .payPal, handler: "redirect"),
            .init(type: StoreCardHandler.storeCard, display: .init(name: "Acme store card")),
        ])
        return try await Harness.start(methods: advertised, configuration: configuration, registry: registry)
    }

    static func card(_ number: String) -> CardDetails {
        CardDetails(number: number, cvv: "123", expiryMonth: 12, expiryYear: 2030)
    }

    @Test func aHandlerDefinedOutsideThePluginsIsOfferedAndPaysEndToEnd() async throws {
        let harness = try await Self.harness()
        #expect(harness.session.paymentMethods.map(\.name) == ["PayPal", "Acme store card"])
        let selection = try #require(harness.session.selection)
        let method = try #require(harness.session.paymentMethods.last)
        selection.select(method)
        let flow = try #require(selection.selectedFlow as? StoreCardFlow)
        let states = flow.flowStates()

        flow.enter(Self.card("4111111111111111"))
        let final = await flow.submit()

        guard case .succeeded(let result) = final else {
            Issue.record("expected success, got \(final)")
            return
        }
        #expect(result.paymentMethodType == StoreCardHandler.storeCard)
        #expect(await drain(states) == [.idle, .processing, .succeeded(result)])
        #expect(harness.session.deliveredOutcomes == [.success(result)])
        #expect(harness.processor.createKeys == ["key-1"])
    }
}

@Suite("Pipeline promises through the handlers")
struct PipelineThroughHandlersTests {
    @Test func retryAfterANetworkErrorReusesTheKey() async throws {
        let harness = try await ThirdPartyHandlerTests.harness()
        let flow = try #require(try harness.session.flow(for: StoreCardHandler.storeCard) as? StoreCardFlow)

        flow.enter(ThirdPartyHandlerTests.card("4000000000009995"))  // first create call: network error
        let final = await flow.submit()

        guard case .succeeded = final else {
            Issue.record("expected success after the retry, got \(final)")
            return
        }
        #expect(harness.processor.createKeys == ["key-1", "key-1"])
        #expect(harness.keys.calls == 1)
        #expect(harness.sandbox.createPaymentCallCount == 2)
        #expect(harness.sandbox.paymentCount == 1)
    }

    @Test func aPersistentNetworkErrorFailsAfterRetriesWithOneKey() async throws {
        let harness = try await ThirdPartyHandlerTests.harness()
        let flow = try #require(try harness.session.flow(for: StoreCardHandler.storeCard) as? StoreCardFlow)

        flow.enter(ThirdPartyHandlerTests.card("4000000000000119"))
        let final = await flow.submit()

        #expect(final == .failed(CheckoutError(.networkError, "sandbox: simulated network error")))
        #expect(harness.processor.createKeys == ["key-1", "key-1", "key-1"])
        #expect(harness.sandbox.paymentCount == 0)
    }

    @Test func aNewAttemptGetsANewKey() async throws {
        let harness = try await ThirdPartyHandlerTests.harness()
        let flow = try #require(try harness.session.flow(for: StoreCardHandler.storeCard) as? StoreCardFlow)

        flow.enter(ThirdPartyHandlerTests.card("4000000000000002"))  // declined
        let first = await flow.submit()
        flow.enter(ThirdPartyHandlerTests.card("4111111111111111"))
        let second = await flow.submit()

        #expect(first == .failed(CheckoutError(.paymentDeclined, "Do not honor")))
        guard case .succeeded = second else {
            Issue.record("expected success, got \(second)")
            return
        }
        #expect(harness.processor.createKeys == ["key-1", "key-2"])
        #expect(harness.sandbox.paymentCount == 2)
    }

    @Test func walletRetryReusesTheKeyAndANewAttemptGetsANewOne() async throws {
        let authorizer = RecordingAuthorizer()
        let harness = try await WalletPaymentFlowTests.harness(authorizer, failFirstCreateCalls: 3)
        let flow = try harness.session.flow(for: .applePay)

        let first = await flow.submit()    // three network errors: the first try and both retries
        let second = await flow.submit()

        #expect(first == .failed(CheckoutError(.networkError, "test: simulated network error")))
        guard case .succeeded = second else {
            Issue.record("expected success, got \(second)")
            return
        }
        #expect(harness.processor.createKeys == ["key-1", "key-1", "key-1", "key-2"])
        #expect(harness.keys.calls == 2)
    }

    @Test func theHooksKeyWinsAndIsReusedOnRetry() async throws {
        let harness = try await WalletPaymentFlowTests.harness(RecordingAuthorizer(), failFirstCreateCalls: 1)
        let seen = Locked<[PaymentCreationData]>([])
        harness.session.onBeforePaymentCreate = { data in
            seen.withLock { $0.append(data) }
            return .continue(idempotencyKey: "order-42")
        }
        let flow = try harness.session.flow(for: .googlePay)

        let final = await flow.submit()

        guard case .succeeded = final else {
            Issue.record("expected success, got \(final)")
            return
        }
        #expect(harness.processor.createKeys == ["order-42", "order-42"])
        #expect(seen.withLock { $0 } == [PaymentCreationData(paymentMethodType: .googlePay, amount: 1999, surcharge: 0,
                                                              currency: "EUR")])
    }

    @Test func aHookWithoutAKeyMeansNoKeyAndTheProviderIsNotAsked() async throws {
        // The seed ignores the provider while onBeforePaymentCreate is set; this test used to pin
        // the old rule (the provider's key was used when the hook gave none).
        let harness = try await WalletPaymentFlowTests.harness(RecordingAuthorizer())
        harness.session.onBeforePaymentCreate = { _ in .continue(idempotencyKey: nil) }
        _ = await (try harness.session.flow(for: .applePay)).submit()
        #expect(harness.processor.createKeys == [nil])
        #expect(harness.keys.calls == 0)
    }

    @Test(arguments: [("Basket changed", "Basket changed"), (nil, PaymentCreationDecision.defaultAbortMessage)])
    func theHookCanAbortARedirectPayment(message: String?, expected: String) async throws {
        let harness = try await RedirectPaymentFlowTests.harness()
        harness.session.onBeforePaymentCreate = { _ in .abort(message: message) }
        let flow = try harness.session.flow(for: .payPal)
        let states = flow.flowStates()

        let final = await flow.submit()

        let error = CheckoutError(.paymentAborted, expected)
        #expect(final == .failed(error))
        #expect(await drain(states) == [.idle, .processing, .failed(error)])
        #expect(harness.processor.createRequests == [])
        #expect(harness.session.deliveredOutcomes.map(\.ignoringCheckoutData) == [.failure(error, checkoutData: nil)])
    }

    @Test func theHookCanAbortAVaultedPayment() async throws {
        let harness = try await VaultedPaymentFlowTests.harness(recapture: false)
        harness.session.onBeforePaymentCreate = { _ in .abort(message: "Out of stock") }
        let selection = try #require(harness.session.selection)
        selection.selectVaulted(VaultedPaymentFlowTests.visa)

        let final = await selection.submitVaulted()

        #expect(final == .failed(CheckoutError(.paymentAborted, "Out of stock")))
        #expect(selection.state.error == "Out of stock")
        #expect(harness.processor.createRequests == [])
    }
}
