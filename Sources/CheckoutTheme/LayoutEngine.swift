/// Turns a content-free view model plus a theme into frames.
///
/// Every distance comes from a token, so overriding `space.*` or `component.*` moves frames without
/// code changes. The rules (from the seed SDK, made explicit):
///
/// - Payment-method list: `header`; `space.medium`; then `method` rows of `component.paymentMethodRow.height`
///   separated by `space.small`, or one `empty` slot of `component.emptyState.minHeight`.
/// - Vaulted list: `header`; `space.medium`; `vaultedMethod` rows of `component.vaultedMethodRow.height`
///   separated by `space.small` (or `empty`). When rows exist: if CVV recapture is required, `space.medium` then
///   a `cvvRecapture` field (`component.textField.height` high, at most `component.cvvField.maxWidth` wide);
///   then `space.large` and the `submit` button (`component.button.height`).
/// - Card form: field rows of `component.textField.height` separated by `space.medium` (fields in a row split the
///   width, `space.small` apart); the `networkSelector` (`component.networkSelector.height`) as its own row after
///   the card-number row; with billing rows, `space.large`, a `billingHeader`, `space.medium`, the billing rows;
///   finally `space.large` and `submit`.
///
/// Frames span the full input width from x = 0 (the host applies screen insets); heights never depend on content.
public struct LayoutEngine: Sendable {
    /// The theme whose tokens drive the layout.
    public let theme: ResolvedTheme

    /// The default width laid out for when none is given (an iPhone-sized 375 points).
    public static let defaultWidth = 375.0

    /// An engine for one theme.
    public init(theme: ResolvedTheme) { self.theme = theme }

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
                stack.add(.method, index: row, height: theme.component.paymentMethodRowHeight)
            }
        }
        return stack.result()
    }

    /// Lays out the vaulted (saved) methods list.
    public func layout(_ model: VaultedListModel, width: Double = defaultWidth) -> LayoutResult {
        var stack = VerticalStack(width: width)
        stack.add(.header, height: theme.component.headerHeight)
        stack.gap(theme.space.medium)
        guard !model.isEmpty else {
            stack.add(.empty, height: theme.component.emptyStateMinHeight)
            return stack.result()
        }
        for row in 0..<model.count {
            if row > 0 { stack.gap(theme.space.small) }
            stack.add(.vaultedMethod, index: row, height: theme.component.vaultedMethodRowHeight)
        }
        if model.requiresCvvRecapture {
            stack.gap(theme.space.medium)
            stack.add(.cvvRecapture, height: theme.component.textFieldHeight,
                      width: min(theme.component.cvvFieldMaxWidth, stack.width))
        }
        stack.gap(theme.space.large)
        stack.add(.submit, height: theme.component.buttonHeight)
        return stack.result()
    }

    /// Lays out the card form.
    public func layout(_ model: CardFormModel, width: Double = defaultWidth) -> LayoutResult {
        var stack = VerticalStack(width: width)
        var fieldIndex = 0
        var first = true
        func addRow(_ row: [CardFormField], to stack: inout VerticalStack) {
            stack.addRow(row.map(LayoutSlot.field), firstIndex: fieldIndex, height: theme.component.textFieldHeight,
                         spacing: theme.space.small)
            fieldIndex += row.count
        }
        for row in model.rows {
            if !first { stack.gap(theme.space.medium) }
            first = false
            addRow(row, to: &stack)
            if model.showsNetworkSelector, row.contains(.cardNumber) {
                stack.gap(theme.space.medium)
                stack.add(.networkSelector, height: theme.component.networkSelectorHeight)
            }
        }
        if model.showsNetworkSelector, !model.rows.contains(where: { $0.contains(.cardNumber) }) {
            if !first { stack.gap(theme.space.medium) }
            first = false
            stack.add(.networkSelector, height: theme.component.networkSelectorHeight)
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
        stack.add(.submit, height: theme.component.buttonHeight)
        return stack.result()
    }
}
