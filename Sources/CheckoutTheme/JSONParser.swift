import Foundation

/// A small, strict JSON parser (RFC 8259) with a nesting limit.
///
/// Written by hand so that any input, however malformed or deeply nested, yields either a value
/// or a `JSONParseError` with a line and column: never a crash and never unbounded recursion.
struct JSONParser {
    /// Deepest array/object nesting accepted; token files are a few levels deep.
    static let maximumDepth = 64

    private let bytes: [UInt8]
    private var position = 0

    private init(bytes: [UInt8]) { self.bytes = bytes }

    /// Parses a complete JSON document.
    static func parse(_ data: Data) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: [UInt8](data))
        // Skip a UTF-8 byte-order mark if present.
        if parser.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.position = 3 }
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.position == parser.bytes.count else {
            throw parser.failure("unexpected content after the JSON value")
        }
        return value
    }

    private mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard position < bytes.count else { throw failure("unexpected end of input, expected a value") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw failure("unexpected character '\(Character(Unicode.Scalar(bytes[position])))'")
        }
    }

    private mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= Self.maximumDepth else {
            throw failure("nesting deeper than \(Self.maximumDepth) levels", tooDeep: true)
        }
        position += 1
        var object = JSONObject()
        skipWhitespace()
        if consume(UInt8(ascii: "}")) { return .object(object) }
        while true {
            skipWhitespace()
            guard position < bytes.count else { throw failure("unexpected end of input inside an object") }
            guard bytes[position] == UInt8(ascii: "\"") else { throw failure("expected a string key") }
            let key = try parseString()
            skipWhitespace()
            guard consume(UInt8(ascii: ":")) else { throw failure("expected ':' after key \"\(key)\"") }
            skipWhitespace()
            object[key] = try parseValue(depth: depth)
            skipWhitespace()
            if consume(UInt8(ascii: ",")) { continue }
            if consume(UInt8(ascii: "}")) { return .object(object) }
            throw failure("expected ',' or '}' in object")
        }
    }

    private mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= Self.maximumDepth else {
            throw failure("nesting deeper than \(Self.maximumDepth) levels", tooDeep: true)
        }
        position += 1
        var values: [JSONValue] = []
        skipWhitespace()
        if consume(UInt8(ascii: "]")) { return .array(values) }
        while true {
            skipWhitespace()
            values.append(try parseValue(depth: depth))
            skipWhitespace()
            if consume(UInt8(ascii: ",")) { continue }
            if consume(UInt8(ascii: "]")) { return .array(values) }
            throw failure("expected ',' or ']' in array")
        }
    }

    private mutating func parseString() throws(JSONParseError) -> String {
        position += 1  // opening quote
        var segmentStart = position
        var raw: [UInt8] = []
        while true {
            guard position < bytes.count else { throw failure("unterminated string") }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                raw.append(contentsOf: bytes[segmentStart..<position])
                position += 1
                break
            }
            if byte < 0x20 { throw failure("control character in string") }
            if byte == UInt8(ascii: "\\") {
                raw.append(contentsOf: bytes[segmentStart..<position])
                position += 1
                guard position < bytes.count else { throw failure("unterminated escape") }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""): raw.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): raw.append(UInt8(ascii: "\\"))
                case UInt8(ascii: "/"): raw.append(UInt8(ascii: "/"))
                case UInt8(ascii: "b"): raw.append(0x08)
                case UInt8(ascii: "f"): raw.append(0x0C)
                case UInt8(ascii: "n"): raw.append(0x0A)
                case UInt8(ascii: "r"): raw.append(0x0D)
                case UInt8(ascii: "t"): raw.append(0x09)
                case UInt8(ascii: "u"):
                    let scalar = try parseUnicodeEscape()
                    raw.append(contentsOf: Array(String(Character(scalar)).utf8))
                default: throw failure("invalid escape '\\\(Character(Unicode.Scalar(escape)))'")
                }
                segmentStart = position
                continue
            }
            position += 1
        }
        guard let text = String(validating: raw, as: UTF8.self) else { throw failure("invalid UTF-8 in string") }
        return text
    }

    private mutating func parseUnicodeEscape() throws(JSONParseError) -> Unicode.Scalar {
        let first = try parseHex4()
        if (0xD800...0xDBFF).contains(first) {
            guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
                  bytes[position + 1] == UInt8(ascii: "u") else {
                throw failure("unpaired surrogate in \\u escape")
            }
            position += 2
            let second = try parseHex4()
            guard (0xDC00...0xDFFF).contains(second) else { throw failure("invalid low surrogate in \\u escape") }
            let value = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
            guard let scalar = Unicode.Scalar(value) else { throw failure("invalid \\u escape") }
            return scalar
        }
        guard let scalar = Unicode.Scalar(first) else { throw failure("unpaired surrogate in \\u escape") }
        return scalar
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw failure("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = Self.hexDigit(bytes[position]) else { throw failure("invalid hex digit in \\u escape") }
            value = value * 16 + UInt32(digit)
            position += 1
        }
        return value
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

    private mutating func parseNumber() throws(JSONParseError) -> Double {
        let start = position
        _ = consume(UInt8(ascii: "-"))
        guard position < bytes.count, isDigit(bytes[position]) else { throw failure("invalid number") }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
        } else {
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        if consume(UInt8(ascii: ".")) {
            guard position < bytes.count, isDigit(bytes[position]) else { throw failure("invalid number: digit expected after '.'") }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard position < bytes.count, isDigit(bytes[position]) else { throw failure("invalid number: exponent digits expected") }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw failure("number out of range: \(text)") }
        return value
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let expected = literal.withUTF8Buffer { Array($0) }
        guard position + expected.count <= bytes.count,
              Array(bytes[position..<(position + expected.count)]) == expected else {
            throw failure("invalid literal, expected '\(literal)'")
        }
        position += expected.count
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    private func failure(_ message: String, tooDeep: Bool = false) -> JSONParseError {
        var line = 1
        var column = 1
        for byte in bytes[0..<min(position, bytes.count)] {
            if byte == 0x0A { line += 1; column = 1 } else { column += 1 }
        }
        return JSONParseError(message: message, line: line, column: column, isTooDeep: tooDeep)
    }
}

/// Why a JSON document could not be parsed, and where.
struct JSONParseError: Error, Sendable {
    /// What was wrong.
    let message: String
    /// 1-based line of the problem.
    let line: Int
    /// 1-based column (in bytes) of the problem.
    let column: Int
    /// True when the document nests deeper than `JSONParser.maximumDepth`.
    let isTooDeep: Bool
}
