/// Corner radii in points (`radius.*`).
///
/// Typed access for views: `theme.radius.medium`.
public struct ThemeRadius: Hashable, Sendable {
    /// `radius.xsmall` (2).
    public let xsmall: Double
    /// `radius.small` (4).
    public let small: Double
    /// `radius.medium` (8).
    public let medium: Double
    /// `radius.large` (12).
    public let large: Double

    init(_ reader: inout TypedTokenReader) {
        xsmall = reader.dimension("radius.xsmall")
        small = reader.dimension("radius.small")
        medium = reader.dimension("radius.medium")
        large = reader.dimension("radius.large")
    }
}
