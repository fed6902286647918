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

    private var engine: LayoutEngine { LayoutEngine(theme: theme, strings: strings, payAmount: sample.payAmount(strings)) }

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

    /// The card form of a screen (nil for the other screens).
    func cardForm(_ screen: PreviewScreen) -> CardFormModel? {
        switch screen {
        case .cardForm: CardFormModel(fields: cardFields, billingFields: billingFields)
        case .cardFormErrors: CardFormModel(fields: cardFields, billingFields: billingFields, errors: Self.sampleErrors)
        case .cardFormCobadged:
            CardFormModel(fields: cardFields, showsNetworkSelector: true, billingFields: billingFields,
                          networks: Self.cobadgedNetworks.map(strings.networkName),
                          selectedNetwork: strings.networkName(Self.cobadgedNetworks[0]))
        default: nil
        }
    }

    /// The layout of a screen (what its page positions, inside the margins).
    public func layout(_ screen: PreviewScreen) -> LayoutResult {
        let width = contentWidth
        if let form = cardForm(screen) { return engine.layout(form, width: width) }
        return switch screen {
        case .paymentMethodsEmpty: engine.layout(PaymentMethodListModel(rows: []), width: width)
        case .vaulted: engine.layout(VaultedListModel(items: sample.vaulted(strings), requiresCvvRecapture: true), width: width)
        case .vaultedDelete: engine.layout(DeleteConfirmationModel(methodDescription: sample.vaulted(strings)[1].describe(strings)), width: width)
        default: engine.layout(PaymentMethodListModel(rows: sample.methods(strings)), width: width)
        }
    }

    /// The HTML page of a screen.
    public func render(_ screen: PreviewScreen) -> String {
        let result = layout(screen)
        let painter = SlotPainter(theme: theme, strings: strings, sample: sample, screen: screen, form: cardForm(screen))
        let background = theme.color.background.hex
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
            <style>\(fonts)html,body{margin:0;padding:0;background:\(background);}\
            body{position:relative;width:\(PreviewStyle.px(result.width + 2 * margin));\
            height:\(PreviewStyle.px(result.height + 2 * margin));overflow:hidden;font-kerning:none;font-variant-ligatures:none;}\
            [data-slot]{position:absolute;box-sizing:border-box;overflow:hidden;margin:0;}\
            [data-line]{display:block;white-space:nowrap;}</style>
            </head>
            <body data-screen="\(screen.rawValue)" data-width="\(number(result.width))" data-height="\(number(result.height))">

            """
        for frame in result.frames {
            html += element(frame, painter: painter) + "\n"
        }
        html += "</body>\n</html>\n"
        return html
    }

    private func element(_ frame: LayoutFrame, painter: SlotPainter) -> String {
        let paint = painter.paint(frame)
        var attributes = [
            ("data-slot", frame.slot.rawValue), ("data-index", String(frame.index)),
            ("data-frame", [frame.x, frame.y, frame.width, frame.height].map(number).joined(separator: ",")),
            ("style", "left:\(PreviewStyle.px(frame.x + margin));top:\(PreviewStyle.px(frame.y + margin));width:\(PreviewStyle.px(frame.width));"
                + "height:\(PreviewStyle.px(frame.height));" + paint.style),
        ]
        if let info = frame.accessibility {
            attributes += [("role", Self.ariaRole(info.role)), ("aria-label", info.label), ("data-a11y-role", info.role.rawValue),
                           ("data-a11y-hint", info.hint)]
            if info.role == .header { attributes.append(("aria-level", "2")) }
        }
        let rendered = attributes.map { "\($0.0)=\"\(HTMLText.escape($0.1))\"" }.joined(separator: " ")
        return "<div \(rendered)>\(paint.content)</div>"
    }

    private func number(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e9 ? String(Int(value)) : String(value)
    }

    private static func ariaRole(_ role: AccessibilityRole) -> String {
        switch role {
        case .header: "heading"
        case .textField: "textbox"
        case .radioGroup: "radiogroup"
        case .text: "note"
        default: role.rawValue
        }
    }
}
