import CheckoutTheme
import Foundation
import Testing

/// Literal values, units, colours, weights, names and malformed input.
@Suite struct ValueParsingTests {
    static let validValues: [(type: String, json: String, expected: TokenValue)] = [
        ("dimension", #"{ "value": 8, "unit": "px" }"#, .dimension(8)),
        ("dimension", #"{ "value": 0.5, "unit": "rem" }"#, .dimension(8)),
        ("dimension", #""12px""#, .dimension(12)),
        ("number", "1.5", .number(1.5)),
        ("color", ##""#abc""##, .color(ThemeColor(red: 170 / 255, green: 187 / 255, blue: 204 / 255))),
        ("color", ##""#2F98FF""##, .color(ThemeColor(red: 47 / 255, green: 152 / 255, blue: 1))),
        ("color", ##""#00000080""##, .color(ThemeColor(red: 0, green: 0, blue: 0, alpha: 128 / 255))),
        ("color", #"{ "colorSpace": "srgb", "components": [1, 0, 0.5], "alpha": 0.25 }"#,
         .color(ThemeColor(red: 1, green: 0, blue: 0.5, alpha: 0.25))),
        ("fontWeight", "550", .fontWeight(550)),
        ("fontWeight", #""semi-bold""#, .fontWeight(600)),
        ("fontFamily", #""Inter""#, .fontFamily(["Inter"])),
        ("duration", #"{ "value": 200, "unit": "ms" }"#, .duration(200)),
        ("duration", #"{ "value": 1.5, "unit": "s" }"#, .duration(1500)),
    ]

    @Test(arguments: validValues)
    func validValue(entry: (type: String, json: String, expected: TokenValue)) throws {
        let tokens = try TestSupport.tokens(#"{ "t": { "$type": "\#(entry.type)", "$value": \#(entry.json) } }"#)
        #expect(tokens.value(at: "t") == entry.expected)
    }

    static let invalidValues: [(type: String, json: String, code: ThemeIssueCode)] = [
        ("dimension", #"{ "value": 8, "unit": "em" }"#, .badUnit),
        ("dimension", #"{ "value": 8, "unit": "pt" }"#, .badUnit),
        ("dimension", #""8em""#, .badUnit),
        ("dimension", "8", .typeMismatch),
        ("dimension", #"{ "value": "8", "unit": "px" }"#, .invalidValue),
        ("dimension", ##""#fff""##, .invalidExpression),
        ("duration", #"{ "value": 1, "unit": "min" }"#, .badUnit),
        ("number", "true", .typeMismatch),
        ("color", ##""#12345""##, .invalidValue),
        ("color", #""red""#, .invalidValue),
        ("color", "12", .typeMismatch),
        ("color", #"{ "colorSpace": "display-p3", "components": [1, 0, 0] }"#, .invalidValue),
        ("color", #"{ "colorSpace": "srgb", "components": [2, 0, 0] }"#, .invalidValue),
        ("fontWeight", "0", .invalidValue),
        ("fontWeight", "1001", .invalidValue),
        ("fontWeight", #""chunky""#, .invalidValue),
        ("fontFamily", "[]", .typeMismatch),
        ("typography", #"{ "fontFamily": "Inter" }"#, .invalidValue),
        ("gradient", #""x""#, .unsupportedType),
    ]

    @Test(arguments: invalidValues)
    func invalidValue(entry: (type: String, json: String, code: ThemeIssueCode)) {
        let issues = TestSupport.issues(#"{ "g": { "t": { "$type": "\#(entry.type)", "$value": \#(entry.json) } } }"#)
        #expect(issues.map(\.code) == [entry.code])
        #expect(issues.map(\.path) == ["g.t"])
    }

    static let invalidNames = ["a.b", "a{b", "b}", ""]

    @Test(arguments: invalidNames)
    func invalidName(name: String) {
        let issues = TestSupport.issues(#"{ "group": { "\#(name)": { "$type": "number", "$value": 1 } } }"#)
        #expect(issues.map(\.code) == [.invalidName])
        #expect(issues.map(\.path) == ["group.\(name)"])
    }

    @Test func dollarKeysAreReservedPropertiesNotTokens() throws {
        let tokens = try TestSupport.tokens(#"{ "$schema": "x", "g": { "$secret": { "$value": 1 }, "n": { "$type": "number", "$value": 2 } } }"#)
        #expect(tokens.paths == ["g.n"])
    }

    static let malformed = [
        "", "{", #"{ "a": }"#, #"{ "a": 1, }"#, "[1 2]", #"{ "a": "unterminated }"#, "nul", #"{ "a": 01 }"#,
        "{} trailing", #"{ "a": "\x" }"#,
    ]

    @Test(arguments: malformed)
    func malformedJSONIsATypedError(json: String) {
        let issues = TestSupport.issues(json)
        #expect(issues.map(\.code) == [.malformedJSON])
        #expect(issues.first?.layer == "test")
        #expect(issues.first?.message.hasPrefix("line ") == true)
    }

    @Test func everyMalformedLayerIsReported() {
        do {
            _ = try ThemeResolver.resolveTokens(layers: [Data("{".utf8), Data("[".utf8), Data("{}".utf8)])
            Issue.record("expected failure")
        } catch {
            #expect(error.issues.map(\.layer) == ["layer 1", "layer 2"])
        }
    }

    @Test func deepNestingIsAnErrorNotACrash() {
        let depth = 100_000
        let json = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        let issues = TestSupport.issues(json)
        #expect(issues.map(\.code) == [.tooDeep])
        let groups = String(repeating: #"{"g":"#, count: 70) + "1" + String(repeating: "}", count: 70)
        #expect(TestSupport.issues(groups).map(\.code) == [.tooDeep])
    }

    @Test func nonTokenLeafIsReported() {
        let issues = TestSupport.issues(#"{ "space": { "$type": "dimension", "base": 5 } }"#)
        #expect(issues.map(\.code) == [.invalidStructure])
        #expect(issues.map(\.path) == ["space.base"])
    }

    @Test func rootMustBeAnObject() {
        #expect(TestSupport.issues("[1]").map(\.code) == [.invalidStructure])
    }

    @Test func unicodeEscapesDecode() throws {
        let tokens = try TestSupport.tokens(#"{ "f": { "$type": "fontFamily", "$value": "Caf\u00e9 \ud83d\ude00" } }"#)
        #expect(tokens.value(at: "f") == .fontFamily(["Café 😀"]))
    }

    @Test(arguments: [("#abc", "#aabbcc"), ("#AABBCC", "#aabbcc"), ("#aabbcc80", "#aabbcc80"), ("#abcf", "#aabbcc")])
    func hexRoundTrip(input: String, expected: String) {
        #expect(ThemeColor(hex: input)?.hex == expected)
    }

    @Test(arguments: ["", "abc", "#", "#ab", "#abcde", "#gggggg", "#aabbccdde"])
    func invalidHex(input: String) {
        #expect(ThemeColor(hex: input) == nil)
    }
}
