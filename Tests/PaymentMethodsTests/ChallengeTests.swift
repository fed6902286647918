import CheckoutCore
import CheckoutLocking
import Foundation
import Testing
import VaultedPaymentMethod
import WalletPaymentMethods

/// A processor whose payments all need a 3-D Secure challenge: `challenge-success` completes
/// them, any other result fails them. Everything else goes to the sandbox.
final class ChallengingProcessor: PaymentProcessor {
    private let sandbox = SandboxProcessor()
    private let counter = Locked(0)

    func clientSession(for token: ClientToken) async throws -> ClientSession { try await sandbox.clientSession(for: token) }

    func tokenize(_ request: TokenizationRequest, session: ClientSession) async throws -> PaymentMethodToken {
        try await sandbox.tokenize(request, session: session)
    }

    func createPayment(_ request: CreatePaymentRequest) async throws -> PaymentResponse {
        let id = counter.withLock { count in
            count += 1
            return "pay_ch_\(count)"
        }
        return PaymentResponse(paymentId: id, status: .pending, requiredAction: .challenge(challengeId: "ch_\(id)"))
    }

    func resumePayment(paymentId: String, resumeToken: String) async throws -> PaymentResponse {
        resumeToken == "challenge-success"
            ? PaymentResponse(paymentId: paymentId, status: .succeeded)
            : PaymentResponse(paymentId: paymentId, status: .failed, reason: "3-D Secure authentication failed")
    }

    func paymentStatus(paymentId: String) async throws -> PaymentResponse {
        PaymentResponse(paymentId: paymentId, status: .pending)
    }

    func exchangeVaulted(_ request: VaultedExchangeRequest, session: ClientSession) async throws -> PaymentMethodToken {
        try await sandbox.exchangeVaulted(request, session: session)
    }
}

@Suite("3-D Secure challenges in vaulted and wallet flows")
struct ChallengeTests {
    static func session() async throws -> CheckoutSession {
        let registry = try registry([VaultedPaymentHandler(), ApplePayHandler(authorizer: SandboxWalletAuthorizer())])
        let methods = [AdvertisedPaymentMethod(id: "pm_card", type: .paymentCard),
                       AdvertisedPaymentMethod(id: "pm_apple", type: .applePay)]
        let token = ClientToken(merchantId: "m", customerId: "c", amount: 1000, currency: "EUR", country: "NL",
                                allowedCardNetworks: [.visa], expiresAt: Date(timeIntervalSince1970: 4_102_444_800),
                                paymentMethods: methods)
        let session = CheckoutSession(clientToken: token.encoded(), configuration: WalletPaymentFlowTests.configuration,
                                      registry: registry, processor: ChallengingProcessor())
        await session.start()
        try #require(session.phase == .ready)
        return session
    }

    static func flows(_ session: CheckoutSession) throws -> [any PaymentFlow] {
        [try session.vaultedFlow(for: VaultedPaymentFlowTests.visa, cvv: nil), try session.flow(for: .applePay)]
    }

    @Test(arguments: [0, 1])
    func challengeSuccessCompletesThePayment(flowIndex: Int) async throws {
        let session = try await Self.session()
        let flow = try Self.flows(session)[flowIndex]
        let states = flow.flowStates()

        let awaiting = await flow.submit()
        await #expect(throws: CheckoutError.self) {
            try await flow.resume(with: .returnURL(URL(fileURLWithPath: "/")))
        }
        let final = try await flow.resume(with: .challengeResult("challenge-success"))

        let result = PaymentResult(paymentId: "pay_ch_1", status: .succeeded, paymentMethodType: flow.paymentMethodType)
        #expect(awaiting == .awaitingChallenge(challengeId: "ch_pay_ch_1"))
        #expect(final == .succeeded(result))
        #expect(await drain(states) == [.idle, .processing, .awaitingChallenge(challengeId: "ch_pay_ch_1"),
                                        .succeeded(result)])
        #expect(session.deliveredOutcomes == [.success(result)])
        let replay = await #expect(throws: CheckoutError.self) {
            try await flow.resume(with: .challengeResult("challenge-success"))
        }
        #expect(replay?.code == .invalidReturn)
    }

    @Test(arguments: [0, 1])
    func challengeFailureFailsTheAttempt(flowIndex: Int) async throws {
        let session = try await Self.session()
        let flow = try Self.flows(session)[flowIndex]
        let states = flow.flowStates()

        _ = await flow.submit()
        let final = try await flow.resume(with: .challengeResult("nope"))

        let error = CheckoutError(.paymentFailed, "3-D Secure authentication failed")
        #expect(final == .failed(error))
        #expect(await drain(states) == [.idle, .processing, .awaitingChallenge(challengeId: "ch_pay_ch_1"),
                                        .failed(error)])
        #expect(session.deliveredOutcomes.map(\.ignoringCheckoutData) == [.failure(error, checkoutData: nil)])
    }
}
