import CheckoutJSON
/// Merchant overrides written in Swift instead of JSON: path -> new value, applied as the last layer.
///
/// Example: `var o = ThemeOverrides(); o.set("space.base", .dimension(5)); o.set("palette.brand", .color(hex: "#ff0000"))`.
/// Values may be aliases or arithmetic, exactly like JSON tokens; they resolve after the merge.
public struct ThemeOverrides: Sendable {
    /// A replacement value for one token.
    public enum Value: Sendable, Hashable {
        /// A dimension in points (written as `px`).
        case dimension(Double)
        /// A plain number.
        case number(Double)
        /// A colour.
        case color(ThemeColor)
        /// A font weight, 1...1000.
        case fontWeight(Double)
        /// A font family (or families, in fallback order).
        case fontFamily([String])
        /// A duration in milliseconds.
        case duration(Double)
        /// An alias to another token's path, e.g. `.alias("palette.red.500")`.
        case alias(String)
        /// An arithmetic expression, e.g. `.expression("{space.base} * 3")`; its type comes from the token it replaces.
        case expression(String)

        /// Convenience: a colour from hex; an invalid hex is kept as text and reported at resolution.
        public static func color(hex: String) -> Value {
            ThemeColor(hex: hex).map(Value.color) ?? .rawColor(hex)
        }

        /// A colour string kept verbatim so the resolver reports it if it is not valid hex.
        case rawColor(String)
    }

    /// The overrides in the order they were set (a later `set` of the same path wins).
    public private(set) var entries: [(path: String, value: Value)] = []

    /// No overrides.
    public init() {}

    /// Overrides the token at the dotted `path`.
    public mutating func set(_ path: String, _ value: Value) {
        entries.append((path, value))
    }

    /// A copy with one more override (for building inline).
    public func setting(_ path: String, _ value: Value) -> ThemeOverrides {
        var copy = self
        copy.set(path, value)
        return copy
    }

    /// The overrides as a DTCG tree, plus issues for unusable paths.
    func tree(layer: String) -> (JSONObject, [ThemeIssue]) {
        var root = JSONObject()
        var issues: [ThemeIssue] = []
        for (path, value) in entries {
            let segments = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard !path.isEmpty, !segments.contains(where: \.isEmpty) else {
                issues.append(ThemeIssue(path: path, code: .invalidName, message: "an override path needs non-empty names separated by '.'", layer: layer))
                continue
            }
            guard segments.count <= ThemeJSON.maximumDepth else {
                issues.append(ThemeIssue(path: path, code: .tooDeep, message: "an override path may have at most \(ThemeJSON.maximumDepth) names", layer: layer))
                continue
            }
            root = Self.inserting(token(for: value), at: segments[...], into: root)
        }
        return (root, issues)
    }

    private static func inserting(_ token: JSONObject, at segments: ArraySlice<String>, into object: JSONObject) -> JSONObject {
        var object = object
        guard let first = segments.first else { return object }
        if segments.count == 1 {
            object[first] = .object(token)
        } else {
            let child = object[first]?.object ?? JSONObject()
            object[first] = .object(inserting(token, at: segments.dropFirst(), into: child))
        }
        return object
    }

    private func token(for value: Value) -> JSONObject {
        func dimension(_ points: Double, unit: String = "px") -> JSONValue {
            .object(JSONObject([("value", .number(points)), ("unit", .string(unit))]))
        }
        switch value {
        case .dimension(let points):
            return JSONObject([("$value", dimension(points)), ("$type", .string("dimension"))])
        case .number(let number):
            return JSONObject([("$value", .number(number)), ("$type", .string("number"))])
        case .color(let color):
            return JSONObject([("$value", .string(color.hex)), ("$type", .string("color"))])
        case .rawColor(let text):
            return JSONObject([("$value", .string(text)), ("$type", .string("color"))])
        case .fontWeight(let weight):
            return JSONObject([("$value", .number(weight)), ("$type", .string("fontWeight"))])
        case .fontFamily(let names):
            return JSONObject([("$value", .array(names.map(JSONValue.string))), ("$type", .string("fontFamily"))])
        case .duration(let milliseconds):
            return JSONObject([("$value", dimension(milliseconds, unit: "ms")), ("$type", .string("duration"))])
        case .alias(let path):
            return JSONObject([("$value", .string("{" + path + "}"))])
        case .expression(let text):
            return JSONObject([("$value", .string(text))])
        }
    }
}
