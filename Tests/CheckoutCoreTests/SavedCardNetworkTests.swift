import CheckoutCore
import Foundation
import Testing

/// The client token's `allowedCardNetworks` applies to saved cards as it does to the card form.
@Suite struct SavedCardNetworkTests {
    static let scope = VaultScope(merchantId: "merchant_a", customerId: "customer_1")

    /// A vault with a Visa, an AMEX, a co-badged CB+Visa card saved on CARTES_BANCAIRES, a card of
    /// unknown network and a PayPal account (not a card).
    func vault() async throws -> InMemoryVaultProvider {
        let vault = InMemoryVaultProvider()
        try await vault.save(Fixtures.savedCard("vt_visa", network: .visa, isDefault: true), for: Self.scope)
        try await vault.save(Fixtures.savedCard("vt_amex", network: .amex, last4: "0005"), for: Self.scope)
        try await vault.save(Fixtures.savedCard("vt_cb", network: .cartesBancaires, last4: "0008",
                                                coBadged: [.cartesBancaires, .visa]), for: Self.scope)
        try await vault.save(Fixtures.savedCard("vt_unknown", network: nil, last4: "1111"), for: Self.scope)
        try await vault.save(VaultedPaymentMethod(id: "vt_paypal", paymentMethodType: .payPal, paymentInstrumentType: .other,
                                                  paymentInstrumentData: PaymentInstrumentData(), analyticsId: "an_pp"),
                             for: Self.scope)
        return vault
    }

    @Test("saved cards on networks the token does not allow are listed apart as unusable, with the reason")
    func markedUnusable() async throws {
        let session = Fixtures.session(token: Fixtures.token(allowedCardNetworks: [.visa, .mastercard]), vault: try await vault())
        await session.start()
        let selection = try #require(session.selection)
        #expect(Set(selection.vaultedPaymentMethods.map(\.id)) == ["vt_visa", "vt_cb", "vt_paypal"])
        #expect(selection.unusableVaultedPaymentMethods.map(\.method.id).sorted() == ["vt_amex", "vt_unknown"])
        let amex = try #require(selection.unusableVaultedPaymentMethods.first { $0.method.id == "vt_amex" })
        #expect(amex.reason == .unsupportedCardNetwork)
        #expect(amex.message == "This merchant does not accept American Express cards")
        // An unusable card cannot be selected.
        selection.selectVaulted(amex.method)
        #expect(selection.state.selectedVaultedPaymentMethod == nil)
    }

    @Test("with \"unsupportedNetworks\": \"hide\" they are not shown at all")
    func hidden() async throws {
        let json = #"{"paymentMethods": [{"type": "PAYMENT_CARD"}], "savedCards": {"unsupportedNetworks": "hide"}}"#
        let configuration = try CheckoutConfiguration.decode(Data(json.utf8))
        #expect(configuration.unsupportedSavedCards == .hide)
        let session = Fixtures.session(token: Fixtures.token(allowedCardNetworks: [.amex]), vault: try await vault(),
                                       configuration: configuration)
        await session.start()
        let selection = try #require(session.selection)
        #expect(Set(selection.vaultedPaymentMethods.map(\.id)) == ["vt_amex", "vt_paypal"])
        #expect(selection.unusableVaultedPaymentMethods.isEmpty)
    }

    @Test("no allowed list: every saved card is usable; an unknown option value is a configuration error")
    func noListAndBadOption() async throws {
        let session = Fixtures.session(token: Fixtures.token(allowedCardNetworks: []), vault: try await vault())
        await session.start()
        let selection = try #require(session.selection)
        #expect(selection.vaultedPaymentMethods.count == 5)
        #expect(selection.unusableVaultedPaymentMethods.isEmpty)
        #expect(CheckoutConfiguration().unsupportedSavedCards == .markUnusable)
        let bad = #"{"paymentMethods": [], "savedCards": {"unsupportedNetworks": "grey"}}"#
        #expect(throws: CheckoutError.self) { try CheckoutConfiguration.decode(Data(bad.utf8)) }
    }
}

/// Card Brand Choice in the selection session.
@Suite struct PreferredNetworkSelectionTests {
    @Test("the shopper moves a co-badged saved card to another of its networks; the vault and the selection show it")
    func changePreferredNetwork() async throws {
        let vault = InMemoryVaultProvider()
        let scope = SavedCardNetworkTests.scope
        try await vault.save(Fixtures.savedCard("vt_cb", network: .cartesBancaires, coBadged: [.cartesBancaires, .visa]), for: scope)
        try await vault.save(Fixtures.savedCard("vt_visa", network: .visa), for: scope)
        let session = Fixtures.session(token: Fixtures.token(allowedCardNetworks: []), vault: vault)
        await session.start()
        let selection = try #require(session.selection)
        let card = try #require(selection.vaultedPaymentMethods.first { $0.id == "vt_cb" })
        selection.selectVaulted(card)
        let changed = try await selection.setPreferredNetwork(.visa, for: card)
        #expect(changed.paymentInstrumentData.network == .visa)
        #expect(selection.vaultedPaymentMethods.first { $0.id == "vt_cb" }?.paymentInstrumentData.network == .visa)
        #expect(selection.state.selectedVaultedPaymentMethod?.paymentInstrumentData.network == .visa)
        #expect(try await vault.paymentMethods(for: scope).first { $0.id == "vt_cb" }?.paymentInstrumentData.network == .visa)

        let plain = try #require(selection.vaultedPaymentMethods.first { $0.id == "vt_visa" })
        let notCoBadged = await #expect(throws: CheckoutError.self) { try await selection.setPreferredNetwork(.mastercard, for: plain) }
        #expect(notCoBadged?.code == .invalidPaymentData)
        let notItsNetwork = await #expect(throws: CheckoutError.self) { try await selection.setPreferredNetwork(.amex, for: changed) }
        #expect(notItsNetwork?.code == .invalidPaymentData)
    }
}

extension CheckoutConfiguration {
    init() { self.init(paymentMethods: []) }
}
