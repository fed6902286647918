import CheckoutCore
import Foundation
import Testing
import VaultedPaymentMethod

/// The seed's CVV binding, and a
/// saved card that needs 3-D Secure paid end to end through the selection session.
@Suite("Saved cards as the seed SDK uses them")
struct SavedCardSeedTests {
    /// Pays the sandbox's challenge card with `vaultOnSuccess`, completes the challenge, and
    /// returns the saved card the sandbox vaulted after the resume.
    static func saveChallengeCard(in sandbox: SandboxProcessor) async throws -> VaultedPaymentMethod {
        let token = ClientToken(merchantId: "m_test", customerId: "c_test", amount: 1000, currency: "EUR", country: "NL",
                                allowedCardNetworks: [], expiresAt: Date(timeIntervalSince1970: 4_102_444_800),
                                paymentMethods: [])
        let session = ClientSession(token: token, paymentMethods: [])
        let card = CardDetails(number: "4000000000003220", cvv: "123", expiryMonth: 12, expiryYear: 2030, network: .visa)
        let paymentToken = try await sandbox.tokenize(.card(card), session: session)
        let pending = try await sandbox.createPayment(CreatePaymentRequest(token: paymentToken, session: session,
                                                                           idempotencyKey: nil, vaultOnSuccess: true))
        #expect(pending.status == .pending)
        #expect(pending.vaultedToken == nil, "nothing is saved before the payment succeeded")
        let done = try await sandbox.resumePayment(paymentId: pending.paymentId, resumeToken: "challenge-success")
        let vaultedToken = try #require(done.vaultedToken, "the sandbox saves the card once the challenge succeeded")
        return VaultedPaymentMethod(id: vaultedToken, paymentMethodType: .paymentCard, paymentInstrumentType: .paymentCard,
                                    paymentInstrumentData: try #require(paymentToken.instrumentData),
                                    analyticsId: "an_challenge")
    }

    static func harness(saved: [VaultedPaymentMethod], sandbox: SandboxProcessor = SandboxProcessor(),
                        recapture: Bool = true) async throws -> Harness {
        let registry = try registry([VaultedPaymentHandler()])
        let card = AdvertisedPaymentMethod(id: "pm_card", type: .paymentCard,
                                           options: AdvertisedOptions(captureVaultedCardCvv: recapture))
        return try await Harness.start(methods: [card], registry: registry, vaulted: saved, sandbox: sandbox)
    }

    /// What a SwiftUI `SecureField` bound as the seed shows does on each keystroke:
    /// `Binding(get: { session.state.cvvInput }, set: { session.updateCvvInput($0) })`.
    static func type(_ text: String, into selection: SelectionSession) {
        for character in text { selection.updateCvvInput(selection.state.cvvInput + String(character)) }
    }

    static func backspace(_ selection: SelectionSession) {
        selection.updateCvvInput(String(selection.state.cvvInput.dropLast()))
    }

    // MARK: Item 1

    @Test func theSeedsCvvBindingRoundTrips() async throws {
        let harness = try await Self.harness(saved: [VaultedPaymentFlowTests.amex])
        let selection = try #require(harness.session.selection)
        selection.selectVaulted(VaultedPaymentFlowTests.amex)
        Self.type("7390", into: selection)
        Self.backspace(selection)
        Self.type("1", into: selection)
        #expect(selection.state.cvvInput == "••••")
        #expect(selection.state.isCvvValid)
        #expect(selection.state.cvvError == nil)

        guard case .succeeded = await selection.submitVaulted() else {
            Issue.record("expected the saved card to pay, state: \(selection.state)")
            return
        }
        #expect(harness.processor.exchanges == [VaultedExchangeRequest(vaultedToken: "vt_amex", cvv: SecurityCode("7391"))])
    }

    struct Echo: Sendable, CustomTestStringConvertible {
        let typed: String
        let fieldText: String
        let shown: String
        let valid: Bool
        let error: String?
        let sent: String?
        var testDescription: String { "'\(typed)' then the field sends '\(fieldText)'" }
    }

    @Test(arguments: [
        Echo(typed: "123", fieldText: "", shown: "", valid: false, error: nil, sent: nil),
        Echo(typed: "123", fieldText: "456", shown: "•••", valid: true, error: nil, sent: "456"),
        Echo(typed: "12", fieldText: "•9•", shown: "•••", valid: true, error: nil, sent: "192"),
        Echo(typed: "12", fieldText: "••••", shown: "••••", valid: false,
             error: "The security code may contain digits only", sent: nil),
        Echo(typed: "12", fieldText: "••a", shown: "•••", valid: false,
             error: "The security code may contain digits only", sent: nil),
    ])
    func theMaskedEchoIsReadBack(_ echo: Echo) async throws {
        let harness = try await Self.harness(saved: [VaultedPaymentFlowTests.visa])
        let selection = try #require(harness.session.selection)
        selection.selectVaulted(VaultedPaymentFlowTests.visa)
        Self.type(echo.typed, into: selection)
        selection.updateCvvInput(echo.fieldText)
        #expect(selection.state.cvvInput == echo.shown)
        #expect(selection.state.isCvvValid == echo.valid)
        #expect(selection.state.cvvError == echo.error)
        let final = await selection.submitVaulted()
        if let sent = echo.sent {
            #expect(final?.isTerminal == true)
            #expect(harness.processor.exchanges == [VaultedExchangeRequest(vaultedToken: "vt_visa", cvv: SecurityCode(sent))])
        } else {
            #expect(final == nil)
            #expect(harness.processor.exchanges.isEmpty)
        }
    }

    // MARK: Items 3 and 4

    /// A ready session whose only saved card is the sandbox's challenge card, selected, with
    /// its CVV typed through the seed's binding when `recapture`.
    static func savedChallengeCard(recapture: Bool = true) async throws
        -> (harness: Harness, selection: SelectionSession, saved: VaultedPaymentMethod) {
        let sandbox = SandboxProcessor()
        let saved = try await saveChallengeCard(in: sandbox)
        let harness = try await harness(saved: [saved], sandbox: sandbox, recapture: recapture)
        let selection = try #require(harness.session.selection)
        selection.selectVaulted(saved)
        if recapture { type("737", into: selection) }
        return (harness, selection, saved)
    }

    @Test func aSavedCardThatNeedsAChallengeIsPaidEndToEnd() async throws {
        let (harness, selection, saved) = try await Self.savedChallengeCard()

        let awaiting = await selection.submitVaulted()
        guard case .awaitingChallenge = awaiting else {
            Issue.record("a saved challenge card challenges again, got \(String(describing: awaiting))")
            return
        }
        #expect(selection.state.isVaultPaymentLoading, "the payment is still in progress")
        #expect(selection.vaultedFlow?.flowState == awaiting)
        #expect(harness.session.deliveredOutcomes.isEmpty)
        #expect(await selection.submitVaulted() == nil, "no second payment while the challenge is pending")

        let final = try await selection.resumeVaulted(with: .challengeResult("challenge-success"))
        guard case .succeeded(let result) = final else {
            Issue.record("expected success after the challenge, got \(final)")
            return
        }
        #expect(!selection.state.isVaultPaymentLoading)
        #expect(selection.state.cvvInput.isEmpty)
        #expect(harness.session.deliveredOutcomes == [.success(result)])
        #expect(harness.processor.exchanges == [VaultedExchangeRequest(vaultedToken: saved.id, cvv: SecurityCode("737"))])
        #expect(harness.processor.createRequests.count == 1)
        await #expect(throws: CheckoutError.self) {
            try await selection.resumeVaulted(with: .challengeResult("challenge-success"))
        }
    }

    @Test func aFailedChallengeOnASavedCardFailsTheAttemptWithItsPaymentId() async throws {
        let (harness, selection, _) = try await Self.savedChallengeCard()
        guard case .awaitingChallenge = await selection.submitVaulted() else {
            Issue.record("expected a challenge")
            return
        }
        let final = try await selection.resumeVaulted(with: .challengeResult("wrong-answer"))
        let error = CheckoutError(.paymentFailed, "3-D Secure authentication failed")
        #expect(final == .failed(error))
        #expect(!selection.state.isVaultPaymentLoading)
        #expect(selection.state.error == error.message)
        guard case .failure(let delivered, let data)? = harness.session.deliveredOutcomes.first else {
            Issue.record("expected a failure outcome")
            return
        }
        #expect(delivered == error)
        #expect(data?.paymentId?.hasPrefix("pay_") == true)
    }

    @Test func cancellingTheSelectionDropsAPendingChallenge() async throws {
        let (harness, selection, _) = try await Self.savedChallengeCard(recapture: false)
        guard case .awaitingChallenge = await selection.submitVaulted() else {
            Issue.record("expected a challenge")
            return
        }
        let flow = try #require(selection.vaultedFlow)
        await selection.cancel()
        #expect(flow.flowState == .cancelled)
        #expect(!selection.state.isVaultPaymentLoading)
        await #expect(throws: CheckoutError(.invalidReturn, "no saved-method payment awaits a challenge")) {
            try await selection.resumeVaulted(with: .challengeResult("challenge-success"))
        }
        #expect(harness.session.deliveredOutcomes.isEmpty)
    }
}
