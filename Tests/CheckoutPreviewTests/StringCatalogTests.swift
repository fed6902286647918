import CheckoutKit
import Foundation
import Testing

/// `Config/strings/<locale>.json`: the same keys everywhere, the same arguments per key, fallback,
/// locale-formatted amounts, and a text for every stable error code.
@Suite struct StringCatalogTests {
    static let stringsDirectory = PreviewTestSupport.configDirectory.appendingPathComponent("strings")

    /// The files as JSON objects, read straight from disk (not through the catalog under test).
    static func files() throws -> [String: [String: String]] {
        var files: [String: [String: String]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: stringsDirectory.path) where name.hasSuffix(".json") {
            let data = try Data(contentsOf: stringsDirectory.appendingPathComponent(name))
            files[String(name.dropLast(5))] = try #require(try JSONSerialization.jsonObject(with: data) as? [String: String], "\(name)")
        }
        return files
    }

    @Test func theFiveLocalesShip() throws {
        #expect(Set(try Self.files().keys).isSuperset(of: ["en", "de", "nl", "fr", "es"]))
    }

    @Test func everyLocaleHasEveryKeyAndNoOther() throws {
        let files = try Self.files()
        let allKeys = files.values.reduce(into: Set<String>()) { $0.formUnion($1.keys) }
        #expect(allKeys.count >= 100)
        for (locale, table) in files.sorted(by: { $0.key < $1.key }) {
            let missing = allKeys.subtracting(table.keys)
            #expect(missing.isEmpty, "\(locale).json lacks \(missing.sorted())")
            for (key, value) in table { #expect(!value.isEmpty, "\(locale).json: \(key) is empty") }
        }
    }

    @Test func everyKeyTakesTheSameArgumentsInEveryLocale() throws {
        func arguments(_ text: String) -> Set<String> {
            var names = Set<String>()
            var rest = text[...]
            while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
                names.insert(String(rest[rest.index(after: open)..<close]))
                rest = rest[rest.index(after: close)...]
            }
            return names
        }
        let files = try Self.files()
        let english = try #require(files["en"])
        for (locale, table) in files {
            for (key, text) in table {
                #expect(arguments(text) == arguments(english[key] ?? ""), "\(locale).json \(key)")
            }
        }
    }

    @Test func theEmbeddedCopyMatchesTheFiles() throws {
        let files = try Self.files()
        #expect(Set(EmbeddedStrings.files.keys) == Set(files.keys), "run scripts/embed-config.py")
        for (locale, text) in EmbeddedStrings.files {
            let onDisk = try String(contentsOf: Self.stringsDirectory.appendingPathComponent(locale + ".json"), encoding: .utf8)
            #expect(onDisk.trimmingCharacters(in: .newlines) == text, "run scripts/embed-config.py (\(locale))")
        }
        #expect(try CheckoutDefaults.embedded().strings == PreviewTestSupport.defaults.strings)
    }

    struct FallbackCase: Sendable, CustomStringConvertible {
        let requested: String
        let chain: [String]
        let resolved: String
        var description: String { requested }
    }

    @Test(arguments: [
        FallbackCase(requested: "nl-BE", chain: ["nl-BE", "nl", "en"], resolved: "nl"),
        FallbackCase(requested: "nl_NL", chain: ["nl-NL", "nl", "en"], resolved: "nl"),
        FallbackCase(requested: "de-CH", chain: ["de-CH", "de", "en"], resolved: "de"),
        FallbackCase(requested: "en-US", chain: ["en-US", "en"], resolved: "en"),
        FallbackCase(requested: "pt-BR", chain: ["pt-BR", "pt", "en"], resolved: "en"),
        FallbackCase(requested: "FR", chain: ["fr", "en"], resolved: "fr"),
    ])
    func fallbackRunsFromRegionToLanguageToEnglish(_ testCase: FallbackCase) throws {
        let tag = try #require(LocaleTag(testCase.requested))
        #expect(tag.fallbackChain == testCase.chain)
        #expect(PreviewTestSupport.defaults.strings.strings(for: tag).resolvedLocale == testCase.resolved)
    }

    @Test func aKeyMissingInTheRegionAndLanguageComesFromEnglish() throws {
        let catalog = try StringCatalog(tables: ["en": ["a": "A en", "b": "B en"], "nl": ["a": "A nl"], "nl-BE": [:]])
        let strings = catalog.strings(for: try #require(LocaleTag("nl-BE")))
        #expect(strings.text("a") == "A nl")
        #expect(strings.text("b") == "B en")
        #expect(throws: CheckoutError.self) { try StringCatalog(tables: ["nl": [:]]) }
        let notStrings = try #require(throws: CheckoutError.self) {
            try StringCatalog.decode(["en": Data(#"{"a": 1}"#.utf8)])
        }
        #expect(notStrings.code == .invalidConfiguration)
        #expect(notStrings.message.contains("strings/en.json"))
        let missing = try #require(throws: CheckoutError.self) {
            try StringCatalog.load(directory: URL(fileURLWithPath: "/nonexistent-strings-\(UUID().uuidString)"))
        }
        #expect(missing.code == .invalidConfiguration)
        #expect(throws: CheckoutError.self) { try StringCatalog(tables: ["en": [:], "not a tag!": [:]]) }
    }

    @Test(arguments: ["", "e", "english", "nl--BE", "nl-B!", "12"])
    func malformedTagsAreRejected(_ text: String) {
        #expect(LocaleTag(text) == nil)
    }

    struct AmountCase: Sendable, CustomStringConvertible {
        let locale: String
        let minorUnits: Int
        let currency: String
        let surcharge: String?
        let amount: String
        var description: String { "\(locale) \(minorUnits) \(currency)" }
    }

    @Test(arguments: [
        AmountCase(locale: "nl", minorUnits: 150, currency: "EUR", surcharge: "+ €1,50", amount: "€1,50"),
        AmountCase(locale: "nl-NL", minorUnits: 199_950, currency: "EUR", surcharge: "+ €1.999,50", amount: "€1.999,50"),
        AmountCase(locale: "en-US", minorUnits: 150, currency: "USD", surcharge: "+ $1.50", amount: "$1.50"),
        AmountCase(locale: "en", minorUnits: 123_456_789, currency: "USD", surcharge: "+ $1,234,567.89", amount: "$1,234,567.89"),
        AmountCase(locale: "de", minorUnits: 150, currency: "EUR", surcharge: "+ 1,50 €", amount: "1,50 €"),
        AmountCase(locale: "fr", minorUnits: 250_000, currency: "EUR", surcharge: "+ 2\u{202F}500,00\u{A0}€", amount: "2\u{202F}500,00\u{A0}€"),
        AmountCase(locale: "es", minorUnits: 150, currency: "EUR", surcharge: "+ 1,50\u{A0}€", amount: "1,50\u{A0}€"),
        AmountCase(locale: "en", minorUnits: 1000, currency: "JPY", surcharge: "+ ¥1,000", amount: "¥1,000"),
        AmountCase(locale: "en", minorUnits: 150, currency: "CHF", surcharge: "+ CHF 1.50", amount: "CHF 1.50"),
        AmountCase(locale: "de", minorUnits: 1500, currency: "KWD", surcharge: "+ 1,500 KWD", amount: "1,500 KWD"),
        AmountCase(locale: "nl", minorUnits: 0, currency: "EUR", surcharge: nil, amount: "€0,00"),
    ])
    func amountsAreFormattedPerLocaleAndCurrency(_ testCase: AmountCase) throws {
        let strings = PreviewTestSupport.strings(testCase.locale)
        let currency = try Currency(code: testCase.currency)
        #expect(strings.amount(minorUnits: testCase.minorUnits, currency: currency) == testCase.amount)
        #expect(strings.surcharge(minorUnits: testCase.minorUnits, currency: currency) == testCase.surcharge)
    }

    static let fieldCodes: [CardValidationError.Code] = [
        .required, .invalidCardNumber, .unsupportedCardType, .invalidCvv, .invalidExpiryDate, .cardExpired, .invalidCardholderName,
        .invalidCardholderNameLength, .invalidPostalCode, .invalidName, .invalidAddress, .invalidCountryCode, .invalidPhoneNumber,
    ]

    @Test func everyFieldErrorCodeHasItsOwnMessageInEveryLocaleAndKeepsItsCode() throws {
        for locale in PreviewTestSupport.defaults.strings.locales {
            let strings = PreviewTestSupport.strings(locale)
            for code in Self.fieldCodes {
                #expect(strings.has("error.field.\(code.rawValue)"), "\(locale): error.field.\(code.rawValue)")
                let error = CardValidationError(field: .cardNumber, code: code)
                #expect(error.localizedMessage(strings) == strings.text("error.field.\(code.rawValue)"))
                #expect(error.code == code)
            }
        }
        let german = PreviewTestSupport.strings("de")
        let error = CardValidationError(field: .cardNumber, code: .invalidCardNumber)
        #expect(error.localizedMessage(german) == "Geben Sie eine gültige Kartennummer ein")
        #expect(error.code.rawValue == "invalid-card-number")
        #expect(CardValidationError(field: .cvv, code: .init(rawValue: "new-code")).localizedMessage(german) == "Prüfen Sie dieses Feld")
    }

    @Test func shopperFacingCheckoutErrorsAndDeclinesAreLocalized() throws {
        let dutch = PreviewTestSupport.strings("nl-BE")
        let codes: [CheckoutError.Code] = [.paymentDeclined, .paymentFailed, .networkError, .timeout, .cancelled, .paymentAborted,
                                           .invalidPaymentData, .paymentMethodUnavailable, .clientTokenExpired]
        for code in codes {
            #expect(dutch.has("error.\(code.rawValue)"), "error.\(code.rawValue)")
        }
        let declined = CheckoutError(.paymentDeclined, "Do not honor")
        #expect(declined.localizedMessage(dutch) == "Uw betaling is geweigerd")
        #expect(declined.code == .paymentDeclined)
        #expect(declined.message == "Do not honor")
        #expect(CheckoutError(.vaultFailure, "x").localizedMessage(dutch) == "Er ging iets mis. Probeer het opnieuw")
        #expect(dutch.declineMessage(category: "insufficient-funds") == "Onvoldoende saldo op uw kaart")
        #expect(dutch.declineMessage(category: "something-new") == "Uw kaart is geweigerd. Probeer een andere kaart")
    }

    @Test func argumentsAreFilledOnceAndNeverExpanded() {
        let english = PreviewTestSupport.strings("en")
        #expect(english.text("button.pay", ["amount": "{amount}"]) == "Pay {amount}")
        #expect(english.text("vaulted.row", ["network": "Visa", "last4": "4242"]) == "Visa ending in 4242")
        #expect(english.text("no.such.key") == "no.such.key")
    }
}
