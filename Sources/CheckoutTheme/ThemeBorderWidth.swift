/// Border widths in points (`borderWidth.*`).
///
/// Typed access for views: `theme.borderWidth.thin`.
public struct ThemeBorderWidth: Hashable, Sendable {
    /// `borderWidth.thin` (1).
    public let thin: Double
    /// `borderWidth.medium` (2).
    public let medium: Double
    /// `borderWidth.thick` (3).
    public let thick: Double

    init(_ reader: inout TypedTokenReader) {
        thin = reader.dimension("borderWidth.thin")
        medium = reader.dimension("borderWidth.medium")
        thick = reader.dimension("borderWidth.thick")
    }
}
