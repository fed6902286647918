import CheckoutKit
import CheckoutPreview
import Foundation
import Testing

/// Every slot of every screen carries a localized label, hint and role; touch targets follow the token.
@Suite struct AccessibilityTests {
    @Test func savedCardsAndInvalidFieldsReadAsTheIssueSays() throws {
        let renderer = try PreviewTestSupport.renderer(.light)
        let vaulted = renderer.layout(.vaulted)
        let first = try #require(vaulted.frames(.vaultedMethod).first?.accessibility)
        #expect(first.label == "Visa ending in 4242, expires 12/30, default")
        #expect(first.role == .button)
        #expect(vaulted.frames(.vaultedMethod)[1].accessibility?.label == "Mastercard ending in 4444, expires 03/29")
        // The seed's default section header.
        #expect(vaulted.frames(.header).first?.accessibility?.label == "All saved payment methods")

        let errors = renderer.layout(.cardFormErrors)
        let number = try #require(errors.frames(.field(.cardNumber)).first?.accessibility)
        #expect(number.label == "Card number, invalid: Enter a valid card number")
        #expect(number.role == .textField)
        #expect(errors.frames(.fieldError(.cardNumber)).first?.accessibility?.role == .alert)
        #expect(errors.frames(.submit).first?.accessibility?.label == "Pay €19.99")

        let german = try PreviewTestSupport.renderer(.light, locale: "de")
        #expect(german.layout(.vaulted).frames(.vaultedMethod).first?.accessibility?.label
                == "Visa mit Endziffern 4242, gültig bis 12/30, Standard")
        #expect(german.layout(.cardFormErrors).frames(.field(.cardNumber)).first?.accessibility?.label
                == "Kartennummer, ungültig: Geben Sie eine gültige Kartennummer ein")
        let methods = try PreviewTestSupport.renderer(.light, locale: "nl").layout(.paymentMethods)
        #expect(methods.frames(.method)[1].accessibility?.label == "PayPal, toeslag + €1,00")
    }

    @Test(arguments: ["en", "de", "nl", "fr", "es"])
    func everySlotOfEveryScreenIsLabeled(_ locale: String) throws {
        let renderer = try PreviewTestSupport.renderer(.light, locale: locale)
        var labeled = 0
        for screen in PreviewScreen.allCases {
            for frame in renderer.layout(screen).frames {
                let info = try #require(frame.accessibility, "\(screen) \(frame.slot)")
                #expect(!info.label.isEmpty && !info.hint.isEmpty && !info.role.rawValue.isEmpty, "\(screen) \(frame.slot)")
                #expect(!info.label.contains("{") && !info.hint.contains("{"), "\(screen) \(frame.slot): unfilled argument")
                #expect(!info.label.hasPrefix("card.") && !info.label.hasPrefix("error."), "\(screen) \(frame.slot): a bare key")
                labeled += 1
            }
        }
        #expect(labeled >= 37, "every frame of the seven screens")
    }

    @Test func theLayoutJSONCarriesAccessibilityOnlyAsAnAddition() throws {
        let theme = try PreviewTestSupport.theme(.light)
        let plain = LayoutEngine(theme: theme).layout(PaymentMethodListModel(methodCount: 2))
        #expect(plain.frames.allSatisfy { $0.accessibility == nil })
        let plainFrame = try #require(try Self.encodedFrames(plain).first)
        #expect(Set(plainFrame.keys) == ["slot", "index", "x", "y", "width", "height"])
        let labeled = LayoutEngine(theme: theme, strings: PreviewTestSupport.strings("en")).layout(PaymentMethodListModel(methodCount: 2))
        #expect(labeled.frames.map { LayoutFrame(slot: $0.slot, index: $0.index, x: $0.x, y: $0.y, width: $0.width, height: $0.height) }
                == plain.frames)
        let frame = try #require(try Self.encodedFrames(labeled).first)
        #expect(Set(frame.keys) == ["slot", "index", "x", "y", "width", "height", "accessibility"])
        #expect(labeled.frames(.method)[1].accessibility?.label == "Payment method 2 of 2")
    }

    /// The frames of `result` as `checkout layout --json` writes them, read back as plain objects.
    static func encodedFrames(_ result: LayoutResult) throws -> [[String: Any]] {
        let object = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(result)) as? [String: Any]
        return object?["frames"] as? [[String: Any]] ?? []
    }

    static let tappable: Set<AccessibilityRole> = [.button, .textField, .radioGroup]

    @Test func touchTargetsAreAtLeastTheToken() throws {
        let theme = try PreviewTestSupport.theme(.light)
        #expect(theme.component.minTouchTarget == 44)
        // Rows, fields and buttons overridden below 44 still get 44; raising the token to 48 raises them.
        let small = #"{"component": {"paymentMethodRow": {"height": {"$value": {"value": 30, "unit": "px"}}},"#
            + #""button": {"height": {"$value": {"value": 36, "unit": "px"}}}, "cvvField": {"maxWidth": {"$value": {"value": 20, "unit": "px"}}}}}"#
        let raised = #"{"component": {"touchTarget": {"minSize": {"$value": {"value": 60, "unit": "px"}}}}}"#
        for (override, minimum) in [(nil, 44.0), (small, 44.0), (raised, 60.0)] {
            let renderer = PreviewRenderer(theme: try PreviewTestSupport.theme(.light, override: override), mode: .light,
                                           strings: PreviewTestSupport.strings("en"), sample: PreviewSample(currency: try Currency(code: "EUR")))
            var checked = 0
            for screen in PreviewScreen.allCases {
                for frame in renderer.layout(screen).frames where Self.tappable.contains(frame.accessibility?.role ?? .text) {
                    #expect(frame.width >= minimum && frame.height >= minimum, "\(screen) \(frame.slot): \(frame.width)x\(frame.height)")
                    checked += 1
                }
            }
            #expect(checked > 20)
        }
    }

    /// The rows a host builds from the session's own values read the same way as the preview's.
    @Test func rowsFromSessionValuesAreMaskedAndLocalized() throws {
        let saved = VaultedPaymentMethod(id: "vt_1", paymentMethodType: .paymentCard, paymentInstrumentType: .paymentCard,
                                         paymentInstrumentData: PaymentInstrumentData(network: .cartesBancaires, first6Digits: "403501",
                                                                                      last4Digits: "0003", expirationMonth: 7,
                                                                                      expirationYear: 2031),
                                         analyticsId: "a", isDefault: true)
        let french = PreviewTestSupport.strings("fr")
        let row = VaultedRowContent(saved, strings: french)
        #expect(row.describe(french) == "Cartes Bancaires se terminant par 0003, expire le 07/31, par défaut")
        #expect(!row.describe(french).contains("403501"))
        #expect(french.networkName(nil) == "Carte")
        #expect(french.networkName(CardNetwork("NEW_NETWORK")) == "Carte")

        let method = CheckoutPaymentMethod(id: "pm", type: .payPal, name: "PayPal", surcharge: 150, formattedSurcharge: "+ €1.50",
                                           display: PaymentMethodDisplay(name: "PayPal"))
        let dutch = PreviewTestSupport.strings("nl")
        let content = PaymentMethodRowContent(method, strings: dutch, currency: try Currency(code: "EUR"))
        #expect(content == PaymentMethodRowContent(name: "PayPal", surcharge: "+ €1,50"))
        let layout = LayoutEngine(theme: try PreviewTestSupport.theme(.light), strings: dutch)
            .layout(PaymentMethodListModel(rows: [content]))
        #expect(layout.frames(.method).first?.accessibility?.label == "PayPal, toeslag + €1,50")
    }

    @Test func everyKnownNetworkHasAName() {
        for locale in ["en", "de", "nl", "fr", "es"] {
            let strings = PreviewTestSupport.strings(locale)
            for network in CardNetwork.known {
                #expect(strings.has("network.\(network.rawValue)"), "\(locale): network.\(network.rawValue)")
            }
        }
    }
}
