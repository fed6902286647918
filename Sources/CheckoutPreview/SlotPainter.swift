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

    /// What a slot's element gets: inline CSS after its position, and inner HTML.
    struct Paint {
        var style: String
        var content: String
    }

    private var color: ThemeColors { theme.color }
    private var type: ThemeTypography { theme.typography }
    private func px(_ value: Double) -> String { PreviewStyle.px(value) }
    private func text(_ key: String, _ arguments: [String: String] = [:]) -> String { HTMLText.escape(strings.text(key, arguments)) }

    private func span(_ content: String, _ style: String) -> String { "<span style=\"\(HTMLText.escape(style))\">\(content)</span>" }

    func paint(_ frame: LayoutFrame) -> Paint {
        switch frame.slot {
        case .header, .billingHeader, .deleteTitle:
            let key = switch (frame.slot, screen) {
            case (.billingHeader, _): "card.billingHeader"
            case (.deleteTitle, _): "vaulted.delete.title"
            case (_, .vaulted): "vaulted.header"
            default: "methods.header"
            }
            return Paint(style: "color:\(color.text.primary.hex);" + PreviewStyle.font(type.titleLarge) + "white-space:nowrap;",
                         content: text(key))
        case .empty:
            let prefix = screen == .vaulted ? "vaulted" : "methods"
            return Paint(style: "background:\(color.surface.hex);border-radius:\(px(theme.radius.large));display:flex;"
                            + "flex-direction:column;align-items:center;justify-content:center;text-align:center;"
                            + "gap:\(px(theme.space.xsmall));padding:0 \(px(theme.space.large));",
                         content: span(text("\(prefix).empty.title"), "color:\(color.text.primary.hex);" + PreviewStyle.font(type.titleLarge))
                            + span(text("\(prefix).empty.message"), "color:\(color.text.primary.hex);" + PreviewStyle.font(type.bodyMedium)))
        case .method:
            let rows = sample.methods(strings)
            let row = frame.index < rows.count ? rows[frame.index] : PaymentMethodRowContent(name: "")
            var content = icon() + span(HTMLText.escape(row.name), "flex:1;color:\(color.text.primary.hex);" + PreviewStyle.font(type.bodyLarge))
            if let surcharge = row.surcharge {
                content += span(HTMLText.escape(surcharge), "color:\(color.text.primary.hex);" + PreviewStyle.font(type.bodySmall))
            }
            return Paint(style: rowStyle(selected: false), content: content)
        case .vaultedMethod:
            let items = sample.vaulted(strings)
            let item = frame.index < items.count ? items[frame.index] : VaultedRowContent(network: "", last4: "")
            var details = "•••• " + item.last4
            if let expiry = item.expiry { details += " · " + expiry }
            var content = icon()
                + span(span(HTMLText.escape(item.network), "display:block;color:\(color.text.primary.hex);" + PreviewStyle.font(type.titleLarge))
                       + span(HTMLText.escape(details), "display:block;color:\(color.text.primary.hex);" + PreviewStyle.font(type.bodyMedium)),
                       "flex:1;")
            if item.isDefault {
                // A badge, not loose text: the background colour on the row's surface, outlined.
                content += span(text("vaulted.row.default"), "color:\(color.text.primary.hex);background:\(color.background.hex);"
                    + PreviewStyle.border(theme.borderWidth.thin, color.border.outlined.default)
                    + "border-radius:\(px(theme.radius.small));padding:\(px(theme.space.xxsmall)) \(px(theme.space.small));"
                    + "white-space:nowrap;" + PreviewStyle.font(type.bodySmall))
            }
            return Paint(style: rowStyle(selected: frame.index == 0), content: content)
        case .cvvRecapture:
            // The selected card's own name for its code (CVV for Visa, CID for AMEX), else the generic one.
            let selected = sample.vaulted(strings).first?.securityCodeName
            return field(label: text("card.cvv.label"), value: nil, placeholder: selected ?? text("card.cvv.placeholder"), error: false)
        case .networkSelector:
            let chips = PreviewRenderer.cobadgedNetworks.enumerated().map { offset, network in
                let selected = offset == 0
                return span(HTMLText.escape(strings.networkName(network)), "display:flex;align-items:center;justify-content:center;"
                    + "min-width:\(px(theme.component.minTouchTarget));padding:0 \(px(theme.space.medium));box-sizing:border-box;"
                    + PreviewStyle.border(selected ? theme.borderWidth.medium : theme.borderWidth.thin,
                                          selected ? color.border.outlined.selected : color.border.outlined.default)
                    + "border-radius:\(px(theme.radius.small));color:\(color.text.primary.hex);" + PreviewStyle.font(type.bodyMedium))
            }
            return Paint(style: "display:flex;gap:\(px(theme.space.small));", content: chips.joined())
        case .submit:
            let label = text("button.pay", ["amount": sample.payAmount(strings)])
            return Paint(style: buttonStyle(fill: color.text.primary), content: label)
        case .deleteDialog:
            return Paint(style: "background:\(color.surface.hex);border-radius:\(px(theme.radius.large));", content: "")
        case .deleteMessage:
            return Paint(style: "color:\(color.text.primary.hex);" + PreviewStyle.font(type.bodyMedium),
                         content: text("vaulted.delete.message", ["method": sample.vaulted(strings)[1].describe(strings)]))
        case .deleteConfirm:
            return Paint(style: buttonStyle(fill: color.destructive), content: text("vaulted.delete.confirm"))
        case .deleteCancel:
            return Paint(style: "background:\(color.background.hex);" + PreviewStyle.border(theme.borderWidth.thin, color.border.outlined.default)
                            + "border-radius:\(px(theme.radius.medium));display:flex;align-items:center;justify-content:center;"
                            + "color:\(color.text.primary.hex);" + PreviewStyle.font(type.titleLarge),
                         content: text("vaulted.delete.cancel"))
        default:
            return cardField(frame.slot)
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

    private func icon() -> String {
        span("", "display:block;flex:none;width:\(px(theme.component.paymentMethodIconWidth));height:\(px(theme.size.large));"
            + "box-sizing:border-box;border-radius:\(px(theme.radius.xsmall));"
            + PreviewStyle.border(theme.borderWidth.thin, color.border.outlined.default) + "background:\(color.background.hex);")
    }

    private func cardField(_ slot: LayoutSlot) -> Paint {
        for field in PreviewRenderer.cardFields {
            if slot == LayoutSlot.fieldError(field), let code = PreviewRenderer.sampleErrors[field] {
                return Paint(style: "color:\(color.text.negative.hex);white-space:nowrap;" + PreviewStyle.font(type.bodySmall),
                             content: text("error.field.\(code)", [:]))
            }
            if slot == LayoutSlot.field(field) {
                let error = screen == .cardFormErrors && PreviewRenderer.sampleErrors[field] != nil
                return self.field(label: text("card.\(field.rawValue).label"), value: value(field),
                                  placeholder: text("card.\(field.rawValue).placeholder"), error: error)
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

    private func field(label: String, value: String?, placeholder: String, error: Bool) -> Paint {
        let border = error ? PreviewStyle.border(theme.borderWidth.medium, color.border.outlined.error)
            : PreviewStyle.border(theme.borderWidth.thin, color.border.outlined.default)
        let shown = value.map { span(HTMLText.escape($0), "display:block;color:\(color.text.primary.hex);" + PreviewStyle.font(type.bodyLarge)) }
            ?? span(placeholder, "display:block;color:\(color.text.placeholder.hex);" + PreviewStyle.font(type.bodyLarge))
        return Paint(style: "background:\(color.background.hex);" + border + "border-radius:\(px(theme.radius.small));"
                        + "padding:\(px(theme.space.xsmall)) \(px(theme.space.medium));white-space:nowrap;",
                     content: span(label, "display:block;color:\(color.text.secondary.hex);" + PreviewStyle.font(type.bodySmall)) + shown)
    }
}
