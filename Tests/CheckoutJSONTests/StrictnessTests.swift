import CheckoutJSON
import Testing

/// RFC 8259 strictness of the one reader: each rule refuses what it must, with the right kind,
/// and the valid neighbour of each bad input is accepted (so no rule is a blanket refusal).
@Suite struct StrictnessTests {
    static func kind(_ text: String) -> JSONError.Kind? {
        do {
            _ = try JSONReader.read(text)
            return nil
        } catch {
            return error.kind
        }
    }

    static func kind(_ bytes: [UInt8]) -> JSONError.Kind? {
        do {
            _ = try JSONReader.read(bytes)
            return nil
        } catch {
            return error.kind
        }
    }

    /// (refused input, expected kind, accepted neighbour)
    static let rules: [(String, JSONError.Kind, String)] = [
        ("[1,]", .unexpectedByte, "[1]"),
        (#"{"a":1,}"#, .unexpectedByte, #"{"a":1}"#),
        ("[,1]", .unexpectedByte, "[1]"),
        ("[1 2]", .unexpectedByte, "[1,2]"),
        ("// c\n1", .unexpectedByte, "1"),
        ("/* c */ 1", .unexpectedByte, " 1"),
        ("[1] // c", .trailingContent, "[1] "),
        ("NaN", .invalidNumber, "0"),
        ("[Infinity]", .invalidNumber, "[1e308]"),
        ("-Infinity", .invalidNumber, "-1"),
        ("01", .invalidNumber, "0.1"),
        ("-01", .invalidNumber, "-0"),
        ("00", .invalidNumber, "0"),
        ("1.", .invalidNumber, "1.0"),
        (".5", .unexpectedByte, "0.5"),
        ("+1", .unexpectedByte, "1"),
        ("1e", .invalidNumber, "1e0"),
        ("1e+", .invalidNumber, "1e+5"),
        ("-", .invalidNumber, "-0"),
        ("1e999", .invalidNumber, "1e308"),
        ("0x10", .trailingContent, "16"),
        (#"{"a":1,"a":2}"#, .duplicateKey, #"{"a":1,"b":2}"#),
        (#"{"a":{"b":1,"b":1}}"#, .duplicateKey, #"{"a":{"b":1},"b":1}"#),
        (#"{"\u0061":1,"a":2}"#, .duplicateKey, #"{"\u0061":1,"b":2}"#),
        (#"{'a':1}"#, .unexpectedByte, #"{"a":1}"#),
        ("{a:1}", .unexpectedByte, #"{"a":1}"#),
        (#"{"a" 1}"#, .unexpectedByte, #"{"a": 1}"#),
        (#"{1:1}"#, .unexpectedByte, #"{"1":1}"#),
        ("\"tab\there\"", .invalidString, #""tab\there""#),
        ("\"line\nbreak\"", .invalidString, #""line\nbreak""#),
        (#""\x41""#, .invalidString, #""\u0041""#),
        (#""\u12""#, .invalidString, #""\u1234""#),
        (#""\u12G4""#, .invalidString, #""\u12F4""#),
        (#""\'""#, .invalidString, #""'""#),
        (#""\uD83D""#, .invalidSurrogate, #""\uD83D\uDE00""#),
        (#""\uDE00\uD83D""#, .invalidSurrogate, #""\uD83D\uDE00""#),
        (#""\uD83D\u0041""#, .invalidSurrogate, #""\uD83D\uDE00\u0041""#),
        (#""\uD83Dx""#, .invalidSurrogate, #""\uD83D\uDE00x""#),
        ("tru", .unexpectedEnd, "true"),
        ("truex", .unexpectedByte, "true"),
        ("nul", .unexpectedEnd, "null"),
        ("True", .unexpectedByte, "true"),
        ("", .unexpectedEnd, "0"),
        ("   ", .unexpectedEnd, " 0 "),
        ("[", .unexpectedEnd, "[]"),
        (#"{"a":"#, .unexpectedEnd, #"{"a":0}"#),
        (#""open"#, .unexpectedEnd, #""open""#),
        ("{} {}", .trailingContent, "{}"),
        ("[]]", .trailingContent, "[]"),
        ("\u{0B}1", .unexpectedByte, "\t1"),
        ("\u{A0}1", .unexpectedByte, " 1"),
    ]

    @Test(arguments: rules)
    func refusedWithItsKindAndTheNeighbourIsAccepted(_ bad: String, _ expected: JSONError.Kind, _ good: String) {
        #expect(Self.kind(bad) == expected, "\(bad.debugDescription)")
        #expect(Self.kind(good) == nil, "\(good.debugDescription)")
    }

    /// Bytes that are not UTF-8, in a string and outside one.
    static let invalidUTF8: [[UInt8]] = [[0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0x80], [0xE2, 0x82], [0xF4, 0x90, 0x80, 0x80],
                                         [0xF8, 0x88, 0x80, 0x80, 0x80]]

    @Test(arguments: invalidUTF8)
    func invalidUTF8IsRefused(_ sequence: [UInt8]) {
        #expect(Self.kind([0x22] + sequence + [0x22]) == .invalidString)
        #expect(Self.kind([0x5B] + sequence + [0x5D]) == .unexpectedByte)
        #expect(Self.kind(Array(#"{"k":"a"#.utf8) + sequence + Array(#""}"#.utf8)) == .invalidString)
        // The valid neighbour: é in a string.
        #expect(Self.kind([0x22, 0xC3, 0xA9, 0x22]) == nil)
    }

    @Test func valuesReadAsWritten() throws {
        let value = try JSONReader.read(#" {"s": "a\"b\\c\/d\b\f\n\r\t\u00e9\uD83D\uDE00", "n": [0, -0, 1.5, -2e3, 1E+2, 123456789012345678],"#
                                        + #" "t": true, "f": false, "z": null, "o": {}, "a": []} "#)
        let expected: JSONValue = .object([
            "s": .string("a\"b\\c/d\u{8}\u{C}\n\r\té😀"),
            "n": .array([.number(0), .number(-0.0), .number(1.5), .number(-2000), .number(100), .number(123456789012345680)]),
            "t": .bool(true), "f": .bool(false), "z": .null, "o": .object([:]), "a": .array([]),
        ])
        #expect(value == expected)
        #expect(value.object?.keys == ["s", "n", "t", "f", "z", "o", "a"])
    }

    @Test func everyScalarMayBeTheRoot() throws {
        #expect(try JSONReader.read("1") == .number(1))
        #expect(try JSONReader.read(#""x""#) == .string("x"))
        #expect(try JSONReader.read("null") == .null)
    }
}
