/// A JSON value, used for per-method options that only the owning plugin interprets.
///
/// Keeping options untyped in the core is what lets a new payment-method module define its own
/// settings in `Config/checkout.json` without any change to `CheckoutCore`.
public enum JSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

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
            self = .object(value)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The member `key` of an object, or nil.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

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
    /// The object payload, or nil.
    public var objectValue: [String: JSONValue]? { if case .object(let value) = self { return value }; return nil }
}
