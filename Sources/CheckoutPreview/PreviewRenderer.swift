import CheckoutCore
import CheckoutTheme

/// Renders a checkout screen as one self-contained HTML page: every slot is an element absolutely
/// positioned at the frame `LayoutEngine` computed (`data-slot`, `data-index`, `data-frame="x,y,w,h"`),
/// painted with the resolved theme's colours, radii, border widths and typography.
///
/// The page is a picture of the layout values, not a second layout: positions and sizes come only from
/// the engine, laid out at the page width less `component.page.margin` on each side and inset by it; nothing
/// inside a slot changes its frame. Text is set in the shipped font (Inter, embedded in the page as WOFF2),
/// broken into the lines `TextMeasure` computed for the engine, so no text clips. Marks are inline SVG
/// (`PaymentMarks`). No scripts, no images, no links: the page loads nothing. Texts come from the locale's
/// strings and are escaped (`HTMLText`); the markup is well-formed XML, so a test can parse it. Card data is
/// masked sample data (`PreviewSample`).
public struct PreviewRenderer: Sendable {
    /// The theme painted with.
    public let theme: ResolvedTheme
    /// Light or dark (named in the page).
    public let mode: ThemeMode
    /// The shopper's texts.
    public let strings: LocalizedStrings
    /// The page (screen) width; the layout gets it less `component.page.margin` on each side.
    public let width: Double
    /// The sample content.
    public let sample: PreviewSample
    /// The card form's card-detail fields, in order.
    public let cardFields: [CardFormField]
    /// The card form's billing fields, in order (the configuration's; none shows no billing section).
    public let billingFields: [CardFormField]

    /// A renderer for one theme, mode, locale and page width, with the card form's fields (by default card
    /// number, expiry, CVV and cardholder name, and no billing section).
    public init(theme: ResolvedTheme, mode: ThemeMode, strings: LocalizedStrings, width: Double = LayoutEngine.defaultWidth,
                sample: PreviewSample, cardFields: [CardFormField] = PreviewRenderer.cardFields, billingFields: [CardFormField] = []) {
        self.theme = theme
        self.mode = mode
        self.strings = strings
        self.width = width
        self.sample = sample
        self.cardFields = cardFields
        self.billingFields = billingFields
    }

    private func engine(_ content: ScreenContent) -> LayoutEngine {
        LayoutEngine(theme: theme, strings: strings, payAmount: content.payAmount)
    }

    /// The space between the page's edges and the laid-out content (`component.page.margin`).
    public var margin: Double { max(0, theme.component.pageMargin) }

    /// The width the engine lays out: the page width less the margins.
    public var contentWidth: Double { max(0, width - 2 * margin) }

    /// The page's size in CSS pixels: the layout plus the margins.
    public func pageSize(_ screen: PreviewScreen) -> (width: Double, height: Double) {
        let result = layout(screen)
        return (result.width + 2 * margin, result.height + 2 * margin)
    }

    /// The sample errors of `card-form-errors` (stable codes; `checkout layout card-form --errors` uses the same).
    public static let sampleErrors: [CardFormField: String] = [
        .cardNumber: "invalid-card-number", .expiryDate: "card-expired", .cvv: "invalid-cvv",
    ]

    /// The card form's default card-detail fields.
    public static let cardFields: [CardFormField] = [.cardNumber, .expiryDate, .cvv, .cardholderName]

    /// The networks of the co-badged sample card, the selected one first.
    public static let cobadgedNetworks: [CardNetwork] = [.cartesBancaires, .visa]

    /// The card form of a screen showing `content` (nil for the other screens).
    func cardForm(_ screen: PreviewScreen, _ content: ScreenContent, saveChoice: Bool) -> CardFormModel? {
        guard screen == .cardForm || screen == .cardFormErrors || screen == .cardFormCobadged else { return nil }
        let selector = content.networks.count > 1
        return CardFormModel(fields: cardFields, showsNetworkSelector: selector, billingFields: billingFields, errors: content.errors,
                             networks: selector ? content.networks.map(strings.networkName) : [],
                             selectedNetwork: selector ? strings.networkName(content.selectedNetwork ?? content.networks[0]) : nil,
                             showsSaveChoice: saveChoice)
    }

    /// The layout of a screen of the sample (what its page positions, inside the margins).
    public func layout(_ screen: PreviewScreen) -> LayoutResult {
        layout(screen, content: sample.content(screen, strings: strings))
    }

    /// The layout of a screen showing `content`; `saveChoice` adds the card form's "save this card".
    public func layout(_ screen: PreviewScreen, content: ScreenContent, saveChoice: Bool = false, search: Bool = false) -> LayoutResult {
        let width = contentWidth, engine = engine(content)
        if let form = cardForm(screen, content, saveChoice: saveChoice) { return engine.layout(form, width: width) }
        return switch screen {
        case .paymentMethodsEmpty: engine.layout(PaymentMethodListModel(rows: [], showsSearch: search), width: width)
        case .vaulted:
            engine.layout(VaultedListModel(items: content.saved.map(\.row), requiresCvvRecapture: content.requiresCvv,
                                           selectedIndex: content.selectedSaved), width: width)
        case .vaultedDelete:
            engine.layout(DeleteConfirmationModel(methodDescription: content.deletingDescription(strings)), width: width)
        default: engine.layout(PaymentMethodListModel(rows: content.methods.map(\.row), showsSearch: search), width: width)
        }
    }

    /// The HTML page of a screen of the sample: a picture (no form, no scripts, nothing loaded).
    public func render(_ screen: PreviewScreen) -> String {
        let content = sample.content(screen, strings: strings)
        let result = layout(screen, content: content)
        let fonts = EmbeddedFont.faces.map { face in
            // The regular face serves weights up to 500, the semibold one above (TextMeasure measures so).
            "@font-face{font-family:'\(EmbeddedFont.family)';font-style:normal;font-weight:\(face.weight <= 500 ? "1 500" : "501 1000");"
                + "src:url(data:font/woff2;base64,\(face.woff2Base64)) format('woff2');}"
        }.joined()
        var html = """
            <!DOCTYPE html>
            <html xmlns="http://www.w3.org/1999/xhtml" lang="\(HTMLText.escape(strings.locale.rawValue))">
            <head>
            <meta charset="utf-8"/>
            <meta name="checkout-mode" content="\(mode.rawValue)"/>
            <meta name="checkout-locale" content="\(HTMLText.escape(strings.resolvedLocale))"/>
            <title>\(HTMLText.escape(screen.rawValue)) (\(mode.rawValue), \(HTMLText.escape(strings.locale.rawValue)))</title>
            <style>\(fonts)html,body{margin:0;padding:0;background:\(theme.color.background.hex);}\
            body{position:relative;width:\(PreviewStyle.px(result.width + 2 * margin));\
            height:\(PreviewStyle.px(result.height + 2 * margin));overflow:hidden;font-kerning:none;font-variant-ligatures:none;}\
            [data-slot]{position:absolute;box-sizing:border-box;overflow:hidden;margin:0;}\
            [data-line]{display:block;white-space:nowrap;}</style>
            </head>
            <body data-screen="\(screen.rawValue)" data-width="\(number(result.width))" data-height="\(number(result.height))">

            """
        let painter = SlotPainter(theme: theme, strings: strings, content: content, screen: screen,
                                  form: cardForm(screen, content, saveChoice: false), live: nil, mode: mode)
        for frame in result.frames {
            html += element(frame, painter: painter, top: margin) + "\n"
        }
        html += "</body>\n</html>\n"
        return html
    }

    func element(_ frame: LayoutFrame, painter: SlotPainter, top: Double) -> String {
        let paint = painter.paint(frame)
        var attributes = [
            ("data-slot", frame.slot.rawValue), ("data-index", String(frame.index)),
            ("data-frame", [frame.x, frame.y, frame.width, frame.height].map(number).joined(separator: ",")),
        ] + paint.attributes + [
            ("style", "left:\(PreviewStyle.px(frame.x + margin));top:\(PreviewStyle.px(frame.y + top));width:\(PreviewStyle.px(frame.width));"
                + "height:\(PreviewStyle.px(frame.height));" + paint.style),
        ]
        // On a live page a slot holding its own control (an input, a radio) leaves naming to the control and its label.
        if let info = frame.accessibility, !paint.namedInside {
            attributes += [("role", Self.ariaRole(info.role)), ("aria-label", info.label), ("data-a11y-role", info.role.rawValue),
                           ("data-a11y-hint", info.hint)]
            if info.role == .header { attributes.append(("aria-level", "2")) }
        }
        if paint.tag == "button" { attributes.removeAll { $0.0 == "role" } }
        let rendered = attributes.map { "\($0.0)=\"\(HTMLText.escape($0.1))\"" }.joined(separator: " ")
        return "<\(paint.tag) \(rendered)>\(paint.content)</\(paint.tag)>"
    }

    func number(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e9 ? String(Int(value)) : String(value)
    }

    static func ariaRole(_ role: AccessibilityRole) -> String {
        switch role {
        case .header: "heading"
        case .textField: "textbox"
        case .radioGroup: "radiogroup"
        case .checkbox: "checkbox"
        case .searchField: "search"
        case .text: "note"
        default: role.rawValue
        }
    }
}
