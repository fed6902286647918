import CheckoutCore
import CheckoutTheme
import Foundation
import Testing

/// The shipped font's measure against the font's own metrics file (read here with Foundation, not through
/// the generated tables), the wrapping rules, and the layout engine growing slots whose text needs more lines.
@Suite struct TextMeasureTests {
    static let style = Typography(fontFamilies: ["Inter"], fontSize: 16, lineHeight: 20, fontWeight: 400, letterSpacing: 0)
    static let semibold = Typography(fontFamilies: ["Inter"], fontSize: 16, lineHeight: 20, fontWeight: 550, letterSpacing: -0.2)

    /// `Config/fonts/metrics.json`: units per em and each weight's advances by code point.
    static func metrics() throws -> (unitsPerEm: Double, advances: [String: [String: Double]]) {
        let data = try Data(contentsOf: TestSupport.configDirectory.appendingPathComponent("fonts/metrics.json"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let faces = try #require(object["faces"] as? [String: [String: [String: Double]]])
        return (try #require(object["unitsPerEm"] as? Double), faces.mapValues { $0["advances"] ?? [:] })
    }

    @Test func widthsAreTheFontsAdvancesScaledAndSpaced() throws {
        let (unitsPerEm, faces) = try Self.metrics()
        for (text, style, face) in [("Kartenprüfnummer", Self.style, "400"), ("Pay €19.99", Self.semibold, "600"),
                                    ("Ça coûte 1 234,56 €", Self.style, "400")] {
            let advances = try #require(faces[face])
            let units = try text.unicodeScalars.reduce(0.0) { sum, scalar in sum + (try #require(advances[String(scalar.value)])) }
            let expected = units * style.fontSize / unitsPerEm + Double(text.unicodeScalars.count) * style.letterSpacing
            #expect(abs(TextMeasure.shipped.width(of: text, style: style) - expected) < 1e-9, "\(text)")
        }
        // A character outside the subset is counted as the widest glyph, never as nothing.
        #expect(TextMeasure.shipped.width(of: "中", style: Self.style) >= TextMeasure.shipped.width(of: "W", style: Self.style))
    }

    @Test func linesBreakAtSpacesAndNeverExceedTheWidth() {
        let measure = TextMeasure.shipped
        let text = "Geben Sie eine gültige Kartenprüfnummer ein"
        for width in stride(from: 40.0, through: 400, by: 7) {
            let lines = measure.lines(text, style: Self.style, width: width)
            for line in lines where line.contains(" ") || line.count > 1 {
                #expect(measure.width(of: line, style: Self.style) <= width, "\(line) at \(width)")
            }
            // Nothing is lost or added: the words come back in order.
            #expect(lines.joined(separator: " ").split(separator: " ").joined() == text.split(separator: " ").joined())
        }
        #expect(measure.lines(text, style: Self.style, width: 1000) == [text])
        #expect(measure.lines("", style: Self.style, width: 100) == [""])
        // A no-break space holds an amount together.
        let amount = "Bezahlen 19,99\u{00A0}€"
        #expect(measure.lines(amount, style: Self.style, width: measure.width(of: "Bezahlen 19,99", style: Self.style) + 1)
                == ["Bezahlen", "19,99\u{00A0}€"])
    }

    static func strings(_ locale: String) throws -> LocalizedStrings {
        let catalog = try StringCatalog.load(directory: TestSupport.configDirectory.appendingPathComponent("strings"))
        return catalog.strings(for: try #require(LocaleTag(locale)))
    }

    /// The German security-code error at half of 320 less margins does not fit one line: its slot takes two
    /// (2 x 16), and so does the error line of the row; in English at 375 it stays one line.
    @Test func aLongErrorGrowsItsLine() throws {
        let theme = try TestSupport.theme()
        let model = CardFormModel(fields: [.cardNumber, .expiryDate, .cvv], errors: [.cvv: "invalid-cvv"])
        let german = LayoutEngine(theme: theme, strings: try Self.strings("de")).layout(model, width: 288)
        let english = LayoutEngine(theme: theme, strings: try Self.strings("en")).layout(model, width: 343)
        #expect(german.frames(.fieldError(.cvv)).first?.height == 32)
        #expect(english.frames(.fieldError(.cvv)).first?.height == 16)
        // Without strings nothing is measured: one line.
        #expect(LayoutEngine(theme: theme).layout(model, width: 288).frames(.fieldError(.cvv)).first?.height == 16)
        // What follows moves down by the extra line.
        let submitGerman = try #require(german.frames(.submit).first)
        let submitEnglish = try #require(english.frames(.submit).first)
        #expect(submitGerman.y - submitEnglish.y == 16)
    }

    /// A header that needs two lines at a narrow width gets two lines of `titleLarge`.
    @Test func aLongHeaderGrows() throws {
        let engine = LayoutEngine(theme: try TestSupport.theme(), strings: try Self.strings("de"))
        let wide = engine.layout(VaultedListModel(count: 1), width: 343)
        let narrow = engine.layout(VaultedListModel(count: 1), width: 200)
        #expect(wide.frames(.header).first?.height == 20)
        #expect(narrow.frames(.header).first?.height == 40)
    }
}

/// The seed's `externalPayerInfo` as a shopper meets it: a saved PayPal agreement is listed by the method's
/// name and the payer's account, never by digits it does not have.
@Suite struct ExternalPayerRowTests {
    static func agreement(email: String?) -> VaultedPaymentMethod {
        VaultedPaymentMethod(id: "tok_pp", paymentMethodType: "PAYPAL", paymentInstrumentType: .payPalBillingAgreement,
                             paymentInstrumentData: PaymentInstrumentData(externalPayerInfo: ExternalPayerInfo(
                                 externalPayerId: "PAYER-7Q2W9", email: email, firstName: "Alex", lastName: "Jansen")),
                             analyticsId: "a-1", isDefault: true)
    }

    @Test func anAgreementIsDescribedByItsAccount() throws {
        let english = try TextMeasureTests.strings("en")
        let row = VaultedRowContent(Self.agreement(email: "alex.jansen@example.com"), strings: english)
        #expect(row.network == "PayPal")
        #expect(row.account == "alex.jansen@example.com")
        #expect(row.last4.isEmpty && row.expiry == nil)
        #expect(row.describe(english) == "PayPal account alex.jansen@example.com, default")
        let german = try TextMeasureTests.strings("de")
        #expect(VaultedRowContent(Self.agreement(email: nil), strings: german).describe(german) == "PayPal-Konto Alex Jansen, Standard")
    }
}
