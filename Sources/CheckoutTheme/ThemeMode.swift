/// Light or dark: which mode layer sits between the base tokens and the merchant overrides.
///
/// The dark layer overrides only the palette, so the semantic colour aliases re-resolve against it.
public enum ThemeMode: String, Sendable, Hashable, CaseIterable {
    /// The base tokens alone.
    case light
    /// The base tokens plus `theme.dark.tokens.json`.
    case dark
}
