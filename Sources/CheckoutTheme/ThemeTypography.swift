/// The text styles (`typography.*`).
///
/// Typed access for views: `theme.typography.bodyMedium.fontSize`.
public struct ThemeTypography: Hashable, Sendable {
    /// `typography.titleXlarge` (Inter 24/32, 550, -0.6).
    public let titleXlarge: Typography
    /// `typography.titleLarge` (Inter 16/20, 550, -0.2).
    public let titleLarge: Typography
    /// `typography.bodyLarge` (Inter 16/20, 400, -0.2).
    public let bodyLarge: Typography
    /// `typography.bodyMedium` (Inter 14/20, 400, 0).
    public let bodyMedium: Typography
    /// `typography.bodySmall` (Inter 12/16, 400, 0).
    public let bodySmall: Typography

    init(_ reader: inout TypedTokenReader) {
        titleXlarge = reader.typography("typography.titleXlarge")
        titleLarge = reader.typography("typography.titleLarge")
        bodyLarge = reader.typography("typography.bodyLarge")
        bodyMedium = reader.typography("typography.bodyMedium")
        bodySmall = reader.typography("typography.bodySmall")
    }
}
