import CheckoutJSON
/// Interprets a literal JSON token value (no alias, no arithmetic) as a value of a given type.
///
/// One place for the DTCG value grammar: dimension and duration objects with their units, colour hex and
/// object forms, weights and families. Failures carry the issue code so the resolver can report them.
enum LiteralParser {
    /// Why a literal is not a valid value of the requested type.
    struct Failure: Error {
        let code: ThemeIssueCode
        let message: String
    }

    /// Named font weights from the DTCG specification.
    static let namedWeights: [String: Double] = [
        "thin": 100, "hairline": 100,
        "extra-light": 200, "ultra-light": 200,
        "light": 300,
        "normal": 400, "regular": 400, "book": 400,
        "medium": 500,
        "semi-bold": 600, "demi-bold": 600,
        "bold": 700,
        "extra-bold": 800, "ultra-bold": 800,
        "black": 900, "heavy": 900,
        "extra-black": 950, "ultra-black": 950,
    ]

    /// Parses `value` as `type`; `typography` is composite and handled by the resolver.
    static func parse(_ value: JSONValue, as type: TokenType) throws(Failure) -> TokenValue {
        switch type {
        case .dimension: return .dimension(try dimension(value))
        case .number: return .number(try number(value))
        case .color: return .color(try color(value))
        case .fontWeight: return .fontWeight(try fontWeight(value))
        case .fontFamily: return .fontFamily(try fontFamily(value))
        case .duration: return .duration(try duration(value))
        case .typography:
            throw Failure(code: .invalidValue, message: "a typography value must be an object with fontFamily, fontSize, lineHeight, fontWeight and letterSpacing")
        }
    }

    /// `{ "value": N, "unit": "px" | "rem" }` in points.
    static func dimension(_ value: JSONValue) throws(Failure) -> Double {
        let (amount, unit) = try measured(value, kind: "dimension", example: #"{"value": 8, "unit": "px"}"#)
        switch unit {
        case "px": return amount
        case "rem": return amount * 16
        default: throw Failure(code: .badUnit, message: "unknown dimension unit '\(unit)'; use px or rem")
        }
    }

    /// `{ "value": N, "unit": "ms" | "s" }` in milliseconds.
    static func duration(_ value: JSONValue) throws(Failure) -> Double {
        let (amount, unit) = try measured(value, kind: "duration", example: #"{"value": 200, "unit": "ms"}"#)
        switch unit {
        case "ms": return amount
        case "s": return amount * 1000
        default: throw Failure(code: .badUnit, message: "unknown duration unit '\(unit)'; use ms or s")
        }
    }

    private static func measured(_ value: JSONValue, kind: String, example: String) throws(Failure) -> (Double, String) {
        guard case .object(let object) = value else {
            throw Failure(code: .typeMismatch, message: "a \(kind) must be an object like \(example), got \(value.kindName)")
        }
        guard case .number(let amount)? = object["value"] else {
            throw Failure(code: .invalidValue, message: "a \(kind) needs a numeric \"value\", e.g. \(example)")
        }
        guard case .string(let unit)? = object["unit"] else {
            throw Failure(code: .invalidValue, message: "a \(kind) needs a string \"unit\", e.g. \(example)")
        }
        return (amount, unit)
    }

    /// A JSON number.
    static func number(_ value: JSONValue) throws(Failure) -> Double {
        guard case .number(let number) = value else {
            throw Failure(code: .typeMismatch, message: "a number token needs a JSON number, got \(value.kindName)")
        }
        return number
    }

    /// Hex string or `{ colorSpace: "srgb", components: [r, g, b], alpha }`.
    static func color(_ value: JSONValue) throws(Failure) -> ThemeColor {
        switch value {
        case .string(let text):
            guard let color = ThemeColor(hex: text) else {
                throw Failure(code: .invalidValue, message: "'\(text)' is not a colour; use #rgb, #rrggbb or #rrggbbaa")
            }
            return color
        case .object(let object):
            guard case .string(let space)? = object["colorSpace"] else {
                throw Failure(code: .invalidValue, message: "a colour object needs \"colorSpace\": \"srgb\"")
            }
            guard space == "srgb" else {
                throw Failure(code: .invalidValue, message: "colour space '\(space)' is not supported; use srgb")
            }
            guard case .array(let components)? = object["components"], components.count == 3 else {
                throw Failure(code: .invalidValue, message: "an srgb colour needs three \"components\" in 0...1")
            }
            var channels: [Double] = []
            for component in components {
                guard case .number(let channel) = component, (0...1).contains(channel) else {
                    throw Failure(code: .invalidValue, message: "colour components must be numbers in 0...1")
                }
                channels.append(channel)
            }
            var alpha = 1.0
            if let alphaValue = object["alpha"] {
                guard case .number(let number) = alphaValue, (0...1).contains(number) else {
                    throw Failure(code: .invalidValue, message: "colour alpha must be a number in 0...1")
                }
                alpha = number
            }
            return ThemeColor(red: channels[0], green: channels[1], blue: channels[2], alpha: alpha)
        default:
            throw Failure(code: .typeMismatch, message: "a colour must be a hex string or an srgb object, got \(value.kindName)")
        }
    }

    /// 1...1000 or a named weight.
    static func fontWeight(_ value: JSONValue) throws(Failure) -> Double {
        switch value {
        case .number(let weight):
            guard (1...1000).contains(weight) else {
                throw Failure(code: .invalidValue, message: "font weight \(weight) is outside 1...1000")
            }
            return weight
        case .string(let name):
            guard let weight = namedWeights[name.lowercased()] else {
                throw Failure(code: .invalidValue, message: "unknown font weight '\(name)'; use 1...1000 or a name such as regular or bold")
            }
            return weight
        default:
            throw Failure(code: .typeMismatch, message: "a font weight must be a number or a name, got \(value.kindName)")
        }
    }

    /// A non-empty name or a non-empty list of non-empty names.
    static func fontFamily(_ value: JSONValue) throws(Failure) -> [String] {
        switch value {
        case .string(let name) where !name.isEmpty:
            return [name]
        case .array(let values) where !values.isEmpty:
            var names: [String] = []
            for value in values {
                guard case .string(let name) = value, !name.isEmpty else {
                    throw Failure(code: .invalidValue, message: "font family lists must contain only non-empty strings")
                }
                names.append(name)
            }
            return names
        default:
            throw Failure(code: .typeMismatch, message: "a font family must be a non-empty string or list of strings, got \(value.kindName)")
        }
    }
}
