import Foundation

/// A fully resolved theme: typed access to every value the checkout views use, plus lookup by path.
///
/// An immutable `Sendable` value: resolve once, then share it across any number of sessions and threads.
public struct ResolvedTheme: Hashable, Sendable {
    /// Every resolved token (including any extra tokens a merchant added).
    public let tokens: ResolvedTokens
    /// `space.*`.
    public let space: ThemeSpacing
    /// `radius.*`.
    public let radius: ThemeRadius
    /// `size.*`.
    public let size: ThemeSize
    /// `borderWidth.*`.
    public let borderWidth: ThemeBorderWidth
    /// Semantic colours, `color.*`.
    public let color: ThemeColors
    /// Text styles, `typography.*`.
    public let typography: ThemeTypography
    /// Component dimensions, `component.*`.
    public let component: ComponentSizes

    /// Builds the typed view; throws `missingToken`/`typeMismatch` issues for every needed path that is absent or mistyped.
    public init(tokens: ResolvedTokens) throws(ThemeError) {
        var reader = TypedTokenReader(tokens: tokens)
        self.tokens = tokens
        space = ThemeSpacing(&reader)
        radius = ThemeRadius(&reader)
        size = ThemeSize(&reader)
        borderWidth = ThemeBorderWidth(&reader)
        color = ThemeColors(&reader)
        typography = ThemeTypography(&reader)
        component = ComponentSizes(&reader)
        guard reader.issues.isEmpty else { throw ThemeError(issues: reader.issues) }
    }

    /// The value at a dotted path, e.g. `value(at: "space.medium")` is `.dimension(12)`; nil if there is no such token.
    public func value(at path: String) -> TokenValue? { tokens.value(at: path) }

    /// Loads the token files from a configuration directory and resolves them.
    ///
    /// Reads `theme.tokens.json`, then `theme.dark.tokens.json` in dark mode, then the `overrides` layers in order.
    public static func load(configDirectory: URL, mode: ThemeMode = .light, overrides: [ThemeLayer] = []) throws(ThemeError) -> ResolvedTheme {
        try ThemeResolver.resolve(layers: ThemeFiles.layers(configDirectory: configDirectory, mode: mode) + overrides)
    }
}
