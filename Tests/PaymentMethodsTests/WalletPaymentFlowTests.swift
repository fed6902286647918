import CheckoutCore
import CheckoutLocking
import Foundation
import Testing
import WalletPaymentMethods

/// An authorizer that records every request and delegates to the sandbox authorizer.
final class RecordingAuthorizer: WalletAuthorizer {
    private let requests = Locked<[WalletPaymentRequest]>([])
    private let sandbox: SandboxWalletAuthorizer

    init(_ behaviour: SandboxWalletAuthorizer.Behaviour = .approve) { sandbox = SandboxWalletAuthorizer(behaviour: behaviour) }

    var received: [WalletPaymentRequest] { requests.withLock { $0 } }

    func authorize(_ request: WalletPaymentRequest) async throws -> WalletAuthorization {
        requests.withLock { $0.append(request) }
        return try await sandbox.authorize(request)
    }
}

@Suite("Wallet payment flow")
struct WalletPaymentFlowTests {
    static let configuration = CheckoutConfiguration(paymentMethods: [
        .init(type: .applePay, options: WalletRequestTests.appleOptions),
        .init(type: .googlePay, options: WalletRequestTests.googleOptions),
    ])
    static let advertised = [AdvertisedPaymentMethod(id: "pm_apple", type: .applePay),
                             AdvertisedPaymentMethod(id: "pm_google", type: .googlePay)]

    static func harness(_ authorizer: RecordingAuthorizer, configuration: CheckoutConfiguration = configuration,
                        networks: [CardNetwork] = [.visa, .mastercard],
                        failFirstCreateCalls: Int = 0) async throws -> Harness {
        let registry = try registry([ApplePayHandler(authorizer: authorizer), GooglePayHandler(authorizer: authorizer)])
        return try await Harness.start(methods: advertised, configuration: configuration, registry: registry,
                                       amount: 1999, allowedCardNetworks: networks,
                                       failFirstCreateCalls: failFirstCreateCalls)
    }

    @Test(arguments: [PaymentMethodType.applePay, .googlePay])
    func walletPaysWithTheAuthorizedToken(type: PaymentMethodType) async throws {
        let authorizer = RecordingAuthorizer()
        let harness = try await Self.harness(authorizer)
        let flow = try #require(try harness.session.flow(for: type) as? WalletPaymentFlow)
        let states = flow.flowStates()

        let final = await flow.submit()

        guard case .succeeded(let result) = final else {
            Issue.record("expected success, got \(final)")
            return
        }
        #expect(result.paymentMethodType == type)
        #expect(await drain(states) == [.idle, .processing, .succeeded(result)])
        let request = try #require(flow.paymentRequest)
        #expect(authorizer.received == [request])
        #expect(request.paymentMethodType == type)
        #expect(harness.processor.tokenizations
            == [.wallet(type, walletToken: try SandboxWalletAuthorizer.token(for: request))])
        #expect(harness.session.deliveredOutcomes == [.success(result)])
        #expect(harness.processor.createKeys == ["key-1"])
    }

    @Test func shopperClosingTheSheetCancelsWithoutAnOutcome() async throws {
        let harness = try await Self.harness(RecordingAuthorizer(.cancel))
        let flow = try harness.session.flow(for: .applePay)
        let states = flow.flowStates()

        let first = await flow.submit()
        let second = await flow.submit()

        #expect(first == .cancelled)
        #expect(second == .cancelled)
        #expect(await drain(states) == [.idle, .processing, .cancelled, .processing, .cancelled])
        #expect(harness.session.deliveredOutcomes == [])
        #expect(harness.processor.tokenizations == [])
        #expect(harness.keys.calls == 0)
    }

    @Test func walletFailureFailsTheAttempt() async throws {
        let harness = try await Self.harness(RecordingAuthorizer(.fail))
        let flow = try harness.session.flow(for: .googlePay)
        let states = flow.flowStates()

        let final = await flow.submit()

        let error = CheckoutError(.paymentFailed, "the wallet did not authorise the payment")
        #expect(final == .failed(error))
        #expect(await drain(states) == [.idle, .processing, .failed(error)])
        #expect(harness.session.deliveredOutcomes.map(\.ignoringCheckoutData) == [.failure(error, checkoutData: nil)])
        #expect(harness.processor.createRequests == [])
    }

    @Test func walletsAreUnavailableWhenNotConfiguredOrNoNetworkIsSupported() async throws {
        let onlyGoogle = CheckoutConfiguration(paymentMethods: [
            .init(type: .googlePay, options: ["merchantName": .string("Shop")]),
        ])
        let unconfigured = try await Self.harness(RecordingAuthorizer(), configuration: onlyGoogle)
        #expect(unconfigured.session.paymentMethods == [])
        #expect(unconfigured.session.diagnostics == [
            .unavailable(.applePay, reason: "Apple Pay is not configured (no APPLE_PAY entry in the checkout configuration)"),
            .unavailable(.googlePay, reason: "options.merchantId is required"),
        ])

        let unsupported = try await Self.harness(RecordingAuthorizer(), networks: [.dinersClub, .cartesBancaires])
        #expect(unsupported.session.paymentMethods.map(\.type) == [.applePay])
        #expect(unsupported.session.diagnostics == [
            .unavailable(.googlePay,
                         reason: "Google Pay supports none of the merchant's card networks (DINERS_CLUB, CARTES_BANCAIRES)"),
        ])

        let neither = try await Self.harness(RecordingAuthorizer(), networks: [.dinersClub, .hipercard])
        #expect(neither.session.paymentMethods == [])
        #expect(neither.session.diagnostics.count == 2)
    }
}
