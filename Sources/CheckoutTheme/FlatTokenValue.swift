/// One value of `ResolvedTokens.flattened()`: what a token becomes in `checkout theme --json`.
///
/// Encodes as the bare JSON value (a number, a string, or an array of strings), so a
/// `[String: FlatTokenValue]` encodes to the flat path -> value object.
public enum FlatTokenValue: Sendable, Hashable, Encodable {
    /// Points, milliseconds, a font weight or a plain number.
    case number(Double)
    /// A colour (`#rrggbb` / `#rrggbbaa`) or a single font family.
    case string(String)
    /// Several font families, in order of preference.
    case strings([String])

    /// Writes the bare value.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .strings(let value): try container.encode(value)
        }
    }
}
