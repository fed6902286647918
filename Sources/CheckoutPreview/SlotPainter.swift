import CheckoutCore
import CheckoutTheme

/// Paints one slot: its CSS (fill, border, radius, text style) and its content (escaped texts).
///
/// Content sits inside the slot's box and never moves a frame. Texts come from the locale's strings;
/// field values are masked values. On a live page (`live`), rows, fields and buttons are controls of
/// the page's form: buttons that submit, inputs with their `autocomplete` tokens and visible labels.
struct SlotPainter {
    let theme: ResolvedTheme
    let strings: LocalizedStrings
    let content: ScreenContent
    let screen: PreviewScreen
    /// The card form on card-form screens.
    let form: CardFormModel?
    /// The live page's form, or nil for a picture.
    let live: LivePage?
    /// Light or dark (a live page's element ids name it).
    let mode: ThemeMode

    /// What a slot's element gets: its tag, attributes, inline CSS after its position, and inner HTML.
    struct Paint {
        var style: String
        var content: String
        var tag = "div"
        var attributes: [(String, String)] = []
        /// The slot holds its own named control (an input with its label): the element gets no role of its own.
        var namedInside = false
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
    private func lines(_ text: String, _ style: Typography, width: Double) -> String { PreviewStyle.lines(text, style, width: width).html }

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
        case .search:
            return search(frame)
        case .method:
            let method = frame.index < content.methods.count ? content.methods[frame.index] : nil
            let row = method?.row ?? PaymentMethodRowContent(name: "")
            let kind = method?.type ?? "UNKNOWN"
            let surchargeWidth = row.surcharge.map { TextMeasure.shipped.width(of: $0, style: type.bodySmall) }
            let nameWidth = insides.methodNameWidth(frame.width, surchargeWidth: surchargeWidth)
            var content = marks.method(kind)
                + span(lines(row.name, type.bodyLarge, width: nameWidth), "flex:1;min-width:0;color:\(color.text.primary.hex);"
                       + PreviewStyle.font(type.bodyLarge))
            if let surcharge = row.surcharge {
                content += span(HTMLText.escape(surcharge), "flex:none;white-space:nowrap;color:\(color.text.primary.hex);"
                                + PreviewStyle.font(type.bodySmall))
            }
            guard live != nil else { return Paint(style: rowStyle(selected: false), content: content) }
            return Paint(style: rowStyle(selected: false), content: content, tag: "button",
                         attributes: [("type", "submit"), ("name", "method"), ("value", kind.rawValue)])
        case .vaultedMethod:
            let saved = frame.index < self.content.saved.count ? self.content.saved[frame.index] : nil
            let item = saved?.row ?? VaultedRowContent(network: "", last4: "")
            let network = saved?.network ?? .other
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
            let selected = frame.index == self.content.selectedSaved
            guard live != nil, let saved else { return Paint(style: rowStyle(selected: selected), content: content) }
            return vaultedRow(saved, index: frame.index, selected: selected, content: content)
        case .cvvRecapture:
            // The selected card's own name for its code (CVV for Visa, CID for AMEX) and one dot per digit.
            let selected = content.selectedSaved < content.saved.count ? content.saved[content.selectedSaved].row : nil
            let placeholder = selected?.securityCodeLength.map { String(repeating: "•", count: $0) } ?? text("card.cvv.placeholder")
            return field(label: selected?.securityCodeLabel(strings) ?? text("card.cvv.label"), value: nil, placeholder: placeholder,
                         error: false, width: frame.width, input: LiveInput(name: "cvv", autocomplete: "cc-csc", numeric: true,
                                                                            sensitive: true, maxLength: 4))
        case .networkSelectorLabel:
            return Paint(style: "color:\(color.text.secondary.hex);" + PreviewStyle.font(type.bodySmall),
                         content: lines(text(SlotTextKey.networkSelectorLabel), type.bodySmall, width: frame.width))
        case .networkSelector:
            let networks = content.networks
            let chosen = content.selectedNetwork ?? networks.first
            let nameWidth = insides.chipNameWidth(frame.width, count: networks.count)
            let chips = networks.map { network in
                let selected = network == chosen
                // The selection ring is inside the chip (an inset shadow over the thin border): nothing moves.
                // On a live page the ring follows the checked radio (the page's stylesheet), so a new choice moves it.
                let ring = selected && live == nil
                    ? "box-shadow:inset 0 0 0 \(px(theme.borderWidth.medium)) \(color.border.outlined.selected.hex);" : ""
                let radio = live == nil ? "" : "<input type=\"radio\" name=\"network\" value=\"\(HTMLText.escape(network.rawValue))\""
                    + (selected ? " checked=\"checked\"" : "") + " class=\"ck-hidden-control\"/>"
                return labelled(radio + marks.network(network) + span(lines(strings.networkName(network), type.bodySmall, width: nameWidth),
                                                                  "min-width:0;"),
                            "flex:1 1 0;min-width:0;display:flex;align-items:center;gap:\(px(theme.space.small));"
                    + "padding:0 \(px(theme.space.small));box-sizing:border-box;overflow:hidden;"
                    + PreviewStyle.border(theme.borderWidth.thin, selected && live == nil ? color.border.outlined.selected
                                          : color.border.outlined.default)
                    + ring + "border-radius:\(px(theme.radius.small));color:\(color.text.primary.hex);" + PreviewStyle.font(type.bodySmall))
            }
            return Paint(style: "display:flex;gap:\(px(theme.space.small));", content: chips.joined())
        case .saveChoice:
            let ticked = live?.saveChoice ?? false
            let box = type.bodyMedium.lineHeight
            let input = live == nil ? "" : "<input type=\"checkbox\" id=\"\(id("save"))\" name=\"save\" value=\"1\""
                + (ticked ? " checked=\"checked\"" : "") + " style=\"flex:none;margin:0;width:\(px(box));height:\(px(box));"
                + "accent-color:\(color.text.primary.hex);\"/>"
            let label = "<label for=\"\(id("save"))\" style=\"flex:1;min-width:0;color:\(color.text.primary.hex);"
                + HTMLText.escape(PreviewStyle.font(type.bodyMedium)) + "\">"
                + lines(text(SlotTextKey.saveChoice), type.bodyMedium, width: max(1, frame.width - box - theme.space.small)) + "</label>"
            return Paint(style: "display:flex;align-items:center;gap:\(px(theme.space.small));", content: input + label,
                         namedInside: live != nil)
        case .submit:
            let label = text("button.pay", ["amount": content.payAmount])
            return livePaint(Paint(style: buttonStyle(fill: color.text.primary), content: HTMLText.escape(label)), button: "pay")
        case .deleteDialog:
            return Paint(style: "background:\(color.surface.hex);border-radius:\(px(theme.radius.large));", content: "")
        case .deleteMessage:
            return Paint(style: "color:\(color.text.primary.hex);" + PreviewStyle.font(type.bodyMedium),
                         content: lines(text(SlotTextKey.deleteMessage, ["method": content.deletingDescription(strings)]),
                                        type.bodyMedium, width: frame.width))
        case .deleteConfirm:
            return livePaint(Paint(style: buttonStyle(fill: color.destructive), content: HTMLText.escape(text("vaulted.delete.confirm"))),
                             button: "delete-confirm")
        case .deleteCancel:
            return livePaint(Paint(style: "background:\(color.background.hex);"
                                      + PreviewStyle.border(theme.borderWidth.thin, color.border.outlined.default)
                                      + "border-radius:\(px(theme.radius.medium));display:flex;align-items:center;justify-content:center;"
                                      + "white-space:nowrap;color:\(color.text.primary.hex);" + PreviewStyle.font(type.titleLarge),
                                   content: HTMLText.escape(text("vaulted.delete.cancel"))), button: "delete-cancel")
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
                var paint = Paint(style: "color:\(color.text.negative.hex);" + PreviewStyle.font(type.bodySmall),
                                  content: lines(SlotTextKey.fieldError(code, in: strings), type.bodySmall, width: frame.width))
                if live != nil { paint.attributes = [("id", id(field.rawValue + "-error"))] }
                return paint
            }
            if frame.slot == LayoutSlot.field(field) {
                return self.field(label: text(SlotTextKey.fieldLabel(field)), value: content.values[field],
                                  placeholder: text("card.\(field.rawValue).placeholder"), error: form?.errors[field] != nil,
                                  width: frame.width, input: LiveInput.card(field))
            }
        }
        return Paint(style: "", content: "")
    }

    /// A text field: a thin border always, so an error (drawn as a ring inside it) moves nothing. On a live page the value
    /// line is an input named for the form (a sensitive one is never filled in: what it showed becomes its placeholder).
    private func field(label: String, value: String?, placeholder: String, error: Bool, width: Double, input: LiveInput?) -> Paint {
        let border = PreviewStyle.border(theme.borderWidth.thin, error ? color.border.outlined.error : color.border.outlined.default)
            + (error ? "box-shadow:inset 0 0 0 \(px(theme.borderWidth.medium - theme.borderWidth.thin)) \(color.border.outlined.error.hex);" : "")
        let style = "background:\(color.background.hex);" + border + "border-radius:\(px(theme.radius.small));"
            + "padding:\(px(theme.space.xsmall)) \(px(theme.space.medium));display:flex;flex-direction:column;justify-content:center;"
        let labelStyle = "display:block;color:\(color.text.secondary.hex);" + PreviewStyle.font(type.bodySmall)
        let labelLines = lines(label, type.bodySmall, width: insides.fieldTextWidth(width))
        guard live != nil, let input else {
            let shown = value.map { span(HTMLText.escape($0), "display:block;white-space:nowrap;color:\(color.text.primary.hex);"
                                         + PreviewStyle.font(type.bodyLarge)) }
                ?? span(HTMLText.escape(placeholder), "display:block;white-space:nowrap;color:\(color.text.placeholder.hex);"
                        + PreviewStyle.font(type.bodyLarge))
            return Paint(style: style, content: span(labelLines, labelStyle) + shown)
        }
        let fieldId = id(input.name)
        var attributes = [("id", fieldId), ("name", input.name), ("autocomplete", input.autocomplete),
                          ("type", input.type),
                          ("placeholder", input.sensitive ? (value ?? placeholder) : placeholder)]
        if !input.sensitive, let value { attributes.append(("value", value)) }
        if input.numeric { attributes += [("inputmode", "numeric")] }
        if let maxLength = input.maxLength { attributes.append(("maxlength", String(maxLength))) }
        if let form = input.form { attributes.append(("form", form)) }
        if let code = input.invalidCode { attributes.append(("data-invalid", SlotTextKey.fieldError(code, in: strings))) }
        if error {
            attributes += [("aria-invalid", "true"), ("aria-describedby", id(input.name + "-error"))]
        }
        attributes.append(("style", "display:block;width:100%;box-sizing:border-box;border:0;padding:0;margin:0;background:transparent;"
                                     + "outline-offset:2px;color:\(color.text.primary.hex);" + PreviewStyle.font(type.bodyLarge)))
        let rendered = attributes.map { "\($0.0)=\"\(HTMLText.escape($0.1))\"" }.joined(separator: " ")
        return Paint(style: style, content: "<label for=\"\(fieldId)\" style=\"\(HTMLText.escape(labelStyle))\">\(labelLines)</label>"
                         + "<input \(rendered)/>", namedInside: true)
    }

    /// The method list's search: a field and its button side by side. On a live page both belong to the search form
    /// the page puts outside its own (`form` attribute: forms do not nest), sent with GET as `q`.
    private func search(_ frame: LayoutFrame) -> Paint {
        let buttonText = text(SlotTextKey.searchButton)
        let buttonWidth = (TextMeasure.shipped.width(of: buttonText, style: type.titleLarge) + 2 * theme.space.medium).rounded(.up)
        let fieldWidth = max(1, frame.width - theme.space.small - buttonWidth)
        let formId = id("search")
        var field = self.field(label: text(SlotTextKey.searchLabel), value: live?.search?.query, placeholder: "", error: false,
                               width: fieldWidth, input: LiveInput(name: "q", autocomplete: "off", form: formId, type: "search"))
        field.style += "flex:1;min-width:0;height:100%;box-sizing:border-box;"
        let button = "flex:none;width:\(px(buttonWidth));height:100%;border:0;border-radius:\(px(theme.radius.medium));"
            + "background:\(color.text.primary.hex);color:\(color.background.hex);display:flex;align-items:center;"
            + "justify-content:center;white-space:nowrap;" + PreviewStyle.font(type.titleLarge)
        let fieldHTML = "<div style=\"\(HTMLText.escape(field.style))\">\(field.content)</div>"
        let buttonHTML = live == nil ? span(HTMLText.escape(buttonText), button)
            : "<button type=\"submit\" form=\"\(formId)\" style=\"\(HTMLText.escape(button))\">\(HTMLText.escape(buttonText))</button>"
        return Paint(style: "display:flex;gap:\(px(theme.space.small));", content: fieldHTML + buttonHTML, namedInside: live != nil)
    }

    /// A saved method on a live page: a button selecting it (the page comes back with its security-code field under it,
    /// as the selection session does), and the row's "make default" and "delete" buttons.
    private func vaultedRow(_ saved: ScreenContent.Saved, index: Int, selected: Bool, content rowContent: String) -> Paint {
        let description = saved.row.describe(strings)
        let buttonStyle = "flex:1;min-width:0;height:100%;display:flex;align-items:center;gap:\(px(theme.space.medium));"
            + "background:transparent;border:0;padding:0;margin:0;text-align:start;color:inherit;"
        let value = "select:" + saved.id
        let select = "<button type=\"submit\" name=\"action\" value=\"\(HTMLText.escape(value))\" aria-pressed=\"\(selected)\" "
            + "aria-label=\"\(HTMLText.escape(description))\" style=\"\(HTMLText.escape(buttonStyle))\">" + rowContent + "</button>"
        let small = "background:transparent;border:0;padding:\(px(theme.space.xxsmall));cursor:pointer;text-decoration:underline;"
            + "color:\(color.text.primary.hex);" + PreviewStyle.font(type.bodySmall)
        var actions = ""
        if !saved.row.isDefault {
            actions += smallButton(text("vaulted.row.makeDefault"), label: text("vaulted.row.makeDefault.label", ["method": description]),
                                   value: "default:" + saved.id, style: small)
        }
        actions += smallButton(text("vaulted.row.delete"), label: text("vaulted.row.delete.label", ["method": description]),
                               value: "delete:" + saved.id, style: small)
        return Paint(style: rowStyle(selected: selected), content: select + span(actions, "flex:none;display:flex;flex-direction:column;"),
                     namedInside: true)
    }

    private func smallButton(_ text: String, label: String, value: String, style: String) -> String {
        "<button type=\"submit\" name=\"action\" value=\"\(HTMLText.escape(value))\" aria-label=\"\(HTMLText.escape(label))\" "
            + "style=\"\(HTMLText.escape(style))\">\(HTMLText.escape(text))</button>"
    }

    /// A chip of the network selector: a label holding its hidden radio on a live page, a span in a picture.
    private func labelled(_ inner: String, _ style: String) -> String {
        guard live != nil else { return span(inner, style) }
        return "<label style=\"\(HTMLText.escape(style + "cursor:pointer;"))\">\(inner)</label>"
    }

    /// A live page's button: the slot becomes a submit button sending `action=value`.
    private func livePaint(_ paint: Paint, button value: String) -> Paint {
        guard live != nil else { return paint }
        var paint = paint
        paint.tag = "button"
        paint.attributes = [("type", "submit"), ("name", "action"), ("value", value)]
        return paint
    }

    /// A page-unique element id (a live page holds its light and dark copies side by side).
    private func id(_ name: String) -> String { "ck-\(mode.rawValue)-\(name)" }
}

/// A live page's input: its form name, `autocomplete` token and keyboard.
struct LiveInput {
    let name: String
    let autocomplete: String
    var numeric = false
    /// A card number or security code: never written back into the page.
    var sensitive = false
    var maxLength: Int?
    /// The error code whose message the page script shows when what was typed cannot be right.
    var invalidCode: String?
    /// The form it belongs to when that is not the page's own (the method list's search).
    var form: String?
    /// The input's type.
    var type = "text"

    /// The input of a card-form field, with the standard `autocomplete` token browsers and password managers fill.
    static func card(_ field: CardFormField) -> LiveInput {
        switch field {
        case .cardNumber:
            LiveInput(name: field.rawValue, autocomplete: "cc-number", numeric: true, sensitive: true, maxLength: 23,
                      invalidCode: "invalid-card-number")
        case .expiryDate: LiveInput(name: field.rawValue, autocomplete: "cc-exp", numeric: true, maxLength: 7, invalidCode: "invalid-expiry-date")
        case .cvv: LiveInput(name: field.rawValue, autocomplete: "cc-csc", numeric: true, sensitive: true, maxLength: 4)
        case .cardholderName: LiveInput(name: field.rawValue, autocomplete: "cc-name")
        case .firstName: LiveInput(name: field.rawValue, autocomplete: "given-name")
        case .lastName: LiveInput(name: field.rawValue, autocomplete: "family-name")
        case .postalCode: LiveInput(name: field.rawValue, autocomplete: "postal-code")
        case .countryCode: LiveInput(name: field.rawValue, autocomplete: "country", maxLength: 2)
        case .city: LiveInput(name: field.rawValue, autocomplete: "address-level2")
        case .state: LiveInput(name: field.rawValue, autocomplete: "address-level1")
        case .addressLine1: LiveInput(name: field.rawValue, autocomplete: "address-line1")
        case .addressLine2: LiveInput(name: field.rawValue, autocomplete: "address-line2")
        default: LiveInput(name: field.rawValue, autocomplete: "on")
        }
    }
}
