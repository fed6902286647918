/// Reads the tokens the typed theme needs, collecting a `missingToken` or `typeMismatch` issue per
/// absent or wrongly typed path instead of stopping at the first.
///
/// Returns placeholder values for bad paths; `ResolvedTheme` throws when any issue was recorded,
/// so placeholders never escape.
struct TypedTokenReader {
    let tokens: ResolvedTokens
    private(set) var issues: [ThemeIssue] = []

    init(tokens: ResolvedTokens) { self.tokens = tokens }

    /// Points of the dimension at `path`.
    mutating func dimension(_ path: String) -> Double {
        if case .dimension(let points)? = value(path, .dimension) { return points }
        return 0
    }

    /// The colour at `path`.
    mutating func color(_ path: String) -> ThemeColor {
        if case .color(let color)? = value(path, .color) { return color }
        return ThemeColor(red: 0, green: 0, blue: 0)
    }

    /// The text style at `path`.
    mutating func typography(_ path: String) -> Typography {
        if case .typography(let style)? = value(path, .typography) { return style }
        return Typography(fontFamilies: [], fontSize: 0, lineHeight: 0, fontWeight: 400, letterSpacing: 0)
    }

    private mutating func value(_ path: String, _ type: TokenType) -> TokenValue? {
        guard let value = tokens.value(at: path) else {
            issues.append(ThemeIssue(path: path, code: .missingToken, message: "the theme needs a \(type.rawValue) token here"))
            return nil
        }
        guard value.type == type else {
            issues.append(ThemeIssue(path: path, code: .typeMismatch, message: "the theme needs a \(type.rawValue) here, got a \(value.type.rawValue)"))
            return nil
        }
        return value
    }
}
