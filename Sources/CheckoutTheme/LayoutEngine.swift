import CheckoutCore

/// Turns a view model plus a theme into frames.
///
/// Every distance comes from a token, so overriding `space.*` or `component.*` moves frames without
/// code changes. The rules (from the seed SDK, made explicit):
///
/// - Payment-method list: `header`; `space.medium`; with search, the `search` field (a text field's height) and
///   `space.medium`; then `method` rows of `component.paymentMethodRow.height` separated by `space.small`, or one
///   `empty` slot of `component.emptyState.minHeight`.
/// - Vaulted list: `header`; `space.medium`; `vaultedMethod` rows of `component.vaultedMethodRow.height`
///   separated by `space.small` (or `empty`). If CVV recapture is required, the `cvvRecapture` field
///   (`component.textField.height` high, `component.cvvField.maxWidth` wide unless its label needs more) sits `space.small` under the
///   selected row, the next row `space.small` under it; then `space.large` and the `submit` button
///   (`component.button.height`).
/// - Card form: field rows of `component.textField.height` separated by `space.medium` (fields in a row split the
///   width, `space.small` apart); a field with an error gets a `<field>Error` line (`typography.bodySmall` line
///   height) `space.xxsmall` under its row, in its column; after the card-number row, the selector's visible label
///   `networkSelectorLabel` (one `bodySmall` line), `space.xxsmall`, and the `networkSelector`
///   (`component.networkSelector.height`); with billing rows, `space.large`, a `billingHeader`, `space.medium`,
///   the billing rows; with the save choice, `space.medium` and `saveChoice`; finally `space.large` and `submit`.
/// - Delete confirmation: a `deleteDialog` panel with `space.large` padding holding `deleteTitle` (header height),
///   `space.small`, `deleteMessage` (two `bodyMedium` lines), `space.large`, `deleteConfirm`, `space.small`,
///   `deleteCancel` (button height each).
///
/// Nothing a shopper taps is smaller than `component.touchTarget.minSize` in either dimension.
/// Frames span the full input width from x = 0 (the host applies screen insets, `component.page.margin`).
///
/// With `strings`, text never clips: headers, field labels, error lines, the delete message and method names
/// are measured in the shipped font (`TextMeasure`) at the width `SlotInsides` gives them, and a slot whose
/// text needs more lines than its token height holds grows to fit them (the heights above are minimums).
/// Every frame then also carries its localized accessibility label, hint and role. Without `strings`, each
/// text takes one line.
public struct LayoutEngine: Sendable {
    /// The theme whose tokens drive the layout.
    public let theme: ResolvedTheme
    /// The texts accessibility labels are built from; nil lays out without accessibility information.
    public let strings: LocalizedStrings?
    /// The formatted amount the pay button names (`€19.99`), when known.
    public let payAmount: String?

    /// The default width laid out for when none is given (an iPhone-sized 375 points).
    public static let defaultWidth = 375.0

    /// An engine for one theme; give `strings` to get accessibility labels in the results.
    public init(theme: ResolvedTheme, strings: LocalizedStrings? = nil, payAmount: String? = nil) {
        self.theme = theme
        self.strings = strings
        self.payAmount = payAmount
    }

    private func tappable(_ height: Double) -> Double { max(height, theme.component.minTouchTarget) }

    private var insides: SlotInsides { SlotInsides(theme: theme) }

    /// How many lines `text` takes at `width` (one when there are no strings to measure).
    private func lineCount(_ text: (LocalizedStrings) -> String, style: Typography, width: Double) -> Int {
        guard let strings else { return 1 }
        return TextMeasure.shipped.lines(text(strings), style: style, width: width).count
    }

    /// The height of a text slot: its lines of `style`, at least `minimum`.
    private func textHeight(_ text: @escaping (LocalizedStrings) -> String, style: Typography, width: Double,
                            minimum: Double) -> Double {
        max(minimum, Double(lineCount(text, style: style, width: width)) * style.lineHeight)
    }

    private func methodRowHeight(_ model: PaymentMethodListModel, row: Int, width: Double) -> Double {
        guard strings != nil, row < model.rows.count else { return theme.component.paymentMethodRowHeight }
        let content = model.rows[row]
        let surchargeWidth = content.surcharge.map { TextMeasure.shipped.width(of: $0, style: theme.typography.bodySmall) }
        let lines = lineCount({ _ in content.name }, style: theme.typography.bodyLarge,
                              width: insides.methodNameWidth(width, surchargeWidth: surchargeWidth))
        return insides.methodRowHeight(nameLines: lines)
    }

    /// Lays out the payment-method list.
    public func layout(_ model: PaymentMethodListModel, width: Double = defaultWidth) -> LayoutResult {
        var stack = VerticalStack(width: width)
        stack.add(.header, height: textHeight({ $0.text(SlotTextKey.methodsHeader) }, style: theme.typography.titleLarge,
                                              width: stack.width, minimum: theme.component.headerHeight))
        stack.gap(theme.space.medium)
        if model.showsSearch {
            // A text field as wide as the row less its button (the button's text on one line, padded by space.medium).
            let button = strings.map { TextMeasure.shipped.width(of: $0.text(SlotTextKey.searchButton), style: theme.typography.titleLarge) } ?? 0
            let field = stack.width - theme.space.small - (button + 2 * theme.space.medium).rounded(.up)
            let lines = lineCount({ $0.text(SlotTextKey.searchLabel) }, style: theme.typography.bodySmall,
                                  width: insides.fieldTextWidth(max(1, field)))
            stack.add(.search, height: tappable(insides.fieldHeight(labelLines: lines)))
            stack.gap(theme.space.medium)
        }
        if model.isEmpty {
            stack.add(.empty, height: theme.component.emptyStateMinHeight)
        } else {
            for row in 0..<model.methodCount {
                if row > 0 { stack.gap(theme.space.small) }
                stack.add(.method, index: row, height: tappable(methodRowHeight(model, row: row, width: stack.width)))
            }
        }
        return labeled(stack.result(), .paymentMethods(model))
    }

    /// Lays out the vaulted (saved) methods list.
    public func layout(_ model: VaultedListModel, width: Double = defaultWidth) -> LayoutResult {
        var stack = VerticalStack(width: width)
        stack.add(.header, height: textHeight({ $0.text(SlotTextKey.vaultedHeader) }, style: theme.typography.titleLarge,
                                              width: stack.width, minimum: theme.component.headerHeight))
        stack.gap(theme.space.medium)
        guard !model.isEmpty else {
            stack.add(.empty, height: theme.component.emptyStateMinHeight)
            return labeled(stack.result(), .vaulted(model))
        }
        for row in 0..<model.count {
            if row > 0 { stack.gap(theme.space.small) }
            stack.add(.vaultedMethod, index: row, height: tappable(theme.component.vaultedMethodRowHeight))
            // The CVV field belongs to the selected card: right under it, not under the whole list.
            if model.requiresCvvRecapture && row == model.selectedIndex {
                stack.gap(theme.space.small)
                addCvvField(model, to: &stack)
            }
        }
        stack.gap(theme.space.large)
        stack.add(.submit, height: tappable(theme.component.buttonHeight))
        return labeled(stack.result(), .vaulted(model))
    }

    /// Lays out the card form.
    public func layout(_ model: CardFormModel, width: Double = defaultWidth) -> LayoutResult {
        var stack = VerticalStack(width: width)
        var fieldIndex = 0
        var first = true
        let small = theme.typography.bodySmall
        func addRow(_ row: [CardFormField], to stack: inout VerticalStack) {
            let column = stack.columnWidth(count: row.count, spacing: theme.space.small)
            let labelLines = row.map { field in
                lineCount({ $0.text(SlotTextKey.fieldLabel(field)) }, style: small, width: insides.fieldTextWidth(column))
            }.max() ?? 1
            stack.addRow(row.map(LayoutSlot.field), firstIndex: fieldIndex, height: tappable(insides.fieldHeight(labelLines: labelLines)),
                         spacing: theme.space.small)
            if row.contains(where: { model.errors[$0] != nil }) {
                stack.gap(theme.space.xxsmall)
                let columns = row.enumerated().map { offset, field in
                    model.errors[field] == nil ? nil : (slot: LayoutSlot.fieldError(field), index: fieldIndex + offset)
                }
                let errorLines = row.compactMap { field in
                    model.errors[field].map { code in lineCount({ SlotTextKey.fieldError(code, in: $0) }, style: small, width: column) }
                }.max() ?? 1
                stack.addColumns(columns, height: Double(errorLines) * small.lineHeight, spacing: theme.space.small)
            }
            fieldIndex += row.count
        }
        for row in model.rows {
            if !first { stack.gap(theme.space.medium) }
            first = false
            addRow(row, to: &stack)
            if model.showsNetworkSelector, row.contains(.cardNumber) {
                stack.gap(theme.space.medium)
                addNetworkSelector(model, to: &stack)
            }
        }
        if model.showsNetworkSelector, !model.rows.contains(where: { $0.contains(.cardNumber) }) {
            if !first { stack.gap(theme.space.medium) }
            first = false
            addNetworkSelector(model, to: &stack)
        }
        if !model.billingRows.isEmpty {
            if !first { stack.gap(theme.space.large) }
            first = false
            stack.add(.billingHeader, height: textHeight({ $0.text(SlotTextKey.billingHeader) }, style: theme.typography.titleLarge,
                                                         width: stack.width, minimum: theme.component.headerHeight))
            for row in model.billingRows {
                stack.gap(theme.space.medium)
                addRow(row, to: &stack)
            }
        }
        if model.showsSaveChoice {
            if !first { stack.gap(theme.space.medium) }
            first = false
            // A checkbox and its label: the label's lines at the width beside the box, at least a touch target.
            let body = theme.typography.bodyMedium
            let box = body.lineHeight
            stack.add(.saveChoice, height: tappable(textHeight({ $0.text(SlotTextKey.saveChoice) }, style: body,
                                                               width: max(1, stack.width - box - theme.space.small),
                                                               minimum: body.lineHeight)))
        }
        if !first { stack.gap(theme.space.large) }
        stack.add(.submit, height: tappable(theme.component.buttonHeight))
        return labeled(stack.result(), .cardForm(model))
    }

    /// The CVV field: `component.cvvField.maxWidth` wide, or as wide as its label (the selected card's code
    /// name, else the generic one) needs to stay on one line (a word is never broken), within the stack's width.
    private func addCvvField(_ model: VaultedListModel, to stack: inout VerticalStack) {
        let small = theme.typography.bodySmall
        let selected = model.selectedIndex < model.items.count ? model.items[model.selectedIndex] : nil
        let label = { (strings: LocalizedStrings) in
            selected?.securityCodeLabel(strings) ?? strings.text(SlotTextKey.fieldLabel(.cvv))
        }
        let labelWidth = strings.map { TextMeasure.shipped.width(of: label($0), style: small) } ?? 0
        let needed = insides.fieldWidth(textWidth: labelWidth + 1).rounded(.up)
        let width = min(max(theme.component.cvvFieldMaxWidth, theme.component.minTouchTarget, needed), stack.width)
        let lines = lineCount(label, style: small, width: insides.fieldTextWidth(width))
        stack.add(.cvvRecapture, height: tappable(insides.fieldHeight(labelLines: lines)), width: width)
    }

    /// The selector's visible label (`networkSelectorLabel`), `space.xxsmall`, then the chips (`networkSelector`).
    private func addNetworkSelector(_ model: CardFormModel, to stack: inout VerticalStack) {
        let small = theme.typography.bodySmall
        stack.add(.networkSelectorLabel, height: textHeight({ $0.text(SlotTextKey.networkSelectorLabel) }, style: small,
                                                            width: stack.width, minimum: small.lineHeight))
        stack.gap(theme.space.xxsmall)
        let nameWidth = insides.chipNameWidth(stack.width, count: max(1, model.networks.count))
        let lines = model.networks.map { name in lineCount({ _ in name }, style: small, width: nameWidth) }.max() ?? 1
        stack.add(.networkSelector, height: tappable(insides.networkSelectorHeight(nameLines: lines)))
    }

    /// Lays out the delete confirmation panel.
    public func layout(_ model: DeleteConfirmationModel, width: Double = defaultWidth) -> LayoutResult {
        let outer = VerticalStack(width: width)
        let padding = theme.space.large
        var inner = VerticalStack(width: max(0, outer.width - 2 * padding))
        inner.add(.deleteTitle, height: textHeight({ $0.text(SlotTextKey.deleteTitle) }, style: theme.typography.titleLarge,
                                                   width: inner.width, minimum: theme.component.headerHeight))
        inner.gap(theme.space.small)
        let message = model.methodDescription
        inner.add(.deleteMessage, height: textHeight({ $0.text(SlotTextKey.deleteMessage, ["method": message]) },
                                                     style: theme.typography.bodyMedium, width: inner.width,
                                                     minimum: 2 * theme.typography.bodyMedium.lineHeight))
        inner.gap(theme.space.large)
        inner.add(.deleteConfirm, height: tappable(theme.component.buttonHeight))
        inner.gap(theme.space.small)
        inner.add(.deleteCancel, height: tappable(theme.component.buttonHeight))
        let content = inner.result()
        let panelHeight = content.height + 2 * padding
        let panel = LayoutFrame(slot: .deleteDialog, index: 0, x: 0, y: 0, width: outer.width, height: panelHeight)
        let children = content.frames.map {
            LayoutFrame(slot: $0.slot, index: $0.index, x: $0.x + padding, y: $0.y + padding, width: $0.width, height: $0.height)
        }
        return labeled(LayoutResult(width: outer.width, height: panelHeight, frames: [panel] + children), .deleteConfirmation(model))
    }

    private func labeled(_ result: LayoutResult, _ screen: AccessibilityLabeler.Screen) -> LayoutResult {
        guard let strings else { return result }
        let labeler = AccessibilityLabeler(strings: strings, screen: screen, payAmount: payAmount)
        return result.annotated(labeler.info)
    }
}
