import CheckoutTheme
import Foundation
import Testing

/// The flat path -> value form `checkout theme --json` prints, and the layout JSON form.
@Suite struct FlatJSONTests {
    @Test func defaultThemeFlattensWithPointsHexAndTypographyFields() throws {
        let flat = try TestSupport.theme(.dark).tokens.flattened()
        #expect(flat["space.medium"] == .number(12))
        #expect(flat["color.text.primary"] == .string("#efefef"))
        #expect(flat["typography.bodyMedium.fontFamily"] == .string("Inter"))
        #expect(flat["typography.bodyMedium.fontSize"] == .number(14))
        #expect(flat["typography.titleXlarge.letterSpacing"] == .number(-0.6))
        #expect(flat["typography.titleXlarge.lineHeight"] == .number(32))
        #expect(flat["typography.titleXlarge.fontWeight"] == .number(550))
        #expect(flat["typography.bodyMedium"] == nil)
    }

    @Test func alphaFamiliesAndDurationsFlatten() throws {
        let tokens = try TestSupport.tokens(##"""
            { "veil": { "$type": "color", "$value": { "colorSpace": "srgb", "components": [0, 0, 0], "alpha": 0.5 } },
              "stack": { "$type": "fontFamily", "$value": ["Inter", "system-ui"] },
              "fade": { "$type": "duration", "$value": { "value": 0.25, "unit": "s" } } }
            """##)
        let flat = tokens.flattened()
        #expect(flat["veil"] == .string("#00000080"))
        #expect(flat["stack"] == .strings(["Inter", "system-ui"]))
        #expect(flat["fade"] == .number(250))
    }

    /// The encoded flat form is the bare values under their paths: numbers without a trailing
    /// `.0`, strings, and arrays of strings, keys sorted.
    @Test func flatValuesEncodeAsBareJSONValues() throws {
        let flat: [String: FlatTokenValue] = ["b": .number(12), "a": .string("#00000080"), "c": .strings(["Inter", "system-ui"]),
                                              "d": .number(-0.6)]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        #expect(String(decoding: try encoder.encode(flat), as: UTF8.self)
                == ##"{"a":"#00000080","b":12,"c":["Inter","system-ui"],"d":-0.6}"##)
    }

    @Test func layoutJSONHasTheDocumentedShape() throws {
        let result = LayoutEngine(theme: try TestSupport.theme()).layout(PaymentMethodListModel(methodCount: 1), width: 200)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        #expect(String(decoding: try encoder.encode(result), as: UTF8.self) == """
            {"frames":[{"height":20,"index":0,"slot":"header","width":200,"x":0,"y":0},\
            {"height":44,"index":0,"slot":"method","width":200,"x":0,"y":32}],"height":76,"width":200}
            """)
    }

    /// Token files are read by the one strict JSON reader: a repeated key is ambiguous (RFC 8259
    /// §4 leaves it undefined), so it is a malformed file naming the line and column, never a
    /// silent pick of one value.
    @Test func repeatedKeysAreAMalformedFile() throws {
        let issues = TestSupport.issues(#"{ "n": { "$type": "number", "$value": 1, "$value": 2 } }"#)
        #expect(issues.map(\.code) == [.malformedJSON])
        #expect(issues.first?.message == "line 1, column 42: duplicate key in an object")
    }
}
