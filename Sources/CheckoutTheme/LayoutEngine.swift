import CheckoutCore

/// Turns a view model plus a theme into frames.
///
/// Every distance comes from a token, so overriding `space.*` or `component.*` moves frames without
/// code changes. The rules (from the seed SDK, made explicit):
///
/// - Payment-method list: `header`; `space.medium`; then `method` rows of `component.paymentMethodRow.height`
///   separated by `space.small`, or one `empty` slot of `component.emptyState.minHeight`.
/// - Vaulted list: `header`; `space.medium`; `vaultedMethod` rows of `component.vaultedMethodRow.height`
///   separated by `space.small` (or `empty`). If CVV recapture is required, the `cvvRecapture` field
///   (`component.textField.height` high, at most `component.cvvField.maxWidth` wide) sits `space.small` under the
///   selected row, the next row `space.small` under it; then `space.large` and the `submit` button
///   (`component.button.height`).
/// - Card form: field rows of `component.textField.height` separated by `space.medium` (fields in a row split the
///   width, `space.small` apart); a field with an error gets a `<field>Error` line (`typography.bodySmall` line
///   height) `space.xxsmall` under its row, in its column; the `networkSelector` (`component.networkSelector.height`)
///   as its own row after the card-number row; with billing rows, `space.large`, a `billingHeader`, `space.medium`,
///   the billing rows; finally `space.large` and `submit`.
/// - Delete confirmation: a `deleteDialog` panel with `space.large` padding holding `deleteTitle` (header height),
///   `space.small`, `deleteMessage` (two `bodyMedium` lines), `space.large`, `deleteConfirm`, `space.small`,
///   `deleteCancel` (button height each).
///
/// Nothing a shopper taps is smaller than `component.touchTarget.minSize` in either dimension.
/// Frames span the full input width from x = 0 (the host applies screen insets); heights never depend on content.
/// With `strings`, every frame carries its localized accessibility label, hint and role.
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

    /// Lays out the payment-method list.
    public func layout(_ model: PaymentMethodListModel, width: Double = defaultWidth) -> LayoutResult {
        var stack = VerticalStack(width: width)
        stack.add(.header, height: theme.component.headerHeight)
        stack.gap(theme.space.medium)
        if model.isEmpty {
            stack.add(.empty, height: theme.component.emptyStateMinHeight)
        } else {
            for row in 0..<model.methodCount {
                if row > 0 { stack.gap(theme.space.small) }
                stack.add(.method, index: row, height: tappable(theme.component.paymentMethodRowHeight))
            }
        }
        return labeled(stack.result(), .paymentMethods(model))
    }

    /// Lays out the vaulted (saved) methods list.
    public func layout(_ model: VaultedListModel, width: Double = defaultWidth) -> LayoutResult {
        var stack = VerticalStack(width: width)
        stack.add(.header, height: theme.component.headerHeight)
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
                stack.add(.cvvRecapture, height: tappable(theme.component.textFieldHeight),
                          width: min(max(theme.component.cvvFieldMaxWidth, theme.component.minTouchTarget), stack.width))
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
        func addRow(_ row: [CardFormField], to stack: inout VerticalStack) {
            stack.addRow(row.map(LayoutSlot.field), firstIndex: fieldIndex, height: tappable(theme.component.textFieldHeight),
                         spacing: theme.space.small)
            if row.contains(where: { model.errors[$0] != nil }) {
                stack.gap(theme.space.xxsmall)
                let columns = row.enumerated().map { offset, field in
                    model.errors[field] == nil ? nil : (slot: LayoutSlot.fieldError(field), index: fieldIndex + offset)
                }
                stack.addColumns(columns, height: theme.typography.bodySmall.lineHeight, spacing: theme.space.small)
            }
            fieldIndex += row.count
        }
        for row in model.rows {
            if !first { stack.gap(theme.space.medium) }
            first = false
            addRow(row, to: &stack)
            if model.showsNetworkSelector, row.contains(.cardNumber) {
                stack.gap(theme.space.medium)
                stack.add(.networkSelector, height: tappable(theme.component.networkSelectorHeight))
            }
        }
        if model.showsNetworkSelector, !model.rows.contains(where: { $0.contains(.cardNumber) }) {
            if !first { stack.gap(theme.space.medium) }
            first = false
            stack.add(.networkSelector, height: tappable(theme.component.networkSelectorHeight))
        }
        if !model.billingRows.isEmpty {
            if !first { stack.gap(theme.space.large) }
            first = false
            stack.add(.billingHeader, height: theme.component.headerHeight)
            for row in model.billingRows {
                stack.gap(theme.space.medium)
                addRow(row, to: &stack)
            }
        }
        if !first { stack.gap(theme.space.large) }
        stack.add(.submit, height: tappable(theme.component.buttonHeight))
        return labeled(stack.result(), .cardForm(model))
    }

    /// Lays out the delete confirmation panel.
    public func layout(_ model: DeleteConfirmationModel, width: Double = defaultWidth) -> LayoutResult {
        let outer = VerticalStack(width: width)
        let padding = theme.space.large
        var inner = VerticalStack(width: max(0, outer.width - 2 * padding))
        inner.add(.deleteTitle, height: theme.component.headerHeight)
        inner.gap(theme.space.small)
        inner.add(.deleteMessage, height: 2 * theme.typography.bodyMedium.lineHeight)
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
