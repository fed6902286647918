/// The spacing scale in points (`space.*`), all derived from `space.base` in the default tokens.
///
/// Typed so Swift callers write `theme.space.medium` rather than looking up strings.
public struct ThemeSpacing: Hashable, Sendable {
    /// `space.base` (4).
    public let base: Double
    /// `space.xxsmall` (2).
    public let xxsmall: Double
    /// `space.xsmall` (4).
    public let xsmall: Double
    /// `space.small` (8): between payment-method rows.
    public let small: Double
    /// `space.medium` (12): between a list header and its rows or empty state.
    public let medium: Double
    /// `space.large` (16).
    public let large: Double
    /// `space.xlarge` (20).
    public let xlarge: Double
    /// `space.xxlarge` (24).
    public let xxlarge: Double

    init(_ reader: inout TypedTokenReader) {
        base = reader.dimension("space.base")
        xxsmall = reader.dimension("space.xxsmall")
        xsmall = reader.dimension("space.xsmall")
        small = reader.dimension("space.small")
        medium = reader.dimension("space.medium")
        large = reader.dimension("space.large")
        xlarge = reader.dimension("space.xlarge")
        xxlarge = reader.dimension("space.xxlarge")
    }
}
