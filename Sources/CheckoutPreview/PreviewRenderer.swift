import CheckoutCore
import CheckoutTheme

/// Renders a checkout screen as one self-contained HTML page: every slot is an element absolutely
/// positioned at the frame `LayoutEngine` computed (`data-slot`, `data-index`, `data-frame="x,y,w,h"`),
/// painted with the resolved theme's colours, radii, border widths and typography.
///
/// The page is a picture of the layout values, not a second layout: positions and sizes come only from
/// the engine, and nothing inside a slot changes its frame. No scripts, no fonts, no images, no links:
/// the page loads nothing. Texts come from the locale's strings and are escaped (`HTMLText`); the markup
/// is well-formed XML, so a test can parse it. Card data is masked sample data (`PreviewSample`).
public struct PreviewRenderer: Sendable {
    /// The theme painted with.
    public let theme: ResolvedTheme
    /// Light or dark (named in the page).
    public let mode: ThemeMode
    /// The shopper's texts.
    public let strings: LocalizedStrings
    /// The width laid out for.
    public let width: Double
    /// The sample content.
    public let sample: PreviewSample

    /// A renderer for one theme, mode, locale and width.
    public init(theme: ResolvedTheme, mode: ThemeMode, strings: LocalizedStrings, width: Double = LayoutEngine.defaultWidth,
                sample: PreviewSample) {
        self.theme = theme
        self.mode = mode
        self.strings = strings
        self.width = width
        self.sample = sample
    }

    private var engine: LayoutEngine { LayoutEngine(theme: theme, strings: strings, payAmount: sample.payAmount(strings)) }

    /// The sample errors of `card-form-errors` (stable codes; `checkout layout card-form --errors` uses the same).
    public static let sampleErrors: [CardFormField: String] = [
        .cardNumber: "invalid-card-number", .expiryDate: "card-expired", .cvv: "invalid-cvv",
    ]

    /// The card form's fields (those of `checkout layout card-form`).
    public static let cardFields: [CardFormField] = [.cardNumber, .expiryDate, .cvv, .cardholderName]

    /// The networks of the co-badged sample card, the selected one first.
    public static let cobadgedNetworks: [CardNetwork] = [.cartesBancaires, .visa]

    /// The layout of a screen (what its page positions).
    public func layout(_ screen: PreviewScreen) -> LayoutResult {
        switch screen {
        case .paymentMethods: engine.layout(PaymentMethodListModel(rows: sample.methods(strings)), width: width)
        case .paymentMethodsEmpty: engine.layout(PaymentMethodListModel(rows: []), width: width)
        case .vaulted: engine.layout(VaultedListModel(items: sample.vaulted(strings), requiresCvvRecapture: true), width: width)
        case .vaultedDelete: engine.layout(DeleteConfirmationModel(methodDescription: sample.vaulted(strings)[1].describe(strings)), width: width)
        case .cardForm: engine.layout(CardFormModel(fields: Self.cardFields), width: width)
        case .cardFormErrors: engine.layout(CardFormModel(fields: Self.cardFields, errors: Self.sampleErrors), width: width)
        case .cardFormCobadged:
            engine.layout(CardFormModel(fields: Self.cardFields, showsNetworkSelector: true,
                                        networks: Self.cobadgedNetworks.map(strings.networkName),
                                        selectedNetwork: strings.networkName(Self.cobadgedNetworks[0])), width: width)
        }
    }

    /// The HTML page of a screen.
    public func render(_ screen: PreviewScreen) -> String {
        let result = layout(screen)
        let painter = SlotPainter(theme: theme, strings: strings, sample: sample, screen: screen)
        let background = theme.color.background.hex
        var html = """
            <!DOCTYPE html>
            <html xmlns="http://www.w3.org/1999/xhtml" lang="\(HTMLText.escape(strings.locale.rawValue))">
            <head>
            <meta charset="utf-8"/>
            <meta name="checkout-mode" content="\(mode.rawValue)"/>
            <meta name="checkout-locale" content="\(HTMLText.escape(strings.resolvedLocale))"/>
            <title>\(HTMLText.escape(screen.rawValue)) (\(mode.rawValue), \(HTMLText.escape(strings.locale.rawValue)))</title>
            <style>html,body{margin:0;padding:0;background:\(background);}\
            body{position:relative;width:\(PreviewStyle.px(result.width));height:\(PreviewStyle.px(result.height));overflow:hidden;}\
            [data-slot]{position:absolute;box-sizing:border-box;overflow:hidden;margin:0;}</style>
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
            ("style", "left:\(PreviewStyle.px(frame.x));top:\(PreviewStyle.px(frame.y));width:\(PreviewStyle.px(frame.width));"
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
