/// Icon and control sizes in points (`size.*`).
///
/// Typed access for views: `theme.size.large`.
public struct ThemeSize: Hashable, Sendable {
    /// `size.small` (16).
    public let small: Double
    /// `size.medium` (20).
    public let medium: Double
    /// `size.large` (24).
    public let large: Double
    /// `size.xlarge` (32).
    public let xlarge: Double
    /// `size.xxlarge` (44).
    public let xxlarge: Double
    /// `size.xxxlarge` (56).
    public let xxxlarge: Double

    init(_ reader: inout TypedTokenReader) {
        small = reader.dimension("size.small")
        medium = reader.dimension("size.medium")
        large = reader.dimension("size.large")
        xlarge = reader.dimension("size.xlarge")
        xxlarge = reader.dimension("size.xxlarge")
        xxxlarge = reader.dimension("size.xxxlarge")
    }
}
