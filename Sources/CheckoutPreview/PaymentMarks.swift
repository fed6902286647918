import CheckoutCore
import CheckoutTheme

/// The method and network marks a preview draws in its icon slots: inline SVG drawn here, brand-neutral.
///
/// A method gets a pictogram of what it is (a card, a wallet, a bank, a hand-off to another site); a card
/// network gets a badge with its short name in the shipped font. No logo is copied: the shapes and the
/// colours are the theme's own, so a mark reads in light and dark and never borrows a trademark. Marks are
/// decorative (`aria-hidden`): the row's text and accessibility label already name the method.
struct PaymentMarks {
    let theme: ResolvedTheme

    private var ink: String { theme.color.text.primary.hex }
    private var paper: String { theme.color.background.hex }
    private var width: Double { theme.component.paymentMethodIconWidth }
    private var height: Double { theme.size.large }

    /// What a method's pictogram shows.
    enum Pictogram: Equatable {
        case card, wallet, bank, handOff
    }

    /// The pictogram of a payment-method type.
    static func pictogram(_ type: PaymentMethodType) -> Pictogram {
        switch type.rawValue {
        case "PAYMENT_CARD": .card
        case "APPLE_PAY", "GOOGLE_PAY", "PAYPAL": .wallet
        case "ADYEN_IDEAL", "ADYEN_SOFORT", "ADYEN_GIROPAY", "ADYEN_BLIK", "ADYEN_TRUSTLY": .bank
        default: .handOff
        }
    }

    /// The short name a network's badge shows.
    static func badge(_ network: CardNetwork) -> String {
        switch network {
        case .visa: "VISA"
        case .mastercard: "MC"
        case .amex: "AMEX"
        case .cartesBancaires: "CB"
        case .discover: "DISC"
        case .jcb: "JCB"
        case .unionPay: "UP"
        case .dinersClub: "DC"
        case .maestro: "MAES"
        case .bancontact: "BC"
        default: String(network.rawValue.prefix(4))
        }
    }

    /// The SVG of a method's mark.
    func method(_ type: PaymentMethodType) -> String {
        func stroke(_ width: Double = 1.5) -> String {
            "fill=\"none\" stroke=\"\(ink)\" stroke-width=\"\(width)\" stroke-linejoin=\"round\" stroke-linecap=\"round\""
        }
        let body: String
        switch Self.pictogram(type) {
        case .card:
            body = "<rect x=\"3.75\" y=\"4.75\" width=\"24.5\" height=\"14.5\" rx=\"2\" \(stroke())/>"
                + "<path d=\"M3.75 8.75h24.5\" \(stroke(2.5))/>"
                + "<rect x=\"7\" y=\"12.5\" width=\"6\" height=\"3.5\" rx=\"0.75\" fill=\"\(ink)\"/>"
        case .wallet:
            body = "<path d=\"M6.75 7.75h17.5a2 2 0 0 1 2 2v8.5a2 2 0 0 1-2 2H7.75a2 2 0 0 1-2-2V6.75a2 2 0 0 1 2-2h13.5v3\" \(stroke())/>"
                + "<circle cx=\"21.5\" cy=\"14\" r=\"1.5\" fill=\"\(ink)\"/>"
        case .bank:
            body = "<path d=\"M6.75 10.25 16 4.75l9.25 5.5z\" \(stroke())/>"
                + "<path d=\"M9.25 11.75v6M14 11.75v6M18 11.75v6M22.75 11.75v6M6 19.75h20\" \(stroke())/>"
        case .handOff:
            body = "<rect x=\"5.75\" y=\"5.75\" width=\"14.5\" height=\"12.5\" rx=\"2\" \(stroke())/>"
                + "<path d=\"M17 12h10m-3.5-3.5L27 12l-3.5 3.5\" \(stroke())/>"
        }
        return svg(body)
    }

    /// The SVG of a network's badge.
    func network(_ network: CardNetwork) -> String {
        let text = Self.badge(network)
        let size = text.count > 3 ? 8.5 : 10
        return svg("<rect x=\"0.5\" y=\"2.5\" width=\"31\" height=\"19\" rx=\"3\" fill=\"\(paper)\" stroke=\"\(ink)\"/>"
                   + "<text x=\"16\" y=\"12\" text-anchor=\"middle\" dominant-baseline=\"central\" fill=\"\(ink)\" "
                   + "font-family=\"Inter\" font-weight=\"600\" font-size=\"\(size)\" letter-spacing=\"0.2\">"
                   + HTMLText.escape(text) + "</text>")
    }

    private func svg(_ body: String) -> String {
        "<svg xmlns=\"http://www.w3.org/2000/svg\" aria-hidden=\"true\" focusable=\"false\" data-mark=\"\" "
            + "width=\"\(PreviewStyle.px(width))\" height=\"\(PreviewStyle.px(height))\" viewBox=\"0 0 32 24\" "
            + "style=\"display:block;flex:none;\">" + body + "</svg>"
    }
}
