import CheckoutJSON
/// Every resolved token of a theme, by path: the untyped view of a resolution.
///
/// Holds any token set (including a merchant's own extra tokens); `ResolvedTheme` adds typed access on top.
public struct ResolvedTokens: Sendable, Hashable {
    /// Tokens by dotted path.
    public let byPath: [String: ResolvedToken]

    /// Creates the set from resolved tokens.
    public init(_ tokens: [ResolvedToken]) {
        var byPath: [String: ResolvedToken] = [:]
        for token in tokens { byPath[token.path] = token }
        self.byPath = byPath
    }

    /// All paths, sorted.
    public var paths: [String] { byPath.keys.sorted() }

    /// Number of tokens.
    public var count: Int { byPath.count }

    /// The token at `path`, or nil.
    public func token(at path: String) -> ResolvedToken? { byPath[path] }

    /// The value at `path`, or nil: e.g. `value(at: "space.medium")` is `.dimension(12)`.
    public func value(at path: String) -> TokenValue? { byPath[path]?.value }

    /// A flat JSON-compatible object from path to value, as `checkout theme --json` prints it.
    ///
    /// Dimensions are points, durations milliseconds, numbers and font weights numbers, colours
    /// `#rrggbb`/`#rrggbbaa`, font families a string (one) or an array (several). A typography token is
    /// flattened into five entries `PATH.fontFamily`, `PATH.fontSize`, `PATH.lineHeight`, `PATH.fontWeight`,
    /// `PATH.letterSpacing` so every value stays a scalar (no token can live below a token, so keys never clash).
    public func flatJSONObject() -> [String: any Sendable] {
        var result: [String: any Sendable] = [:]
        func family(_ names: [String]) -> any Sendable {
            if names.count == 1 { return names[0] }
            return names
        }
        for (path, token) in byPath {
            switch token.value {
            case .dimension(let value), .number(let value), .fontWeight(let value), .duration(let value):
                result[path] = value
            case .color(let color):
                result[path] = color.hex
            case .fontFamily(let names):
                result[path] = family(names)
            case .typography(let style):
                result[path + ".fontFamily"] = family(style.fontFamilies)
                result[path + ".fontSize"] = style.fontSize
                result[path + ".lineHeight"] = style.lineHeight
                result[path + ".fontWeight"] = style.fontWeight
                result[path + ".letterSpacing"] = style.letterSpacing
            }
        }
        return result
    }
}
