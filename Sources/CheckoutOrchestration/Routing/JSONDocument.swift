import CheckoutCore
import Foundation

/// Reads a bounded JSON document into `JSONValue` for the validators, and the helpers they share to
/// walk it while collecting issues with their paths.
enum JSONDocument {
    /// The largest routing file or decline table accepted.
    static let maximumBytes = 1 << 20
    /// The deepest nesting accepted (the formats need 5 levels).
    static let maximumDepth = 32

    /// Parses `bytes`, or returns the one issue at `$`.
    static func parse(_ bytes: [UInt8]) -> Result<JSONValue, RoutingFileError> {
        guard bytes.count <= maximumBytes else {
            return .failure(RoutingFileError(issues: [RoutingIssue(path: "$", message: "the file is larger than \(maximumBytes) bytes")]))
        }
        guard depth(of: bytes) <= maximumDepth else {
            return .failure(RoutingFileError(issues: [RoutingIssue(path: "$", message: "the document nests deeper than \(maximumDepth) levels")]))
        }
        do {
            return .success(try JSONDecoder().decode(JSONValue.self, from: Data(bytes)))
        } catch {
            return .failure(RoutingFileError(issues: [RoutingIssue(path: "$", message: "not valid JSON")]))
        }
    }

    /// The deepest bracket nesting outside strings (an upper bound checked before decoding, so a
    /// hostile file cannot exhaust the stack of a recursive decoder).
    private static func depth(of bytes: [UInt8]) -> Int {
        var depth = 0, deepest = 0, inString = false, escaped = false
        for byte in bytes {
            if inString {
                if escaped { escaped = false } else if byte == 0x5C { escaped = true } else if byte == 0x22 { inString = false }
                continue
            }
            switch byte {
            case 0x22: inString = true
            case 0x5B, 0x7B: depth += 1; deepest = max(deepest, depth)
            case 0x5D, 0x7D: depth -= 1
            default: break
            }
        }
        return deepest
    }

    /// The JSON type name of a value, for messages.
    static func typeName(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// `path` followed by an object member.
    static func member(_ path: String, _ key: String) -> String {
        let plain = !key.isEmpty && key.utf8.allSatisfy { ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 95 }
        return plain ? "\(path).\(key)" : "\(path)[\(quoted(key))]"
    }

    /// A key or value quoted for a message, masked when it could be card data.
    static func quoted(_ text: String) -> String {
        let safe = text.count <= 64 ? text : String(text.prefix(61)) + "..."
        let escaped = safe.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return "\"\(PaymentDataRedactor.redact(escaped))\""
    }
}

/// Collects issues while a validator walks a document.
struct IssueCollector {
    private(set) var issues: [RoutingIssue] = []

    mutating func add(_ path: String, _ message: String) {
        issues.append(RoutingIssue(path: path, message: message))
    }

    /// The object at `path`, or an issue.
    mutating func object(_ value: JSONValue, _ path: String) -> [String: JSONValue]? {
        guard case .object(let members) = value else {
            add(path, "must be an object, found \(JSONDocument.typeName(value))")
            return nil
        }
        return members
    }

    /// Reports members not in `allowed`.
    mutating func rejectUnknown(_ members: [String: JSONValue], _ path: String, allowed: [String]) {
        for key in members.keys.sorted() where !allowed.contains(key) {
            add(JSONDocument.member(path, key), "unknown member; expected one of \(allowed.joined(separator: ", "))")
        }
    }

    /// A required or optional string member.
    mutating func string(_ members: [String: JSONValue], _ key: String, _ path: String, required: Bool) -> String? {
        guard let value = members[key] else {
            if required { add(JSONDocument.member(path, key), "is required") }
            return nil
        }
        guard case .string(let text) = value, !text.isEmpty else {
            add(JSONDocument.member(path, key), "must be a non-empty string, found \(JSONDocument.typeName(value))")
            return nil
        }
        return text
    }

    /// A list of non-empty strings at `path`.
    mutating func strings(_ value: JSONValue, _ path: String) -> [String]? {
        guard case .array(let elements) = value else {
            add(path, "must be an array of strings, found \(JSONDocument.typeName(value))")
            return nil
        }
        var result: [String] = []
        var ok = true
        for (index, element) in elements.enumerated() {
            guard case .string(let text) = element, !text.isEmpty else {
                add("\(path)[\(index)]", "must be a non-empty string, found \(JSONDocument.typeName(element))")
                ok = false
                continue
            }
            result.append(text)
        }
        return ok ? result : nil
    }

    /// An integer at `path` within `range`.
    mutating func integer(_ value: JSONValue, _ path: String, range: ClosedRange<Int>) -> Int? {
        guard let number = value.intValue, range.contains(number) else {
            add(path, "must be an integer in \(range.lowerBound)...\(range.upperBound)")
            return nil
        }
        return number
    }

    /// A number at `path` within `range`.
    mutating func number(_ value: JSONValue, _ path: String, range: ClosedRange<Double>) -> Double? {
        guard let number = value.doubleValue, number.isFinite, range.contains(number) else {
            add(path, "must be a number in \(range.lowerBound)...\(range.upperBound)")
            return nil
        }
        return number
    }
}
