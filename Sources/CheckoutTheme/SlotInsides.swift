/// What sits inside a slot and how much width its text gets: the one description of a slot's insides that
/// the layout engine (to give a slot the height its text needs) and a renderer (to break the text into the
/// same lines) both read. Every number is a token.
///
/// - A text field: `borderWidth.thin` border, `space.xsmall` above and below, `space.medium` left and right;
///   its label (`bodySmall`, as many lines as it needs) over its value (one `bodyLarge` line). An error is
///   drawn inside the border, so it never moves the text.
/// - A payment-method row: `space.medium` left and right; the icon (`component.paymentMethodIcon.width`);
///   `space.medium`; the name (`bodyLarge`); and, when there is one, `space.medium` and the surcharge
///   (`bodySmall`, one line).
/// - The network selector: one chip per network, sharing the width equally `space.small` apart; a chip has a
///   `borderWidth.thin` border, `space.small` inside, the network's mark (`component.paymentMethodIcon.width`),
///   `space.small`, and the name (`bodySmall`, as many lines as it needs). Its visible label is the
///   `networkSelectorLabel` slot above it.
/// - Text slots (headers, error lines, the delete message) are all text: their width is the slot's.
public struct SlotInsides: Sendable {
    /// The theme whose tokens give the insets.
    public let theme: ResolvedTheme

    /// The insides of `theme`'s slots.
    public init(theme: ResolvedTheme) { self.theme = theme }

    /// The width a text field's label and value get in a field `slotWidth` wide.
    public func fieldTextWidth(_ slotWidth: Double) -> Double {
        max(0, slotWidth - 2 * theme.space.medium - 2 * theme.borderWidth.thin)
    }

    /// The width of a text field whose label and value get `textWidth` (the inverse of `fieldTextWidth`).
    public func fieldWidth(textWidth: Double) -> Double {
        textWidth + 2 * theme.space.medium + 2 * theme.borderWidth.thin
    }

    /// The height a text field needs for a label of `labelLines` lines (never less than the token height).
    public func fieldHeight(labelLines: Int) -> Double {
        let content = Double(max(1, labelLines)) * theme.typography.bodySmall.lineHeight + theme.typography.bodyLarge.lineHeight
        return max(theme.component.textFieldHeight, content + 2 * theme.space.xsmall + 2 * theme.borderWidth.thin)
    }

    /// The width a payment-method row's name gets, given the surcharge's width when the row has one.
    public func methodNameWidth(_ slotWidth: Double, surchargeWidth: Double?) -> Double {
        let fixed = 2 * theme.space.medium + theme.component.paymentMethodIconWidth + theme.space.medium
        return max(0, slotWidth - fixed - (surchargeWidth.map { $0 + theme.space.medium } ?? 0))
    }

    /// The height a payment-method row needs for a name of `lines` lines (never less than the token height).
    public func methodRowHeight(nameLines lines: Int) -> Double {
        max(theme.component.paymentMethodRowHeight,
            Double(max(1, lines)) * theme.typography.bodyLarge.lineHeight + 2 * theme.space.xsmall)
    }

    /// The width a network chip's name gets when `count` chips share a selector `slotWidth` wide.
    public func chipNameWidth(_ slotWidth: Double, count: Int) -> Double {
        let chip = count > 0 ? (slotWidth - theme.space.small * Double(count - 1)) / Double(count) : slotWidth
        return max(0, chip - 2 * theme.borderWidth.thin - 3 * theme.space.small - theme.component.paymentMethodIconWidth)
    }

    /// The height the network selector needs for names of `lines` lines (never less than the token height).
    public func networkSelectorHeight(nameLines lines: Int) -> Double {
        max(theme.component.networkSelectorHeight,
            Double(max(1, lines)) * theme.typography.bodySmall.lineHeight + 2 * theme.space.xsmall + 2 * theme.borderWidth.thin)
    }
}
