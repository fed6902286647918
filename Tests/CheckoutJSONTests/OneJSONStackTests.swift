import CheckoutTestSupport
import Foundation
import Testing

/// Every JSON byte of the product goes through CheckoutJSON: no line of code in `Sources/` or
/// `Plugins/` names Foundation's `JSONDecoder`, `JSONEncoder` or `JSONSerialization` (comments may).
/// Tests may, as the oracle `CodableBridgeTests` holds the stack against.
@Suite struct OneJSONStackTests {
    static let foreign = ["JSONDecoder", "JSONEncoder", "JSONSerialization"]

    /// The foreign coders a line of Swift names outside a comment.
    static func uses(in line: String) -> [String] {
        let code = line.trimmingCharacters(in: .whitespaces)
        if code.hasPrefix("//") { return [] }
        let beforeComment = code.range(of: " //").map { String(code[..<$0.lowerBound]) } ?? code
        return foreign.filter { name in
            beforeComment.range(of: "\\b\(name)\\b", options: .regularExpression) != nil
        }
    }

    @Test func theDetectorSeesCodeAndSkipsComments() {
        #expect(Self.uses(in: "        let decoder = JSONDecoder()") == ["JSONDecoder"])
        #expect(Self.uses(in: "try JSONSerialization.data(withJSONObject: x)") == ["JSONSerialization"])
        #expect(Self.uses(in: "let e = JSONEncoder() // JSONDecoder") == ["JSONEncoder"])
        #expect(Self.uses(in: "    /// as `JSONEncoder` writes it") == [])
        #expect(Self.uses(in: "    // JSONDecoder for anything else") == [])
        #expect(Self.uses(in: "let MyJSONDecoderish = 1") == [])
    }

    @Test func productCodeUsesOnlyTheOneStack() throws {
        let (files, found) = try ProductSourceLines.scan { Self.uses(in: $0) }
        #expect(files > 300, "scanned \(files) files")
        #expect(found.isEmpty, "Foundation JSON coders in product code (use JSONReader.decode / JSONWriter): \(found)")
    }
}
