/// A JSON value: the one tree type of the package (theme files, configuration options, routing
/// files, request bodies that need a look at every value).
///
/// Objects keep their members in document order (`JSONObject`), so reports that walk a file are
/// deterministic; numbers are `Double`s, as RFC 8259 suggests for interoperability.
public enum JSONValue: Sendable, Hashable {
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
    /// An object; members keep their document order.
    case object(JSONObject)

    /// The member `key` of an object, or nil.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The members when this is an object, else nil.
    public var object: JSONObject? { if case .object(let value) = self { return value }; return nil }
    /// The string payload, or nil.
    public var stringValue: String? { if case .string(let value) = self { return value }; return nil }
    /// The boolean payload, or nil.
    public var boolValue: Bool? { if case .bool(let value) = self { return value }; return nil }
    /// The number payload when it is an integer, or nil.
    public var intValue: Int? {
        if case .number(let value) = self, value.rounded() == value, abs(value) < 9.0e15 { return Int(value) }
        return nil
    }
    /// The number payload, or nil.
    public var doubleValue: Double? { if case .number(let value) = self { return value }; return nil }
    /// The array payload, or nil.
    public var arrayValue: [JSONValue]? { if case .array(let value) = self { return value }; return nil }
    /// The object payload as a dictionary, or nil.
    public var objectValue: [String: JSONValue]? { if case .object(let value) = self { return value.dictionary }; return nil }

    /// A short name of the JSON kind, for error messages (`a string`, `an object`).
    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

extension JSONValue: Codable {
    /// Decodes any JSON value (through `Codable`, for types that embed free-form options).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(JSONObject(value))
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
        }
    }

    /// Encodes the value as it is.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value.dictionary)
        }
    }
}
