/// The DTCG `$type`s this reader resolves.
///
/// A token's type comes from its own `$type`, else from the token it aliases, else from the nearest
/// group's `$type`; it is never guessed from the value.
public enum TokenType: String, Sendable, Hashable, CaseIterable {
    /// A length: `{ "value": 8, "unit": "px" }` (or `rem`), resolved to points.
    case dimension
    /// A plain number (multipliers, ratios).
    case number
    /// An sRGB colour: `#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa` or `{ colorSpace, components, alpha }`.
    case color
    /// A font weight: 1–1000 or a named weight such as `bold`.
    case fontWeight
    /// A font family name or a list of fallbacks.
    case fontFamily
    /// A duration: `{ "value": 200, "unit": "ms" }` (or `s`), resolved to milliseconds.
    case duration
    /// A composite text style: family, size, line height, weight and letter spacing.
    case typography
}
