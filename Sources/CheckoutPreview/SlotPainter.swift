import CheckoutCore
import CheckoutTheme

/// Paints one slot: its CSS (fill, border, radius, text style) and its content (escaped texts).
///
/// Content sits inside the slot's box and never moves a frame. Texts come from the locale's strings;
/// field values are masked sample values.
struct SlotPainter {
    let theme: ResolvedTheme
    let strings: LocalizedStrings
    let sample: PreviewSample
    let screen: PreviewScreen
    /// The card form on card-form screens.
    let form: CardFormModel?

    /// What a slot's element gets: inline CSS after its position, and inner HTML.
    struct Paint {
        var style: String
        var content: String
    }

    private var color: ThemeColors { theme.color }
    private var type: ThemeTypography { theme.typography }
    private var insides: SlotInsides { SlotInsides(theme: theme) }
    private var marks: PaymentMarks { PaymentMarks(theme: theme) }
    private func px(_ value: Double) -> String { PreviewStyle.px(value) }
    private func text(_ key: String, _ arguments: [String: String] = [:]) -> String { strings.text(key, arguments) }

    private func span(_ content: String, _ style: String) -> String { "<span style=\"\(HTMLText.escape(style))\">\(content)</span>" }

    /// `text` broken into the lines `TextMeasure` gives it at `width` (as the layout engine measured it), one
    /// `data-line` block each, escaped.
    private func lines(_ text: String, _ style: Typography, width: Double) -> String {
        TextMeasure.shipped.lines(text, style: style, width: width)
            .map { "<span data-line=\"\">\(HTMLText.escape($0))</span>" }.joined()
    }

    func paint(_ frame: LayoutFrame) -> Paint {
        switch frame.slot {
        case .header, .billingHeader, .deleteTitle:
            let key = switch (frame.slot, screen) {
            case (.billingHeader, _): SlotTextKey.billingHeader
            case (.deleteTitle, _): SlotTextKey.deleteTitle
            case (_, .vaulted): SlotTextKey.vaultedHeader
            default: SlotTextKey.methodsHeader
            }
            return Paint(style: "color:\(color.text.primary.hex);" + PreviewStyle.font(type.titleLarge),
                         content: lines(text(key), type.titleLarge, width: frame.width))
        case .empty:
            let prefix = screen == .vaulted ? "vaulted" : "methods"
            let inner = frame.width - 2 * theme.space.large
            return Paint(style: "background:\(color.surface.hex);border-radius:\(px(theme.radius.large));display:flex;"
                            + "flex-direction:column;align-items:center;justify-content:center;text-align:center;"
                            + "gap:\(px(theme.space.xsmall));padding:0 \(px(theme.space.large));",
                         content: span(lines(text("\(prefix).empty.title"), type.titleLarge, width: inner),
                                       "color:\(color.text.primary.hex);" + PreviewStyle.font(type.titleLarge))
                            + span(lines(text("\(prefix).empty.message"), type.bodyMedium, width: inner),
                                   "color:\(color.text.primary.hex);" + PreviewStyle.font(type.bodyMedium)))
        case .method:
            let rows = sample.methods(strings)
            let row = frame.index < rows.count ? rows[frame.index] : PaymentMethodRowContent(name: "")
            let kind = frame.index < PreviewSample.methodTypes.count ? PreviewSample.methodTypes[frame.index] : "UNKNOWN"
            let surchargeWidth = row.surcharge.map { TextMeasure.shipped.width(of: $0, style: type.bodySmall) }
            let nameWidth = insides.methodNameWidth(frame.width, surchargeWidth: surchargeWidth)
            var content = marks.method(kind)
                + span(lines(row.name, type.bodyLarge, width: nameWidth), "flex:1;min-width:0;color:\(color.text.primary.hex);"
                       + PreviewStyle.font(type.bodyLarge))
            if let surcharge = row.surcharge {
                content += span(HTMLText.escape(surcharge), "flex:none;white-space:nowrap;color:\(color.text.primary.hex);"
                                + PreviewStyle.font(type.bodySmall))
            }
            return Paint(style: rowStyle(selected: false), content: content)
        case .vaultedMethod:
            let items = sample.vaulted(strings)
            let item = frame.index < items.count ? items[frame.index] : VaultedRowContent(network: "", last4: "")
            let network = frame.index < PreviewSample.vaultedNetworks.count ? PreviewSample.vaultedNetworks[frame.index] : .other
            var details = item.account ?? ("•••• " + item.last4)
            if let expiry = item.expiry { details += " · " + expiry }
            var content = marks.network(network)
                + span(span(HTMLText.escape(item.network), "display:block;white-space:nowrap;color:\(color.text.primary.hex);"
                            + PreviewStyle.font(type.titleLarge))
                       + span(HTMLText.escape(details), "display:block;white-space:nowrap;color:\(color.text.primary.hex);"
                              + PreviewStyle.font(type.bodyMedium)),
                       "flex:1;min-width:0;")
            if item.isDefault {
                // A badge, not loose text: the background colour on the row's surface, outlined.
                content += span(HTMLText.escape(text("vaulted.row.default")), "flex:none;color:\(color.text.primary.hex);"
                    + "background:\(color.background.hex);" + PreviewStyle.border(theme.borderWidth.thin, color.border.outlined.default)
                    + "border-radius:\(px(theme.radius.small));padding:\(px(theme.space.xxsmall)) \(px(theme.space.small));"
                    + "white-space:nowrap;" + PreviewStyle.font(type.bodySmall))
            }
            return Paint(style: rowStyle(selected: frame.index == 0), content: content)
        case .cvvRecapture:
            // The selected card's own name for its code (CVV for Visa, CID for AMEX) and one dot per digit.
            let selected = sample.vaulted(strings).first
            let placeholder = selected?.securityCodeLength.map { String(repeating: "•", count: $0) } ?? text("card.cvv.placeholder")
            return field(label: selected?.securityCodeLabel(strings) ?? text("card.cvv.label"), value: nil, placeholder: placeholder,
                         error: false, width: frame.width)
        case .networkSelectorLabel:
            return Paint(style: "color:\(color.text.secondary.hex);" + PreviewStyle.font(type.bodySmall),
                         content: lines(text(SlotTextKey.networkSelectorLabel), type.bodySmall, width: frame.width))
        case .networkSelector:
            let networks = PreviewRenderer.cobadgedNetworks
            let nameWidth = insides.chipNameWidth(frame.width, count: networks.count)
            let chips = networks.enumerated().map { offset, network in
                let selected = offset == 0
                // The selection ring is inside the chip (an inset shadow over the thin border): nothing moves.
                let ring = selected ? "box-shadow:inset 0 0 0 \(px(theme.borderWidth.medium)) \(color.border.outlined.selected.hex);" : ""
                return span(marks.network(network) + span(lines(strings.networkName(network), type.bodySmall, width: nameWidth),
                                                         "min-width:0;"),
                            "flex:1 1 0;min-width:0;display:flex;align-items:center;gap:\(px(theme.space.small));"
                    + "padding:0 \(px(theme.space.small));box-sizing:border-box;overflow:hidden;"
                    + PreviewStyle.border(theme.borderWidth.thin, selected ? color.border.outlined.selected : color.border.outlined.default)
                    + ring + "border-radius:\(px(theme.radius.small));color:\(color.text.primary.hex);" + PreviewStyle.font(type.bodySmall))
            }
            return Paint(style: "display:flex;gap:\(px(theme.space.small));", content: chips.joined())
        case .submit:
            let label = text("button.pay", ["amount": sample.payAmount(strings)])
            return Paint(style: buttonStyle(fill: color.text.primary), content: HTMLText.escape(label))
        case .deleteDialog:
            return Paint(style: "background:\(color.surface.hex);border-radius:\(px(theme.radius.large));", content: "")
        case .deleteMessage:
            return Paint(style: "color:\(color.text.primary.hex);" + PreviewStyle.font(type.bodyMedium),
                         content: lines(text(SlotTextKey.deleteMessage, ["method": sample.vaulted(strings)[1].describe(strings)]),
                                        type.bodyMedium, width: frame.width))
        case .deleteConfirm:
            return Paint(style: buttonStyle(fill: color.destructive), content: HTMLText.escape(text("vaulted.delete.confirm")))
        case .deleteCancel:
            return Paint(style: "background:\(color.background.hex);" + PreviewStyle.border(theme.borderWidth.thin, color.border.outlined.default)
                            + "border-radius:\(px(theme.radius.medium));display:flex;align-items:center;justify-content:center;"
                            + "white-space:nowrap;color:\(color.text.primary.hex);" + PreviewStyle.font(type.titleLarge),
                         content: HTMLText.escape(text("vaulted.delete.cancel")))
        default:
            return cardField(frame)
        }
    }

    private func rowStyle(selected: Bool) -> String {
        "background:\(color.surface.hex);border-radius:\(px(theme.radius.medium));display:flex;align-items:center;"
            + "gap:\(px(theme.space.medium));padding:0 \(px(theme.space.medium));"
            // The selection ring is drawn inside the row (an inset shadow), so selecting a row moves
            // nothing in it; a border would push the content in by its width.
            + (selected ? "box-shadow:inset 0 0 0 \(px(theme.borderWidth.medium)) \(color.border.outlined.selected.hex);" : "")
    }

    private func buttonStyle(fill: ThemeColor) -> String {
        "background:\(fill.hex);color:\(color.background.hex);border-radius:\(px(theme.radius.medium));display:flex;"
            + "align-items:center;justify-content:center;white-space:nowrap;" + PreviewStyle.font(type.titleLarge)
    }

    private func cardField(_ frame: LayoutFrame) -> Paint {
        let fields = form.map { ($0.rows + $0.billingRows).flatMap { $0 } } ?? []
        for field in fields {
            if frame.slot == LayoutSlot.fieldError(field), let code = form?.errors[field] {
                return Paint(style: "color:\(color.text.negative.hex);" + PreviewStyle.font(type.bodySmall),
                             content: lines(SlotTextKey.fieldError(code, in: strings), type.bodySmall, width: frame.width))
            }
            if frame.slot == LayoutSlot.field(field) {
                return self.field(label: text(SlotTextKey.fieldLabel(field)), value: value(field),
                                  placeholder: text("card.\(field.rawValue).placeholder"), error: form?.errors[field] != nil,
                                  width: frame.width)
            }
        }
        return Paint(style: "", content: "")
    }

    private func value(_ field: CardFormField) -> String? {
        typealias Values = PreviewSample.FormValues
        switch (screen, field) {
        case (.cardFormErrors, .cardNumber): return Values.invalidNumber
        case (.cardFormErrors, .expiryDate): return Values.expiredDate
        case (.cardFormErrors, .cvv): return Values.cvv
        case (.cardFormErrors, .cardholderName), (.cardFormCobadged, .cardholderName): return Values.cardholderName
        case (.cardFormCobadged, .cardNumber): return Values.cobadgedNumber
        case (.cardFormCobadged, .expiryDate): return Values.expiryDate
        default: return nil
        }
    }

    /// A text field: a thin border always, so an error (drawn as a ring inside it) moves nothing.
    private func field(label: String, value: String?, placeholder: String, error: Bool, width: Double) -> Paint {
        let border = PreviewStyle.border(theme.borderWidth.thin, error ? color.border.outlined.error : color.border.outlined.default)
            + (error ? "box-shadow:inset 0 0 0 \(px(theme.borderWidth.medium - theme.borderWidth.thin)) \(color.border.outlined.error.hex);" : "")
        let shown = value.map { span(HTMLText.escape($0), "display:block;white-space:nowrap;color:\(color.text.primary.hex);"
                                     + PreviewStyle.font(type.bodyLarge)) }
            ?? span(HTMLText.escape(placeholder), "display:block;white-space:nowrap;color:\(color.text.placeholder.hex);"
                    + PreviewStyle.font(type.bodyLarge))
        return Paint(style: "background:\(color.background.hex);" + border + "border-radius:\(px(theme.radius.small));"
                        + "padding:\(px(theme.space.xsmall)) \(px(theme.space.medium));display:flex;flex-direction:column;"
                        + "justify-content:center;",
                     content: span(lines(label, type.bodySmall, width: insides.fieldTextWidth(width)),
                                   "display:block;color:\(color.text.secondary.hex);" + PreviewStyle.font(type.bodySmall)) + shown)
    }
}
