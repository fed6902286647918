import CheckoutCore
import Foundation
import RedirectPaymentMethod
import Testing
import VaultedPaymentMethod

@Suite("Vaulted payment")
struct VaultedPaymentFlowTests {
    static let visa = VaultedPaymentMethod(
        id: "vt_visa", paymentMethodType: .paymentCard, paymentInstrumentType: .paymentCard,
        paymentInstrumentData: PaymentInstrumentData(network: .visa, first6Digits: "424242", last4Digits: "4242",
                                                     expirationMonth: 12, expirationYear: 2030),
        analyticsId: "an_visa", isDefault: true)
    static let amex = VaultedPaymentMethod(
        id: "vt_amex", paymentMethodType: .paymentCard, paymentInstrumentType: .paymentCard,
        paymentInstrumentData: PaymentInstrumentData(network: .amex, first6Digits: "378282", last4Digits: "0005",
                                                     expirationMonth: 1, expirationYear: 2031),
        analyticsId: "an_amex")
    static let agreement = VaultedPaymentMethod(
        id: "vt_paypal", paymentMethodType: .payPal, paymentInstrumentType: .payPalBillingAgreement,
        paymentInstrumentData: PaymentInstrumentData(), analyticsId: "an_paypal")

    /// A ready session with three saved methods; the card entry asks for CVV recapture when `recapture`.
    static func harness(recapture: Bool) async throws -> Harness {
        let registry = try registry([VaultedPaymentHandler(), RedirectPaymentHandler(type: .payPal)])
        let card = AdvertisedPaymentMethod(id: "pm_card", type: .paymentCard,
                                           options: AdvertisedOptions(captureVaultedCardCvv: recapture))
        let paypal = AdvertisedPaymentMethod(id: "pm_paypal", type: .payPal)
        return try await Harness.start(methods: [card, paypal], registry: registry, vaulted: [visa, amex, agreement])
    }

    /// The selection snapshot with the saved-method fields given (nothing else selected).
    static func selection(_ harness: Harness, vaulted: VaultedPaymentMethod? = nil, requiresCvv: Bool = false,
                          cvvInput: String = "", valid: Bool = false, cvvError: String? = nil, loading: Bool = false,
                          error: String? = nil) -> PaymentMethodSelectionState {
        PaymentMethodSelectionState(
            paymentMethods: harness.session.paymentMethods, error: error, selectedVaultedPaymentMethod: vaulted,
            isVaultPaymentLoading: loading, requiresCvvInput: requiresCvv, cvvInput: cvvInput, isCvvValid: valid,
            cvvError: cvvError, isPaymentMethodsExpanded: vaulted == nil)
    }

    @Test func paysWithoutCvvWhenTheSessionDoesNotAskForIt() async throws {
        let harness = try await Self.harness(recapture: false)
        let selection = try #require(harness.session.selection)
        let states = selection.states()

        selection.selectVaulted(Self.visa)
        selection.updateCvvInput("123")  // ignored: no recapture
        let final = await selection.submitVaulted()

        guard case .succeeded(let result) = final else {
            Issue.record("expected success, got \(String(describing: final))")
            return
        }
        #expect(result.paymentMethodType == .vaulted)
        #expect(harness.processor.exchanges == [VaultedExchangeRequest(vaultedToken: "vt_visa", cvv: nil)])
        #expect(await drain(states) == [
            Self.selection(harness),
            Self.selection(harness, vaulted: Self.visa),
            Self.selection(harness, vaulted: Self.visa, loading: true),
            Self.selection(harness, vaulted: Self.visa),
        ])
        #expect(selection.state == Self.selection(harness, vaulted: Self.visa))
        #expect(harness.session.deliveredOutcomes == [.success(result)])
        #expect(try await harness.vault.paymentMethods(for: harness.session.clientSession!.vaultScope).first == Self.visa)
    }

    @Test func recapturedCvvIsSentWithTheExchange() async throws {
        let harness = try await Self.harness(recapture: true)
        let selection = try #require(harness.session.selection)
        let states = selection.states()

        selection.selectVaulted(Self.visa)
        selection.updateCvvInput("12")
        selection.updateCvvInput("123")
        let final = await selection.submitVaulted()

        guard case .succeeded(let result) = final else {
            Issue.record("expected success, got \(String(describing: final))")
            return
        }
        #expect(harness.processor.exchanges == [VaultedExchangeRequest(vaultedToken: "vt_visa", cvv: SecurityCode("123"))])
        let visa = Self.visa
        #expect(await drain(states) == [
            Self.selection(harness),
            Self.selection(harness, vaulted: visa, requiresCvv: true),
            Self.selection(harness, vaulted: visa, requiresCvv: true, cvvInput: "••"),
            Self.selection(harness, vaulted: visa, requiresCvv: true, cvvInput: "•••", valid: true),
            Self.selection(harness, vaulted: visa, requiresCvv: true, cvvInput: "•••", valid: true, loading: true),
            Self.selection(harness, vaulted: visa, requiresCvv: true),
        ])
        #expect(harness.session.deliveredOutcomes == [.success(result)])
    }

    struct CvvCase: Sendable, CustomTestStringConvertible {
        let method: VaultedPaymentMethod
        let input: String
        let cvvError: String?
        var testDescription: String { "\(method.paymentInstrumentData.network?.rawValue ?? "-") '\(input)'" }
    }

    @Test(arguments: [
        CvvCase(method: amex, input: "123", cvvError: nil),
        CvvCase(method: amex, input: "12345", cvvError: "The security code must be 4 digits"),
        CvvCase(method: visa, input: "1234", cvvError: "The security code must be 3 digits"),
        CvvCase(method: visa, input: "12", cvvError: nil),
        CvvCase(method: visa, input: "12a", cvvError: "The security code may contain digits only"),
        CvvCase(method: visa, input: "", cvvError: nil),
    ])
    func wrongCvvLengthIsRejectedBeforeAnyProcessorCall(_ testCase: CvvCase) async throws {
        let harness = try await Self.harness(recapture: true)
        let selection = try #require(harness.session.selection)
        selection.selectVaulted(testCase.method)
        selection.updateCvvInput(testCase.input)

        let final = await selection.submitVaulted()

        #expect(final == nil)
        #expect(selection.state == Self.selection(
            harness, vaulted: testCase.method, requiresCvv: true,
            cvvInput: String(repeating: "•", count: testCase.input.count), cvvError: testCase.cvvError,
            error: "Enter the card's security code"))
        #expect(harness.processor.exchanges == [])
        #expect(harness.processor.createRequests == [])
        #expect(harness.session.deliveredOutcomes == [])
    }

    @Test(arguments: [
        (amex, "123", "the security code must be 4 digits"),
        (visa, "1234", "the security code must be 3 digits"),
        (visa, "", "the card's security code is required"),
        (visa, "1a3", "the security code may contain digits only"),
    ])
    func handlerRejectsAWrongCvvItself(method: VaultedPaymentMethod, cvv: String, message: String) async throws {
        let harness = try await Self.harness(recapture: true)
        let flow = try harness.session.vaultedFlow(for: method, cvv: SecurityCode(cvv))
        let states = flow.flowStates()

        let final = await flow.submit()

        let error = CheckoutError(.invalidPaymentData, message)
        #expect(final == .failed(error))
        #expect(await drain(states) == [.idle, .processing, .failed(error)])
        #expect(harness.processor.exchanges == [])
        #expect(harness.processor.createRequests == [])
        #expect(!error.description.contains(cvv) || cvv.isEmpty)
    }

    @Test func failedAttemptClearsTheCvvButKeepsRecaptureThenASecondAttemptSucceeds() async throws {
        let harness = try await Self.harness(recapture: true)
        let selection = try #require(harness.session.selection)
        selection.selectVaulted(Self.visa)
        selection.updateCvvInput("000")  // declined in the sandbox

        let first = await selection.submitVaulted()

        let declined = CheckoutError(.paymentDeclined, "Do not honor")
        #expect(first == .failed(declined))
        #expect(selection.state == Self.selection(harness, vaulted: Self.visa, requiresCvv: true, error: "Do not honor"))
        #expect(await selection.submitVaulted() == nil)  // the CVV must be entered again

        let states = selection.states()
        selection.updateCvvInput("123")
        let second = await selection.submitVaulted()

        guard case .succeeded(let result) = second else {
            Issue.record("expected success, got \(String(describing: second))")
            return
        }
        let visa = Self.visa
        #expect(await drain(states) == [
            Self.selection(harness, vaulted: visa, requiresCvv: true, error: "Enter the card's security code"),
            Self.selection(harness, vaulted: visa, requiresCvv: true, cvvInput: "•••", valid: true,
                           error: "Enter the card's security code"),
            Self.selection(harness, vaulted: visa, requiresCvv: true, cvvInput: "•••", valid: true, loading: true),
            Self.selection(harness, vaulted: visa, requiresCvv: true),
        ])
        #expect(harness.processor.exchanges == [
            VaultedExchangeRequest(vaultedToken: "vt_visa", cvv: SecurityCode("000")),
            VaultedExchangeRequest(vaultedToken: "vt_visa", cvv: SecurityCode("123")),
        ])
        #expect(harness.processor.createKeys == ["key-1", "key-2"])
        #expect(harness.session.deliveredOutcomes.map(\.ignoringCheckoutData) == [.failure(declined, checkoutData: nil), .success(result)])
    }

    @Test func switchingMethodResetsTheCvv() async throws {
        let harness = try await Self.harness(recapture: true)
        let selection = try #require(harness.session.selection)
        let paypal = try #require(harness.session.paymentMethods.first)

        selection.selectVaulted(Self.visa)
        selection.updateCvvInput("12")
        selection.selectVaulted(Self.amex)
        #expect(selection.state == Self.selection(harness, vaulted: Self.amex, requiresCvv: true))

        selection.updateCvvInput("1234")
        selection.selectVaulted(Self.agreement)  // not a card: no recapture
        #expect(selection.state == Self.selection(harness, vaulted: Self.agreement))

        selection.selectVaulted(Self.amex)
        selection.updateCvvInput("1234")
        selection.select(paypal)
        var expected = Self.selection(harness)
        expected = PaymentMethodSelectionState(paymentMethods: expected.paymentMethods, selectedPaymentMethod: paypal)
        #expect(selection.state == expected)
        #expect(harness.processor.exchanges == [])
    }

    @Test func nonCardInstrumentNeverSendsACvv() async throws {
        let harness = try await Self.harness(recapture: true)
        let flow = try harness.session.vaultedFlow(for: Self.agreement, cvv: SecurityCode("123"))
        let states = flow.flowStates()

        let final = await flow.submit()

        guard case .succeeded(let result) = final else {
            Issue.record("expected success, got \(final)")
            return
        }
        #expect(await drain(states) == [.idle, .processing, .succeeded(result)])
        #expect(harness.processor.exchanges == [VaultedExchangeRequest(vaultedToken: "vt_paypal", cvv: nil)])
    }

    @Test func vaultedFlowFullStateSequenceAndCancel() async throws {
        let harness = try await Self.harness(recapture: true)
        let flow = try harness.session.vaultedFlow(for: Self.visa, cvv: SecurityCode("000"))
        let states = flow.flowStates()

        let first = await flow.submit()
        await flow.cancel()
        await flow.cancel()

        let declined = CheckoutError(.paymentDeclined, "Do not honor")
        #expect(first == .failed(declined))
        #expect(await drain(states) == [.idle, .processing, .failed(declined), .cancelled])
        let error = await #expect(throws: CheckoutError.self) { try await flow.resume(with: .challengeResult("x")) }
        #expect(error?.code == .invalidReturn)
    }
}
