import CheckoutCore
import Foundation
import Testing

/// The client token's `locale` (additive, optional) and the configuration's choose the texts' locale.
@Suite struct LocaleChoiceTests {
    static func token(locale: String?) -> ClientToken {
        ClientToken(merchantId: "m_1", customerId: "c_1", amount: 1999, currency: "EUR", country: "NL", allowedCardNetworks: [],
                    expiresAt: Date(timeIntervalSince1970: 4_000_000_000), paymentMethods: [], locale: locale)
    }

    @Test func theTokenCarriesTheLocaleAndOldTokensDecodeWithout() throws {
        let decoded = try ClientToken.decode(Self.token(locale: "nl-BE").encoded())
        #expect(decoded.locale == "nl-BE")
        let old = try ClientToken.decode(Self.token(locale: nil).encoded())
        #expect(old.locale == nil)
        #expect(!Self.token(locale: nil).encoded().isEmpty)
    }

    @Test func aMalformedLocaleIsATypedError() throws {
        let error = try #require(throws: CheckoutError.self) { try ClientToken.decode(Self.token(locale: "not a locale").encoded()) }
        #expect(error.code == .invalidClientToken)
        let configuration = try #require(throws: CheckoutError.self) {
            try CheckoutConfiguration.decode(Data(#"{"paymentMethods": [], "locale": "??"}"#.utf8))
        }
        #expect(configuration.code == .invalidConfiguration)
    }

    @Test func theTokenWinsOverTheConfigurationWhichWinsOverEnglish() throws {
        let configuration = try CheckoutConfiguration.decode(Data(#"{"paymentMethods": [], "locale": "de"}"#.utf8))
        #expect(configuration.locale == "de")
        #expect(CheckoutLocale.choose(token: Self.token(locale: "fr-BE"), configuration: configuration).rawValue == "fr-BE")
        #expect(CheckoutLocale.choose(token: Self.token(locale: nil), configuration: configuration).rawValue == "de")
        #expect(CheckoutLocale.choose(token: nil, configuration: CheckoutConfiguration(paymentMethods: [])).rawValue == "en")
    }

    @Test func aStartedSessionTakesItsLocaleFromTheToken() async throws {
        var token = Fixtures.token()
        token.locale = "nl-BE"
        var configuration = Fixtures.configuration()
        configuration.locale = "de"
        let session = Fixtures.session(token: token, configuration: configuration)
        #expect(session.locale.rawValue == "de")
        await session.start()
        #expect(session.phase == .ready)
        #expect(session.locale.rawValue == "nl-BE")
        let catalog = try StringCatalog(tables: ["en": ["k": "en"], "nl": ["k": "nl"]])
        #expect(session.strings(from: catalog).text("k") == "nl")
    }
}
