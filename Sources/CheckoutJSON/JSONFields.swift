/// A well-formed value that does not have the expected shape, named by its path:
/// `paymentMethods[2].type: required key is missing`. Never quotes a value.
public struct JSONShapeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where, as `a.b[2].c` (`<root>` for the document itself).
    public var path: String
    /// What was wrong (`required key is missing`, `expected a string`).
    public var problem: String

    /// An error at `path`.
    public init(path: String, problem: String) {
        self.path = path.isEmpty ? "<root>" : path
        self.problem = problem
    }

    /// `path: problem`.
    public var description: String { "\(path): \(problem)" }
}

/// Typed reading of a `JSONValue` tree with paths in errors: how models decode from the one
/// reader, without Codable. A `null` member counts as absent for optional fields (as
/// `decodeIfPresent` does) and is an error for required ones; unknown keys are ignored.
///
/// ```swift
/// let fields = try JSONFields(value)
/// let id = try fields.required("id", JSONFields.string)
/// let count = try fields.optional("count", JSONFields.int) ?? 0
/// ```
public struct JSONFields: Sendable {
    /// The object read.
    public let object: JSONObject
    /// Its path (empty for the root).
    public let path: String

    /// The fields of `value`, which must be an object.
    public init(_ value: JSONValue, path: String = "") throws(JSONShapeError) {
        guard case .object(let object) = value else { throw Self.mismatch(value, "an object", path) }
        self.object = object
        self.path = path
    }

    /// The path of member `key`.
    public func path(of key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// The member `key` read by `read`; missing or null is an error.
    public func required<T>(_ key: String, _ read: (JSONValue, String) throws(JSONShapeError) -> T) throws(JSONShapeError) -> T {
        guard let value = object[key] else { throw JSONShapeError(path: path(of: key), problem: "required key is missing") }
        return try read(value, path(of: key))
    }

    /// The member `key` read by `read`, or nil when missing or null.
    public func optional<T>(_ key: String, _ read: (JSONValue, String) throws(JSONShapeError) -> T) throws(JSONShapeError) -> T? {
        guard let value = object[key], value != .null else { return nil }
        return try read(value, path(of: key))
    }

    // MARK: Readers (value, path) -> T

    static func mismatch(_ value: JSONValue, _ expected: String, _ path: String) -> JSONShapeError {
        JSONShapeError(path: path, problem: value == .null ? "expected \(expected), found null" : "expected \(expected)")
    }

    /// A string.
    public static func string(_ value: JSONValue, _ path: String) throws(JSONShapeError) -> String {
        guard case .string(let text) = value else { throw mismatch(value, "a string", path) }
        return text
    }

    /// A boolean.
    public static func bool(_ value: JSONValue, _ path: String) throws(JSONShapeError) -> Bool {
        guard case .bool(let flag) = value else { throw mismatch(value, "a boolean", path) }
        return flag
    }

    /// Any number.
    public static func double(_ value: JSONValue, _ path: String) throws(JSONShapeError) -> Double {
        guard case .number(let number) = value else { throw mismatch(value, "a number", path) }
        return number
    }

    /// An integral number within ±2^53 (exact in a `Double`).
    public static func int64(_ value: JSONValue, _ path: String) throws(JSONShapeError) -> Int64 {
        guard case .number(let number) = value, number.rounded() == number, abs(number) <= 9_007_199_254_740_992 else {
            throw mismatch(value, "an integer", path)
        }
        return Int64(number)
    }

    /// `int64` as an `Int`.
    public static func int(_ value: JSONValue, _ path: String) throws(JSONShapeError) -> Int {
        Int(try int64(value, path))
    }

    /// An array, each element read by `element` with its `[index]` path.
    public static func array<T>(_ element: @escaping (JSONValue, String) throws(JSONShapeError) -> T)
        -> (JSONValue, String) throws(JSONShapeError) -> [T] {
        { (value: JSONValue, path: String) throws(JSONShapeError) -> [T] in
            guard case .array(let items) = value else { throw mismatch(value, "an array", path) }
            var result: [T] = []
            result.reserveCapacity(items.count)
            for (index, item) in items.enumerated() { result.append(try element(item, "\(path)[\(index)]")) }
            return result
        }
    }

    /// An object whose every member is read by `member`, as a dictionary.
    public static func dictionary<T>(_ member: @escaping (JSONValue, String) throws(JSONShapeError) -> T)
        -> (JSONValue, String) throws(JSONShapeError) -> [String: T] {
        { (value: JSONValue, path: String) throws(JSONShapeError) -> [String: T] in
            guard case .object(let object) = value else { throw mismatch(value, "an object", path) }
            var result: [String: T] = [:]
            result.reserveCapacity(object.count)
            for (key, item) in object.members { result[key] = try member(item, path.isEmpty ? key : "\(path).\(key)") }
            return result
        }
    }

    /// Any value, as it is.
    public static func any(_ value: JSONValue, _ path: String) throws(JSONShapeError) -> JSONValue { value }
}
