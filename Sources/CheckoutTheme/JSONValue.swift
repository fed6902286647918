import Foundation

/// A parsed JSON value that keeps object keys in document order.
///
/// The token reader parses JSON itself (see `JSONParser`) so that malformed input and excessive
/// nesting become typed `ThemeIssue`s instead of crashes, and so numbers and booleans never blur.
public enum JSONValue: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// Any JSON number.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object; members keep their document order, a repeated key keeps its last value.
    case object(JSONObject)

    /// The members when this is an object, else nil.
    public var object: JSONObject? {
        if case .object(let object) = self { return object }
        return nil
    }

    /// A short name of the JSON kind, for error messages.
    var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// Converts to a JSON-compatible Foundation value (for `$extensions` pass-through and CLI output).
    public var foundationValue: Any {
        switch self {
        case .null: return NSNull()
        case .bool(let value): return value
        case .number(let value): return value
        case .string(let value): return value
        case .array(let values): return values.map(\.foundationValue)
        case .object(let object):
            var result: [String: Any] = [:]
            for (key, value) in object.members { result[key] = value.foundationValue }
            return result
        }
    }
}
