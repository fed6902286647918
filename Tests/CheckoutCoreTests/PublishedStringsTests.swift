import CheckoutCore
import Foundation
import Testing

/// Texts the sessions publish come from the session's `StringCatalog` in the session's locale
/// (token, then configuration, then en); the stable codes stay as they are.
@Suite struct PublishedStringsTests {
    static let scope = VaultScope(merchantId: "merchant_a", customerId: "customer_1")

    /// A vault that cannot be read.
    struct BrokenVault: VaultProvider {
        struct Down: Error {}
        func paymentMethods(for scope: VaultScope) async throws -> [VaultedPaymentMethod] { throw Down() }
        func save(_ method: VaultedPaymentMethod, for scope: VaultScope) async throws { throw Down() }
        func delete(id: String, for scope: VaultScope) async throws { throw Down() }
        func setDefault(id: String, for scope: VaultScope) async throws { throw Down() }
        func markUsed(id: String, for scope: VaultScope) async throws { throw Down() }
    }

    static func token(locale: String?, currency: String = "EUR", captureCvv: Bool = false,
                      allowed: [CardNetwork] = [.visa, .mastercard]) -> ClientToken {
        var token = Fixtures.token(currency: currency, captureCvv: captureCvv, allowedCardNetworks: allowed)
        token.locale = locale
        return token
    }

    static func vault() async throws -> InMemoryVaultProvider {
        let vault = InMemoryVaultProvider()
        try await vault.save(Fixtures.savedCard("vt_visa", network: .visa), for: scope)
        try await vault.save(Fixtures.savedCard("vt_amex", network: .amex, last4: "0005"), for: scope)
        return vault
    }

    @Test(arguments: [
        ("nl", "De beveiligingscode mag alleen cijfers bevatten", "De beveiligingscode moet 3 cijfers hebben"),
        ("de", "Die Kartenprüfnummer darf nur Ziffern enthalten", "Die Kartenprüfnummer muss 3 Ziffern haben"),
        (nil, "The security code may contain digits only", "The security code must be 3 digits"),
    ])
    func theCvvErrorIsInTheTokensLocale(locale: String?, digitsOnly: String, length: String) async throws {
        let session = Fixtures.session(token: Self.token(locale: locale, captureCvv: true), vault: try await Self.vault())
        await session.start()
        let selection = try #require(session.selection)
        let visa = try #require(selection.vaultedPaymentMethods.first { $0.id == "vt_visa" })
        selection.selectVaulted(visa)
        selection.updateCvvInput("1a")
        #expect(selection.state.cvvError == digitsOnly)
        selection.updateCvvInput("1234")
        #expect(selection.state.cvvError == length)
    }

    @Test func submittingWithoutTheCvvAsksForItInTheShoppersLanguage() async throws {
        let session = Fixtures.session(token: Self.token(locale: "nl", captureCvv: true), vault: try await Self.vault())
        await session.start()
        let selection = try #require(session.selection)
        let visa = try #require(selection.vaultedPaymentMethods.first { $0.id == "vt_visa" })
        selection.selectVaulted(visa)
        #expect(await selection.submitVaulted() == nil)
        #expect(selection.state.error == "Voer de beveiligingscode van de kaart in")
    }

    @Test("method names and button texts come from the string catalog by type, in the session's locale; the configuration may still set them")
    func methodNamesAreLocalizedByType() async throws {
        let german = Fixtures.session(token: Self.token(locale: "de"))
        await german.start()
        let card = try #require(german.paymentMethods.first { $0.type == .paymentCard })
        #expect(card.name == "Karte")
        #expect(card.buttonText == "Mit Karte bezahlen")
        #expect(german.paymentMethods.first { $0.type == .payPal }?.buttonText == "Mit PayPal bezahlen")

        var configuration = Fixtures.configuration()
        configuration.paymentMethods[1].display = CheckoutConfiguration.DisplayOverrides(name: "Kreditkarte")
        let overridden = Fixtures.session(token: Self.token(locale: "de"), configuration: configuration)
        await overridden.start()
        let named = try #require(overridden.paymentMethods.first { $0.type == .paymentCard })
        #expect(named.name == "Kreditkarte")
        #expect(named.buttonText == "Mit Karte bezahlen", "what the configuration leaves out still comes from the catalog")
    }

    @Test func theConfigurationsLocaleAppliesWhenTheTokenHasNone() async throws {
        var configuration = Fixtures.configuration()
        configuration.locale = "de"
        let session = Fixtures.session(token: Self.token(locale: nil), vault: BrokenVault(), configuration: configuration)
        await session.start()
        #expect(session.selection?.state.error == "Gespeicherte Zahlungsarten sind nicht verfügbar")
    }

    @Test(arguments: [("nl", "Opgeslagen betaalmethoden zijn niet beschikbaar"),
                      ("en-US", "Saved payment methods are unavailable")])
    func theVaultUnavailableMessageIsLocalized(locale: String, message: String) async throws {
        let session = Fixtures.session(token: Self.token(locale: locale), vault: BrokenVault())
        await session.start()
        #expect(session.selection?.state.error == message)
    }

    @Test func anUnusableSavedCardsMessageIsLocalizedAndItsReasonStable() async throws {
        let session = Fixtures.session(token: Self.token(locale: "nl-BE"), vault: try await Self.vault())
        await session.start()
        let amex = try #require(session.selection?.unusableVaultedPaymentMethods.first { $0.method.id == "vt_amex" })
        #expect(amex.reason.rawValue == "unsupported-card-network")
        #expect(amex.message == "Deze winkel accepteert geen American Express-kaarten")
    }

    @Test(arguments: [("nl", "EUR", "+ €1,50"), ("en-US", "USD", "+ $1.50"), ("de", "EUR", "+ 1,50 €")])
    func theListedSurchargeIsFormattedForTheLocale(locale: String, currency: String, formatted: String) async throws {
        let session = Fixtures.session(token: Self.token(locale: locale, currency: currency))
        await session.start()
        let payPal = try #require(session.paymentMethods.first { $0.type == .payPal })
        #expect(payPal.surcharge == 150)
        #expect(payPal.formattedSurcharge == formatted)
    }

    @Test func aHostsOwnCatalogIsUsed() async throws {
        var tables = StringCatalog.embedded.tables
        tables["nl"]?["vaulted.error.unavailable"] = "Kluis dicht"
        let catalog = try StringCatalog(tables: tables)
        let session = CheckoutSession(clientToken: Self.token(locale: "nl").encoded(), configuration: Fixtures.configuration(),
                                      registry: Fixtures.registry(), processor: SandboxProcessor(), vault: BrokenVault(),
                                      clock: .fixed(Fixtures.now), strings: catalog)
        await session.start()
        #expect(session.selection?.state.error == "Kluis dicht")
        #expect(session.catalog == catalog)
    }
}
