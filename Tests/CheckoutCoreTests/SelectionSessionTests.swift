import CheckoutCore
import Foundation
import Testing

@Suite struct SelectionSessionTests {
    static let scope = VaultScope(merchantId: "merchant_a", customerId: "customer_1")

    /// A ready session whose vault holds a Visa, an AMEX and a card of unknown network, every
    /// network allowed (`SavedCardNetworkTests` covers the filtering by allowed networks).
    func readySelection(captureCvv: Bool = true) async throws -> (CheckoutSession, SelectionSession, InMemoryVaultProvider) {
        let vault = InMemoryVaultProvider()
        try await vault.save(Fixtures.savedCard("vt_visa", network: .visa, last4: "4242", isDefault: true), for: Self.scope)
        try await vault.save(Fixtures.savedCard("vt_amex", network: .amex, last4: "0005"), for: Self.scope)
        try await vault.save(Fixtures.savedCard("vt_unknown", network: nil, last4: "1111"), for: Self.scope)
        let session = Fixtures.session(token: Fixtures.token(captureCvv: captureCvv, allowedCardNetworks: []), vault: vault)
        await session.start()
        return (session, try #require(session.selection), vault)
    }

    @Test func initialStateAndVaultedOrdering() async throws {
        let (session, selection, _) = try await readySelection()
        #expect(selection.state == PaymentMethodSelectionState(paymentMethods: session.paymentMethods))
        #expect(selection.vaultedPaymentMethods.map(\.id) == ["vt_visa", "vt_unknown", "vt_amex"])
        #expect(selection.route == .methods)
    }

    @Test func selectStartsTheFlowAndCancelClearsIt() async throws {
        let (session, selection, _) = try await readySelection()
        let paypal = try #require(session.paymentMethods.first { $0.type == .payPal })
        selection.select(paypal)
        #expect(selection.state == PaymentMethodSelectionState(paymentMethods: session.paymentMethods,
                                                               selectedPaymentMethod: paypal))
        #expect(selection.selectedFlow?.paymentMethodType == .payPal)
        await selection.cancel()
        #expect(selection.state == PaymentMethodSelectionState(paymentMethods: session.paymentMethods))
        #expect(selection.selectedFlow == nil)
    }

    @Test("a selection pays through its checkout session: once that is released, selecting a method sets an error and starts nothing")
    func aSelectionNeedsItsCheckoutSession() async throws {
        var (session, selection, _): (CheckoutSession?, SelectionSession, InMemoryVaultProvider) = try await readySelection()
        let paypal = try #require(session?.paymentMethods.first { $0.type == .payPal })
        session = nil
        selection.select(paypal)
        #expect(selection.state.error == "the checkout session is gone")
        #expect(selection.state.selectedPaymentMethod == nil)
        #expect(selection.selectedFlow == nil)
    }

    @Test func selectingAMethodNotOfferedSetsAnError() async throws {
        let (session, selection, _) = try await readySelection()
        let stranger = CheckoutPaymentMethod(id: "pm_x", type: .klarna, name: "Klarna",
                                             display: PaymentMethodDisplay(name: "Klarna"))
        selection.select(stranger)
        #expect(selection.state == PaymentMethodSelectionState(paymentMethods: session.paymentMethods,
                                                               error: "Klarna is not offered in this checkout"))
    }

    static let searches: [(String, [String])] = [
        ("", ["pm_ideal", "pm_card", "pm_paypal"]),
        ("pay", ["pm_card", "pm_paypal"]),
        ("PAYPAL", ["pm_paypal"]),
        ("páypäl", ["pm_paypal"]),
        ("Ídéál", ["pm_ideal"]),
        ("card", ["pm_card"]),
        ("payment card", ["pm_card"]),
        ("adyen", ["pm_ideal"]),
        ("zzz", []),
    ]

    @Test(arguments: searches)
    func searchIsCaseAndDiacriticInsensitive(query: String, expected: [String]) async throws {
        let (session, selection, _) = try await readySelection()
        selection.search(query)
        let filtered = session.paymentMethods.filter { expected.contains($0.id) }
        #expect(selection.state == PaymentMethodSelectionState(paymentMethods: session.paymentMethods,
                                                               searchQuery: query, filteredPaymentMethods: filtered))
    }

    @Test func selectVaultedCollapsesAndRequiresCvvForCards() async throws {
        let (session, selection, _) = try await readySelection()
        let visa = Fixtures.savedCard("vt_visa", network: .visa, last4: "4242", isDefault: true)
        selection.selectVaulted(visa)
        #expect(selection.state == PaymentMethodSelectionState(
            paymentMethods: session.paymentMethods, selectedVaultedPaymentMethod: visa, requiresCvvInput: true,
            isPaymentMethodsExpanded: false))
    }

    @Test func noCvvRecaptureWhenTheSessionDoesNotAskForIt() async throws {
        let (session, selection, _) = try await readySelection(captureCvv: false)
        let visa = Fixtures.savedCard("vt_visa", network: .visa, last4: "4242", isDefault: true)
        selection.selectVaulted(visa)
        selection.updateCvvInput("123")
        #expect(selection.state == PaymentMethodSelectionState(
            paymentMethods: session.paymentMethods, selectedVaultedPaymentMethod: visa, requiresCvvInput: false,
            isPaymentMethodsExpanded: false))
    }

    /// (card id, typed CVV, valid, error)
    static let cvvCases: [(String, String, Bool, String?)] = [
        ("vt_visa", "", false, nil),
        ("vt_visa", "1", false, nil),
        ("vt_visa", "12", false, nil),
        ("vt_visa", "123", true, nil),
        ("vt_visa", "1234", false, "The security code must be 3 digits"),
        ("vt_visa", "12a", false, "The security code may contain digits only"),
        ("vt_visa", "١٢٣", false, "The security code may contain digits only"),
        ("vt_amex", "123", false, nil),
        ("vt_amex", "1234", true, nil),
        ("vt_amex", "12345", false, "The security code must be 4 digits"),
        ("vt_unknown", "123", true, nil),
        ("vt_unknown", "1234", false, "The security code must be 3 digits"),
    ]

    @Test(arguments: cvvCases)
    func cvvRulesForSelectedVaultedCards(id: String, cvv: String, valid: Bool, error: String?) async throws {
        let (session, selection, _) = try await readySelection()
        let card = try #require(selection.vaultedPaymentMethods.first { $0.id == id })
        selection.selectVaulted(card)
        selection.updateCvvInput(cvv)
        #expect(selection.state == PaymentMethodSelectionState(
            paymentMethods: session.paymentMethods, selectedVaultedPaymentMethod: card, requiresCvvInput: true,
            cvvInput: String(repeating: "•", count: cvv.count), isCvvValid: valid, cvvError: error,
            isPaymentMethodsExpanded: false))
    }

    @Test func publishedStateNeverHoldsTheCvv() async throws {
        let (_, selection, _) = try await readySelection()
        let card = try #require(selection.vaultedPaymentMethods.first)
        selection.selectVaulted(card)
        selection.updateCvvInput("987")
        #expect(!"\(selection.state)".contains("987"))
        #expect(selection.state.cvvInput == "•••")
    }

    @Test func deleteRoutesToConfirmationThenRemoves() async throws {
        let (session, selection, vault) = try await readySelection()
        let amex = try #require(selection.vaultedPaymentMethods.first { $0.id == "vt_amex" })
        selection.delete(amex)
        #expect(selection.route == .confirmDeletion(amex))
        #expect(selection.vaultedPaymentMethods.count == 3, "nothing removed before confirmation")
        selection.cancelDeletion()
        #expect(selection.route == .methods)
        selection.delete(amex)
        try await selection.confirmDeletion()
        #expect(selection.route == .methods)
        #expect(selection.vaultedPaymentMethods.map(\.id) == ["vt_visa", "vt_unknown"])
        #expect(try await vault.paymentMethods(for: Self.scope).map(\.id) == ["vt_visa", "vt_unknown"])
        #expect(selection.state == PaymentMethodSelectionState(paymentMethods: session.paymentMethods))
        await #expect(throws: CheckoutError.self) { try await selection.confirmDeletion() }
    }

    @Test func deletingTheSelectedVaultedMethodClearsTheSelection() async throws {
        let (session, selection, _) = try await readySelection()
        let visa = try #require(selection.vaultedPaymentMethods.first { $0.id == "vt_visa" })
        selection.selectVaulted(visa)
        selection.updateCvvInput("12")
        selection.delete(visa)
        try await selection.confirmDeletion()
        #expect(selection.state == PaymentMethodSelectionState(paymentMethods: session.paymentMethods))
    }

    @Test func showAllRoutesToTheSavedList() async throws {
        let (_, selection, _) = try await readySelection()
        var routes = selection.routes().makeAsyncIterator()
        #expect(await routes.next() == .methods)
        selection.showAll()
        #expect(await routes.next() == .allSavedMethods)
        #expect(selection.route == .allSavedMethods)
    }

    @Test func selectingAMethodAfterAVaultedOneResetsCvv() async throws {
        let (session, selection, _) = try await readySelection()
        let visa = try #require(selection.vaultedPaymentMethods.first)
        selection.selectVaulted(visa)
        selection.updateCvvInput("123")
        let card = try #require(session.paymentMethods.first { $0.type == .paymentCard })
        selection.select(card)
        #expect(selection.state == PaymentMethodSelectionState(paymentMethods: session.paymentMethods,
                                                               selectedPaymentMethod: card))
    }

    @Test func statesStreamPublishesEveryChangeInOrder() async throws {
        let (session, selection, _) = try await readySelection()
        var iterator = selection.states().makeAsyncIterator()
        #expect(await iterator.next() == PaymentMethodSelectionState(paymentMethods: session.paymentMethods))
        selection.search("paypal")
        let paypal = session.paymentMethods.filter { $0.type == .payPal }
        #expect(await iterator.next() == PaymentMethodSelectionState(
            paymentMethods: session.paymentMethods, searchQuery: "paypal", filteredPaymentMethods: paypal))
        selection.search("paypal")
        selection.search("")
        #expect(await iterator.next() == PaymentMethodSelectionState(paymentMethods: session.paymentMethods),
                "an identical update publishes nothing")
    }

    @Test("the vaulted pay button is enabled exactly when submitVaulted would pay: a saved method selected, its CVV valid when asked, nothing in flight")
    func vaultedSubmitIsEnabledAsDerived() async throws {
        let (_, selection, _) = try await readySelection()
        #expect(!selection.state.isVaultedSubmitEnabled, "nothing selected")
        let amex = try #require(selection.vaultedPaymentMethods.first { $0.id == "vt_amex" })
        selection.selectVaulted(amex)
        #expect(!selection.state.isVaultedSubmitEnabled, "the CVV is asked for and empty")
        selection.updateCvvInput("000")
        #expect(!selection.state.isVaultedSubmitEnabled, "an AMEX CVV has 4 digits")
        selection.updateCvvInput("0000")
        #expect(selection.state.isVaultedSubmitEnabled)
        let (_, noRecapture, _) = try await readySelection(captureCvv: false)
        noRecapture.selectVaulted(try #require(noRecapture.vaultedPaymentMethods.first))
        #expect(noRecapture.state.isVaultedSubmitEnabled, "no CVV asked for")
    }

    @Test func vaultedPaymentWithCvvRecapture() async throws {
        let (session, selection, vault) = try await readySelection()
        let amex = try #require(selection.vaultedPaymentMethods.first { $0.id == "vt_amex" })
        selection.selectVaulted(amex)
        #expect(await selection.submitVaulted() == nil, "no CVV yet")
        #expect(selection.state.error == "Enter the card's security code")
        selection.updateCvvInput("0000")
        let declined = await selection.submitVaulted()
        #expect(declined?.isFailure == false, "only 000 declines in the sandbox")
        guard case .succeeded(let result) = declined else {
            Issue.record("expected success")
            return
        }
        #expect(session.deliveredOutcomes == [.success(result)])
        #expect(selection.state == PaymentMethodSelectionState(
            paymentMethods: session.paymentMethods, selectedVaultedPaymentMethod: amex, requiresCvvInput: true,
            isPaymentMethodsExpanded: false))
        #expect(try await vault.paymentMethods(for: Self.scope).first?.id == "vt_visa", "default stays first")
    }

    @Test func failedVaultedPaymentClearsCvvButKeepsRecapture() async throws {
        let (session, selection, _) = try await readySelection()
        let visa = try #require(selection.vaultedPaymentMethods.first { $0.id == "vt_visa" })
        selection.selectVaulted(visa)
        selection.updateCvvInput("000")
        let state = await selection.submitVaulted()
        #expect(state == .failed(CheckoutError(.paymentDeclined, "Do not honor")))
        #expect(selection.state == PaymentMethodSelectionState(
            paymentMethods: session.paymentMethods, error: "Do not honor", selectedVaultedPaymentMethod: visa,
            requiresCvvInput: true, isPaymentMethodsExpanded: false))
        selection.updateCvvInput("123")
        guard case .succeeded = await selection.submitVaulted() else {
            Issue.record("retry should succeed")
            return
        }
        #expect(session.deliveredOutcomes.count == 2)
    }
}
