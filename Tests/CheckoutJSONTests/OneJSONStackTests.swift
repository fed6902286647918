import Foundation
import Testing

/// Every JSON byte of the product goes through CheckoutJSON: no line of code in `Sources/` or
/// `Plugins/` names Foundation's `JSONDecoder`, `JSONEncoder` or `JSONSerialization` (comments may).
/// Tests may, as the oracle `CodableBridgeTests` holds the stack against.
@Suite struct OneJSONStackTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
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
        var scanned = 0
        var found: [String] = []
        for folder in ["Sources", "Plugins"] {
            let base = Self.packageRoot.appendingPathComponent(folder)
            let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil)
            while let url = walker?.nextObject() as? URL {
                guard url.pathExtension == "swift" else { continue }
                scanned += 1
                let text = try String(contentsOf: url, encoding: .utf8)
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    for name in Self.uses(in: String(line)) {
                        found.append("\(url.path.dropFirst(Self.packageRoot.path.count + 1)):\(number + 1): \(name)")
                    }
                }
            }
        }
        #expect(scanned > 300, "scanned \(scanned) files")
        #expect(found.isEmpty, "Foundation JSON coders in product code (use JSONReader.decode / JSONWriter): \(found)")
    }
}
