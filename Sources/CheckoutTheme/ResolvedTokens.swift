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

    /// Every token as one path -> scalar entry, as `checkout theme --json` prints it (a
    /// `[String: FlatTokenValue]` encodes to that JSON object).
    ///
    /// Dimensions are points, durations milliseconds, numbers and font weights numbers, colours
    /// `#rrggbb`/`#rrggbbaa`, font families a string (one) or an array (several). A typography token is
    /// flattened into five entries `PATH.fontFamily`, `PATH.fontSize`, `PATH.lineHeight`, `PATH.fontWeight`,
    /// `PATH.letterSpacing` so every value stays a scalar (no token can live below a token, so keys never clash).
    public func flattened() -> [String: FlatTokenValue] {
        var result: [String: FlatTokenValue] = [:]
        func family(_ names: [String]) -> FlatTokenValue {
            names.count == 1 ? .string(names[0]) : .strings(names)
        }
        for (path, token) in byPath {
            switch token.value {
            case .dimension(let value), .number(let value), .fontWeight(let value), .duration(let value):
                result[path] = .number(value)
            case .color(let color):
                result[path] = .string(color.hex)
            case .fontFamily(let names):
                result[path] = family(names)
            case .typography(let style):
                result[path + ".fontFamily"] = family(style.fontFamilies)
                result[path + ".fontSize"] = .number(style.fontSize)
                result[path + ".lineHeight"] = .number(style.lineHeight)
                result[path + ".fontWeight"] = .number(style.fontWeight)
                result[path + ".letterSpacing"] = .number(style.letterSpacing)
            }
        }
        return result
    }
}
