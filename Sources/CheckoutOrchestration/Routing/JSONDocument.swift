import CheckoutCore
import Foundation

/// Reads a bounded JSON document into `JSONValue` for the validators, and the helpers they share to
/// walk it while collecting issues with their paths.
enum JSONDocument {
    /// The largest routing file or decline table accepted.
    static let maximumBytes = 1 << 20
    /// The deepest nesting accepted (the formats need 5 levels).
    static let maximumDepth = 32

    /// Parses `bytes` with the one JSON reader (`CheckoutJSON`, strict and bounded), or returns
    /// the one issue at `$` (with the line and column of a syntax error, never a value).
    static func parse(_ bytes: [UInt8]) -> Result<JSONValue, RoutingFileError> {
        do {
            return .success(try JSONReader.read(bytes, limits: JSONLimits(maximumDepth: maximumDepth, maximumBytes: maximumBytes)))
        } catch {
            let message = switch error.kind {
            case .tooLarge: "the file is larger than \(maximumBytes) bytes"
            case .tooDeep: "the document nests deeper than \(maximumDepth) levels"
            default: "not valid JSON (\(error.description))"
            }
            return .failure(RoutingFileError(issues: [RoutingIssue(path: "$", message: message)]))
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
    mutating func object(_ value: JSONValue, _ path: String) -> JSONObject? {
        guard case .object(let members) = value else {
            add(path, "must be an object, found \(value.kindName)")
            return nil
        }
        return members
    }

    /// Reports members not in `allowed`.
    mutating func rejectUnknown(_ members: JSONObject, _ path: String, allowed: [String]) {
        for key in members.keys.sorted() where !allowed.contains(key) {
            add(JSONDocument.member(path, key), "unknown member; expected one of \(allowed.joined(separator: ", "))")
        }
    }

    /// A required or optional string member.
    mutating func string(_ members: JSONObject, _ key: String, _ path: String, required: Bool) -> String? {
        guard let value = members[key] else {
            if required { add(JSONDocument.member(path, key), "is required") }
            return nil
        }
        guard case .string(let text) = value, !text.isEmpty else {
            add(JSONDocument.member(path, key), "must be a non-empty string, found \(value.kindName)")
            return nil
        }
        return text
    }

    /// A list of non-empty strings at `path`.
    mutating func strings(_ value: JSONValue, _ path: String) -> [String]? {
        guard case .array(let elements) = value else {
            add(path, "must be an array of strings, found \(value.kindName)")
            return nil
        }
        var result: [String] = []
        var ok = true
        for (index, element) in elements.enumerated() {
            guard case .string(let text) = element, !text.isEmpty else {
                add("\(path)[\(index)]", "must be a non-empty string, found \(element.kindName)")
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
