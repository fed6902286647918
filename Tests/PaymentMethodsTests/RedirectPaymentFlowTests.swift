import CheckoutCore
import CheckoutCoreTesting
import Foundation
import RedirectPaymentMethod
import Testing

@Suite("Redirect payment flow")
struct RedirectPaymentFlowTests {
    static let paypal = AdvertisedPaymentMethod(id: "pm_paypal", type: .payPal)

    /// A ready session offering PayPal through the shared `redirect` implementation.
    static func harness(amount: Int = 1000, policy: RedirectPollingPolicy = .standard,
                        clock: any Clock<Duration> = TestClock.automatic(),
                        options: [String: JSONValue] = [:]) async throws -> Harness {
        let registry = PaymentMethodRegistry()
        try RedirectPaymentHandler.registerFactory(in: registry, polling: policy, clock: clock)
        let configuration = CheckoutConfiguration(paymentMethods: [
            .init(type: .payPal, handler: "redirect", options: options),
        ])
        return try await Harness.start(methods: [paypal], configuration: configuration, registry: registry,
                                       amount: amount)
    }

    /// Submits and returns the flow, the redirect URL and the sandbox's return URL for it.
    static func redirected(_ harness: Harness) async throws -> (RedirectPaymentFlow, AsyncStream<PaymentFlowState>, URL) {
        let flow = try #require(try harness.session.flow(for: .payPal) as? RedirectPaymentFlow)
        let states = flow.flowStates()
        let state = await flow.submit()
        guard case .awaitingRedirect(let url) = state else {
            Issue.record("expected awaitingRedirect, got \(state)")
            throw CheckoutError(.invalidState, "not redirected")
        }
        return (flow, states, url)
    }

    static func policy(interval: Int, timeout: Int) throws -> RedirectPollingPolicy {
        try RedirectPollingPolicy(initialInterval: .seconds(interval), timeout: .seconds(timeout))
    }

    @Test func returnURLCompletesThePayment() async throws {
        let harness = try await Self.harness()
        let (flow, states, url) = try await Self.redirected(harness)
        let paymentId = try #require(flow.paymentId)
        #expect(url.absoluteString == "https://\(SandboxProcessor.redirectHost)/redirect/\(paymentId)?method=PAYPAL")
        #expect(flow.expectedReturnURL?.absoluteString == "\(SandboxProcessor.returnURLBase)?paymentId=\(paymentId)")
        let returnURL = try #require(harness.sandbox.simulateRedirect(url))

        let final = try await flow.resume(with: .returnURL(returnURL))

        let result = PaymentResult(paymentId: paymentId, status: .succeeded, paymentMethodType: .payPal)
        #expect(final == .succeeded(result))
        #expect(await drain(states) == [.idle, .processing, .awaitingRedirect(url), .succeeded(result)])
        #expect(harness.session.deliveredOutcomes == [.success(result)])
        #expect(harness.processor.tokenizations == [.redirect(.payPal)])
        #expect(harness.keys.calls == 1)
    }

    @Test func providerFailureEndsTheAttempt() async throws {
        let harness = try await Self.harness(amount: 1001)
        let (flow, states, url) = try await Self.redirected(harness)
        let returnURL = try #require(harness.sandbox.simulateRedirect(url))
        #expect(returnURL.query?.contains("status=failed") == true)

        let final = try await flow.resume(with: .returnURL(returnURL))

        let error = CheckoutError(.paymentFailed, "The shopper did not authorise the payment")
        #expect(final == .failed(error))
        #expect(await drain(states) == [.idle, .processing, .awaitingRedirect(url), .failed(error)])
        #expect(harness.session.deliveredOutcomes.map(\.ignoringCheckoutData) == [.failure(error, checkoutData: nil)])
        // The same return cannot be used again, not even after the failure.
        await #expect(throws: CheckoutError.self) { try await flow.resume(with: .returnURL(returnURL)) }
        #expect(flow.flowState == .failed(error))
    }

    @Test func forgedStatusInTheReturnURLIsIgnored() async throws {
        let harness = try await Self.harness(amount: 1001)
        let (flow, _, url) = try await Self.redirected(harness)
        let genuine = try #require(harness.sandbox.simulateRedirect(url))
        let forged = try #require(URL(string: genuine.absoluteString.replacingOccurrences(of: "status=failed",
                                                                                         with: "status=success")))
        let final = try await flow.resume(with: .returnURL(forged))
        #expect(final == .failed(CheckoutError(.paymentFailed, "The shopper did not authorise the payment")))
    }

    @Test func replayedReturnURLIsRejectedAndChangesNothing() async throws {
        let harness = try await Self.harness()
        let (flow, states, url) = try await Self.redirected(harness)
        let paymentId = try #require(flow.paymentId)
        let returnURL = try #require(harness.sandbox.simulateRedirect(url))
        let first = try await flow.resume(with: .returnURL(returnURL))

        let error = await #expect(throws: CheckoutError.self) { try await flow.resume(with: .returnURL(returnURL)) }

        #expect(error?.code == .invalidReturn)
        let result = PaymentResult(paymentId: paymentId, status: .succeeded, paymentMethodType: .payPal)
        #expect(first == .succeeded(result))
        #expect(flow.flowState == .succeeded(result))
        #expect(await drain(states) == [.idle, .processing, .awaitingRedirect(url), .succeeded(result)])
        #expect(harness.session.deliveredOutcomes == [.success(result)])
        #expect(try await harness.sandbox.paymentStatus(paymentId: paymentId).status == .succeeded)
    }

    /// Ways to tamper with the sandbox's genuine return URL for payment `id` with token `token`.
    enum Tampering: String, CaseIterable, Sendable {
        case otherPaymentId, otherScheme, otherHost, otherPath, missingResumeToken, emptyResumeToken,
             alteredResumeToken, duplicatedPaymentId, missingPaymentId

        func url(id: String, token: String) -> URL? {
            let base = SandboxProcessor.returnURLBase
            return switch self {
            case .otherPaymentId: URL(string: "\(base)?paymentId=pay_999&status=success&resumeToken=\(token)")
            case .otherScheme: URL(string: "https://payment-return?paymentId=\(id)&status=success&resumeToken=\(token)")
            case .otherHost: URL(string: "checkoutkit://evil.example?paymentId=\(id)&status=success&resumeToken=\(token)")
            case .otherPath: URL(string: "\(base)/other?paymentId=\(id)&status=success&resumeToken=\(token)")
            case .missingResumeToken: URL(string: "\(base)?paymentId=\(id)&status=success")
            case .emptyResumeToken: URL(string: "\(base)?paymentId=\(id)&status=success&resumeToken=")
            case .alteredResumeToken: URL(string: "\(base)?paymentId=\(id)&status=success&resumeToken=\(token)x")
            case .duplicatedPaymentId:
                URL(string: "\(base)?paymentId=\(id)&paymentId=pay_999&status=success&resumeToken=\(token)")
            case .missingPaymentId: URL(string: "\(base)?status=success&resumeToken=\(token)")
            }
        }
    }

    @Test(arguments: Tampering.allCases)
    func tamperedReturnURLIsRejectedAndTheGenuineOneStillWorks(_ tampering: Tampering) async throws {
        let harness = try await Self.harness()
        let (flow, states, url) = try await Self.redirected(harness)
        let paymentId = try #require(flow.paymentId)
        let genuine = try #require(harness.sandbox.simulateRedirect(url))
        let token = try #require(URLComponents(url: genuine, resolvingAgainstBaseURL: false)?
            .queryItems?.first { $0.name == "resumeToken" }?.value)
        let tampered = try #require(tampering.url(id: paymentId, token: token))

        let error = await #expect(throws: CheckoutError.self) { try await flow.resume(with: .returnURL(tampered)) }

        #expect(error?.code == .invalidReturn)
        #expect(error.map { !$0.message.contains(token) } == true)
        #expect(flow.flowState == .awaitingRedirect(url))
        #expect(harness.session.deliveredOutcomes == [])
        #expect(try await harness.sandbox.paymentStatus(paymentId: paymentId).status == .pending)

        let final = try await flow.resume(with: .returnURL(genuine))
        let result = PaymentResult(paymentId: paymentId, status: .succeeded, paymentMethodType: .payPal)
        #expect(final == .succeeded(result))
        #expect(await drain(states) == [.idle, .processing, .awaitingRedirect(url), .succeeded(result)])
        #expect(harness.session.deliveredOutcomes == [.success(result)])
    }

    @Test func returnFromAnEarlierAttemptIsRejected() async throws {
        let harness = try await Self.harness()
        let (flow, states, firstURL) = try await Self.redirected(harness)
        let oldReturn = try #require(harness.sandbox.simulateRedirect(firstURL))
        await flow.cancel()
        let second = await flow.submit()
        guard case .awaitingRedirect(let secondURL) = second else {
            Issue.record("expected a second redirect, got \(second)")
            return
        }
        #expect(secondURL != firstURL)

        let error = await #expect(throws: CheckoutError.self) { try await flow.resume(with: .returnURL(oldReturn)) }

        #expect(error?.code == .invalidReturn)
        #expect(flow.flowState == .awaitingRedirect(secondURL))
        #expect(await drain(states) == [.idle, .processing, .awaitingRedirect(firstURL), .cancelled, .processing,
                                        .awaitingRedirect(secondURL)])
        #expect(harness.keys.calls == 2)
        #expect(Set(harness.processor.createKeys) == ["key-1", "key-2"])
    }

    @Test func challengeResultIsNotAcceptedByARedirectFlow() async throws {
        let harness = try await Self.harness()
        let (flow, _, url) = try await Self.redirected(harness)
        let error = await #expect(throws: CheckoutError.self) { try await flow.resume(with: .challengeResult("x")) }
        #expect(error?.code == .invalidReturn)
        #expect(flow.flowState == .awaitingRedirect(url))
    }

    @Test func cancelEndsTheFlowWithoutAnOutcomeAndRejectsALateReturn() async throws {
        let harness = try await Self.harness()
        let (flow, states, url) = try await Self.redirected(harness)
        let returnURL = try #require(harness.sandbox.simulateRedirect(url))

        await flow.cancel()
        await flow.cancel()

        let error = await #expect(throws: CheckoutError.self) { try await flow.resume(with: .returnURL(returnURL)) }
        #expect(error?.code == .invalidReturn)
        #expect(await drain(states) == [.idle, .processing, .awaitingRedirect(url), .cancelled])
        #expect(harness.session.deliveredOutcomes == [])
        #expect(await flow.pollForCompletion() == .cancelled)
    }

    @Test func submitWhileAwaitingTheRedirectStartsNoSecondPayment() async throws {
        let harness = try await Self.harness()
        let (flow, _, url) = try await Self.redirected(harness)
        #expect(await flow.submit() == .awaitingRedirect(url))
        #expect(harness.processor.createRequests.count == 1)
        #expect(harness.keys.calls == 1)
    }
}
