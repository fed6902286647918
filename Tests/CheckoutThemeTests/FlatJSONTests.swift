import CheckoutTheme
import Foundation
import Testing

/// The flat path -> value form `checkout theme --json` prints, and the layout JSON form.
@Suite struct FlatJSONTests {
    @Test func defaultThemeFlattensWithPointsHexAndTypographyFields() throws {
        let flat = try TestSupport.theme(.dark).tokens.flatJSONObject()
        #expect(flat["space.medium"] as? Double == 12)
        #expect(flat["color.text.primary"] as? String == "#efefef")
        #expect(flat["typography.bodyMedium.fontFamily"] as? String == "Inter")
        #expect(flat["typography.bodyMedium.fontSize"] as? Double == 14)
        #expect(flat["typography.titleXlarge.letterSpacing"] as? Double == -0.6)
        #expect(flat["typography.titleXlarge.lineHeight"] as? Double == 32)
        #expect(flat["typography.titleXlarge.fontWeight"] as? Double == 550)
        #expect(flat["typography.bodyMedium"] == nil)
        #expect(JSONSerialization.isValidJSONObject(flat))
    }

    @Test func alphaFamiliesAndDurationsFlatten() throws {
        let tokens = try TestSupport.tokens(##"""
            { "veil": { "$type": "color", "$value": { "colorSpace": "srgb", "components": [0, 0, 0], "alpha": 0.5 } },
              "stack": { "$type": "fontFamily", "$value": ["Inter", "system-ui"] },
              "fade": { "$type": "duration", "$value": { "value": 0.25, "unit": "s" } } }
            """##)
        let flat = tokens.flatJSONObject()
        #expect(flat["veil"] as? String == "#00000080")
        #expect(flat["stack"] as? [String] == ["Inter", "system-ui"])
        #expect(flat["fade"] as? Double == 250)
    }

    @Test func layoutJSONHasTheDocumentedShape() throws {
        let result = LayoutEngine(theme: try TestSupport.theme()).layout(PaymentMethodListModel(methodCount: 1), width: 200)
        let data = try JSONSerialization.data(withJSONObject: result.jsonObject, options: [.sortedKeys])
        #expect(String(decoding: data, as: UTF8.self) == """
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
