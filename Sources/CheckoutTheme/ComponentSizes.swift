/// Component dimensions in points (`component.*`): what the layout engine stacks.
///
/// Tokens rather than constants so a merchant can override them like any other value.
public struct ComponentSizes: Hashable, Sendable {
    /// `component.paymentMethodRow.height` (44).
    public let paymentMethodRowHeight: Double
    /// `component.vaultedMethodRow.height` (64).
    public let vaultedMethodRowHeight: Double
    /// `component.button.height` (50).
    public let buttonHeight: Double
    /// `component.paymentMethodIcon.width` (32).
    public let paymentMethodIconWidth: Double
    /// `component.cvvField.maxWidth` (120).
    public let cvvFieldMaxWidth: Double
    /// `component.emptyState.minHeight` (200).
    public let emptyStateMinHeight: Double
    /// `component.header.height` (20, one line of `titleLarge`).
    public let headerHeight: Double
    /// `component.textField.height` (56, alias of `size.xxxlarge`).
    public let textFieldHeight: Double
    /// `component.networkSelector.height` (44, alias of `size.xxlarge`).
    public let networkSelectorHeight: Double
    /// `component.touchTarget.minSize` (44, alias of `size.xxlarge`): the least width and height of every
    /// slot a shopper taps; the layout engine never makes one smaller.
    public let minTouchTarget: Double
    /// `component.page.margin` (16, alias of `space.large`): the space a screen keeps between its edges and
    /// its content; the layout engine lays out the width inside it, and the host (or the preview page) insets.
    public let pageMargin: Double

    init(_ reader: inout TypedTokenReader) {
        paymentMethodRowHeight = reader.dimension("component.paymentMethodRow.height")
        vaultedMethodRowHeight = reader.dimension("component.vaultedMethodRow.height")
        buttonHeight = reader.dimension("component.button.height")
        paymentMethodIconWidth = reader.dimension("component.paymentMethodIcon.width")
        cvvFieldMaxWidth = reader.dimension("component.cvvField.maxWidth")
        emptyStateMinHeight = reader.dimension("component.emptyState.minHeight")
        headerHeight = reader.dimension("component.header.height")
        textFieldHeight = reader.dimension("component.textField.height")
        networkSelectorHeight = reader.dimension("component.networkSelector.height")
        minTouchTarget = reader.dimension("component.touchTarget.minSize")
        pageMargin = reader.dimension("component.page.margin")
    }
}
