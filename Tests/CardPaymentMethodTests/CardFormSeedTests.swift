import CardPaymentMethod
import CheckoutCore
import Foundation
import Testing

/// The seed's `selectedNetwork`, `binData` and
/// `selectedCountry`, and a card paid after a 3-D Secure challenge being saved.
@Suite("Card form as the seed SDK describes it")
struct CardFormSeedTests {
    static let amex = "378282246310005"

    @Test func aSingleNetworkCardHasNoSelectedNetworkButBinDataNamesIt() async throws {
        let checkout = try await CardCheckout.make(networkSurcharges: ["AMEX": 150])
        let form = checkout.form
        form.updateCardNumber(Self.amex)
        await form.settled()
        #expect(form.state.selectedNetwork == nil, "not co-badged: nil, as in the seed")
        #expect(form.state.availableNetworks == [.amex])
        #expect(form.state.binData?.preferred == .amex)
        #expect(form.state.surchargeAmountRaw == 150, "the surcharge still follows the network the card is paid with")
        #expect(form.state.surchargeAmount == "+ €1.50")
        form.updateCvv("123")
        #expect(form.state.error(for: .cvv) == .invalidCvv, "AMEX wants 4 digits")
        form.updateExpiryDate("12/30")
        form.updateCardholderName("Ada Lovelace")
        form.updateCvv("1234")
        #expect(form.state.isValid, "the AMEX CVV length applies without a selected network")
    }

    @Test func binDataIsPartialWhileTypingThenCompleteInTheMerchantsOrder() async throws {
        let checkout = try await CardCheckout.make(allowed: [.visa, .cartesBancaires])
        let form = checkout.form
        form.updateCardNumber("4035 50")
        #expect(form.state.binData == CardBinData(preferred: .visa, status: .partial, firstDigits: "403550"))
        form.updateCardNumber(CardFormSessionTests.cartesBancairesVisa)
        await form.settled()
        #expect(form.state.binData == CardBinData(preferred: .visa, alternatives: [.cartesBancaires], status: .complete,
                                                  firstDigits: "403550", issuerCountry: "FR", accountFundingType: "DEBIT"))
        #expect(form.state.selectedNetwork == .visa, "co-badged: the preferred network is selected")
        try form.selectCardNetwork(.cartesBancaires)
        #expect(form.state.selectedNetwork == .cartesBancaires)
        #expect(form.state.binData?.preferred == .visa, "binData keeps the merchant's order")

        let reversed = try await CardCheckout.make(allowed: [.cartesBancaires, .visa])
        reversed.form.updateCardNumber(CardFormSessionTests.cartesBancairesVisa)
        await reversed.form.settled()
        #expect(reversed.form.state.binData?.preferred == .cartesBancaires)
        #expect(reversed.form.state.binData?.alternatives == [.visa])
    }

    @Test("the form data is read by field, as the seed's FormData by input element type: the number masked, the CVV empty")
    func formDataIsReadByField() async throws {
        let checkout = try await CardCheckout.make(options: ["billingAddress": .object(["postalCode": .string("required")])])
        let form = checkout.form
        form.updateCardNumber("4242 4242 4242 4242")
        CardFormSessionTests.fillRest(form)
        form.updateBillingField(.postalCode, "1011 AB")
        let data = form.state.data
        #expect(data[.cardNumber] == data.cardNumber)
        #expect(data[.cardNumber].hasPrefix("424242") && !data[.cardNumber].contains("42424242424242"))
        #expect(data[.cvv] == "")
        #expect(data[.expiryDate] == "12/30")
        #expect(data[.cardholderName] == "Jane Doe")
        #expect(data[.postalCode] == "1011 AB")
        #expect(data[.city] == "", "not entered")
    }

    @Test("a co-badged card saved after its payment keeps its networks, so its preferred network can change later")
    func coBadgedCardSavedAfterPaymentKeepsItsNetworks() async throws {
        let vault = InMemoryVaultProvider()
        let checkout = try await CardCheckout.make(allowed: [.visa, .cartesBancaires], vaultOnSuccess: true, vault: vault)
        let form = checkout.form
        form.updateCardNumber(CardFormSessionTests.cartesBancairesVisa)
        await form.settled()
        try form.selectCardNetwork(.cartesBancaires)
        CardFormSessionTests.fillRest(form)
        guard case .succeeded(let result) = await form.submit() else {
            Issue.record("expected the payment to succeed")
            return
        }
        let scope = VaultScope(merchantId: "m_1", customerId: "c_1")
        let saved = try #require(try await vault.paymentMethods(for: scope).first)
        #expect(saved.id == result.vaultedToken)
        #expect(saved.paymentInstrumentData.binData?.networks.sorted { $0.rawValue < $1.rawValue } == [.cartesBancaires, .visa])
        #expect(saved.paymentInstrumentData.binData?.issuerCountry == "FR")
        #expect(saved.paymentInstrumentData.network == .cartesBancaires, "the network the payment went through")
    }

    @Test func binDataNeverShowsMoreThanSixDigits() async throws {
        let checkout = try await CardCheckout.make(allowed: [])
        checkout.form.updateCardNumber(CardFormSessionTests.cartesBancairesVisa)
        await checkout.form.settled()
        #expect(checkout.form.state.binData?.firstDigits == "403550")
        #expect(checkout.form.state.binData == nil || !"\(checkout.form.state)".contains("40355010"))
    }

    @Test func selectedCountryFollowsTheBillingCountryField() async throws {
        let collected = try await CardCheckout.make(options: ["billingAddress": .object(["countryCode": .string("required")])])
        let form = collected.form
        #expect(form.state.selectedCountry == nil)
        form.updateBillingField(.countryCode, "nl")
        #expect(form.state.selectedCountry == "NL")
        form.updateBillingField(.countryCode, "N")
        #expect(form.state.selectedCountry == nil)
        form.updateBillingField(.countryCode, "DE")
        #expect(form.state.selectedCountry == "DE")

        let hidden = try await CardCheckout.make()
        hidden.form.updateBillingField(.countryCode, "NL")
        #expect(hidden.form.state.selectedCountry == nil, "the form does not collect a country")
    }

    @Test func aCardPaidAfterAChallengeIsSaved() async throws {
        let vault = InMemoryVaultProvider()
        let checkout = try await CardCheckout.make(vaultOnSuccess: true, vault: vault)
        let form = checkout.form
        guard case .awaitingChallenge = await CardFormSessionTests.submitChallengeCard(form) else {
            Issue.record("expected a challenge")
            return
        }
        let final = try await form.resume(with: .challengeResult("challenge-success"))
        guard case .succeeded(let result) = final else {
            Issue.record("expected success, got \(final)")
            return
        }
        let vaultedToken = try #require(result.vaultedToken, "saved after the resume")
        #expect(result.vaultError == nil)
        let saved = try await vault.paymentMethods(for: VaultScope(merchantId: "m_1", customerId: "c_1"))
        #expect(saved.map(\.id) == [vaultedToken])
        #expect(saved.first?.paymentInstrumentData.last4Digits == "3220")
        #expect(checkout.session.deliveredOutcomes == [.success(result)])
    }
}
