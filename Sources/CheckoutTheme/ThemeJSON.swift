import CheckoutJSON
import Foundation

/// How token files are read: the package's one JSON reader (`CheckoutJSON`), with the theme's
/// nesting limit, and a UTF-8 byte-order mark tolerated (RFC 8259 §8.1 lets a parser ignore it;
/// editors on some systems write one).
enum ThemeJSON {
    /// Deepest array/object nesting accepted; token files are a few levels deep.
    static let maximumDepth = 64
    static let limits = JSONLimits(maximumDepth: maximumDepth)

    /// Parses a token file.
    static func parse(_ data: Data) throws(JSONError) -> JSONValue {
        var bytes = [UInt8](data)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        return try JSONReader.read(bytes, limits: limits)
    }

    /// The value of an ASCII hex digit, or nil.
    static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension JSONValue {
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
