/// A fully resolved token value: no aliases, no arithmetic, units normalised.
///
/// Dimensions are points (px = pt, rem = 16 px), durations milliseconds, so callers never convert.
public enum TokenValue: Hashable, Sendable {
    /// A length in points.
    case dimension(Double)
    /// A plain number.
    case number(Double)
    /// A colour.
    case color(ThemeColor)
    /// A font weight, 1...1000.
    case fontWeight(Double)
    /// Font families in fallback order.
    case fontFamily([String])
    /// A duration in milliseconds.
    case duration(Double)
    /// A text style.
    case typography(Typography)

    /// The token type this value belongs to.
    public var type: TokenType {
        switch self {
        case .dimension: .dimension
        case .number: .number
        case .color: .color
        case .fontWeight: .fontWeight
        case .fontFamily: .fontFamily
        case .duration: .duration
        case .typography: .typography
        }
    }

    /// Points for a dimension, else nil.
    public var points: Double? {
        if case .dimension(let value) = self { return value }
        return nil
    }

    /// The colour for a colour token, else nil.
    public var color: ThemeColor? {
        if case .color(let value) = self { return value }
        return nil
    }

    /// The text style for a typography token, else nil.
    public var typography: Typography? {
        if case .typography(let value) = self { return value }
        return nil
    }
}
