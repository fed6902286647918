/// The one JSON writer of the package: compact UTF-8, keys in byte order when asked, and the
/// exact bytes Foundation's `JSONEncoder` writes for the same values (slashes escaped unless
/// `withoutEscapingSlashes`, control characters as `\b \t \n \f \r` or `\u00xx`, numbers in
/// their shortest round-tripping form with no `.0`). Byte-for-byte agreement matters where bytes
/// are signed, hashed or compared with bytes an earlier version stored.
///
/// ```swift
/// let bytes = JSONWriter.write(.object(["id": .string("pm_1")]))          // {"id":"pm_1"}
/// let body = try JSONWriter.encode(payment)                               // any Encodable, sorted keys
/// ```
public enum JSONWriter {
    /// How the bytes are written.
    public struct Options: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// Object members sorted by key (Unicode scalar order, which is UTF-8 byte order), so the
        /// same value always gives the same bytes; without it, members keep their order.
        public static let sortedKeys = Options(rawValue: 1 << 0)
        /// `/` written as itself instead of `\/`.
        public static let withoutEscapingSlashes = Options(rawValue: 1 << 1)
    }

    /// `value` as JSON text (object members in document order unless `sortedKeys`).
    public static func write(_ value: JSONValue, options: Options = [.sortedKeys]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(64)
        append(value, to: &output, options: options)
        return output
    }

    /// `write(_:options:)` as a `String`.
    public static func string(_ value: JSONValue, options: Options = [.sortedKeys]) -> String {
        String(decoding: write(value, options: options), as: UTF8.self)
    }

    /// Appends the text of `value`. A number that is not finite is written as `null` (a
    /// `JSONValue` from the reader never holds one).
    public static func append(_ value: JSONValue, to output: inout [UInt8], options: Options = [.sortedKeys]) {
        switch value {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let flag): output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .number(let number):
            if let text = numberText(number) { output.append(contentsOf: text.utf8) } else { output.append(contentsOf: "null".utf8) }
        case .string(let text): appendString(text, to: &output, options: options)
        case .array(let items):
            appendArray(items, to: &output) { item, output in append(item, to: &output, options: options) }
        case .object(let object):
            appendObject(object.members, to: &output, options: options) { value, output in append(value, to: &output, options: options) }
        }
    }

    /// Writes `[a,b,...]`, each element by `element`: the array form of every tree the writer takes.
    static func appendArray<C: Collection>(_ items: C, to output: inout [UInt8],
                                           _ element: (C.Element, inout [UInt8]) -> Void) {
        output.append(0x5B)
        for (position, item) in items.enumerated() {
            if position > 0 { output.append(0x2C) }
            element(item, &output)
        }
        output.append(0x5D)
    }

    /// Writes `{"k":v,...}` (members sorted by key with `sortedKeys`), each value by `value`.
    static func appendObject<V>(_ members: [(key: String, value: V)], to output: inout [UInt8], options: Options,
                                _ value: (V, inout [UInt8]) -> Void) {
        output.append(0x7B)
        let ordered = options.contains(.sortedKeys) ? members.sorted { $0.key < $1.key } : members
        for (position, member) in ordered.enumerated() {
            if position > 0 { output.append(0x2C) }
            appendString(member.key, to: &output, options: options)
            output.append(0x3A)
            value(member.value, &output)
        }
        output.append(0x7D)
    }

    /// The shortest text that reads back as `number` (`1`, `0.1`, `1e-07`, `1e+16`), or nil when
    /// it is not finite.
    public static func numberText(_ number: Double) -> String? {
        guard number.isFinite else { return nil }
        return trimmed(number.description)
    }

    static func numberText(_ number: Float) -> String? {
        guard number.isFinite else { return nil }
        return trimmed(number.description)
    }

    private static func trimmed(_ text: String) -> String {
        text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }

    /// Appends `text` as a JSON string literal.
    public static func appendString(_ text: String, to output: inout [UInt8], options: Options = []) {
        output.append(0x22)
        let escapeSlashes = !options.contains(.withoutEscapingSlashes)
        for byte in text.utf8 {
            switch byte {
            case 0x22: output.append(0x5C); output.append(0x22)
            case 0x5C: output.append(0x5C); output.append(0x5C)
            case 0x2F where escapeSlashes: output.append(0x5C); output.append(0x2F)
            case 0x08: output.append(0x5C); output.append(0x62)
            case 0x09: output.append(0x5C); output.append(0x74)
            case 0x0A: output.append(0x5C); output.append(0x6E)
            case 0x0C: output.append(0x5C); output.append(0x66)
            case 0x0D: output.append(0x5C); output.append(0x72)
            case 0x00..<0x20:
                output.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hexDigit(byte >> 4), hexDigit(byte & 0x0F)])
            default: output.append(byte)
            }
        }
        output.append(0x22)
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 { value < 10 ? 0x30 + value : 0x61 + value - 10 }
}
