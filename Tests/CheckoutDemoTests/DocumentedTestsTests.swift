import Foundation
import Testing

/// The README and the guides name the tests behind their claims about testing: every name they
/// give exists, and every row of the table of what the tests try names one.
@Suite struct DocumentedTestsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The README and every article of the DocC catalog.
    static func documents() throws -> [(name: String, text: String)] {
        let catalog = root.appendingPathComponent("Sources/CheckoutKit/CheckoutKit.docc")
        let articles = try FileManager.default.contentsOfDirectory(atPath: catalog.path).filter { $0.hasSuffix(".md") }.sorted()
        return try [("README.md", String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8))]
            + articles.map { ($0, try String(contentsOf: catalog.appendingPathComponent($0), encoding: .utf8)) }
    }

    /// Every test target (a folder of Tests/), test file, and type, extension, function and static property name
    /// declared in the sources under Tests/.
    static func declaredTestNames() throws -> Set<String> {
        let tests = root.appendingPathComponent("Tests")
        var names = Set(try FileManager.default.contentsOfDirectory(atPath: tests.path))
        let pattern = try NSRegularExpression(pattern: #"\b(?:struct|class|enum|actor|extension|func|static let|static var)\s+([A-Za-z_][A-Za-z0-9_.]*)"#)
        let files = FileManager.default.enumerator(atPath: tests.path)?.compactMap { $0 as? String } ?? []
        for file in files where file.hasSuffix(".swift") {
            let text = try String(contentsOf: tests.appendingPathComponent(file), encoding: .utf8)
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                guard let range = Range(match.range(at: 1), in: text) else { continue }
                for component in text[range].split(separator: ".") { names.insert(String(component)) }
            }
            names.insert((file as NSString).lastPathComponent)
        }
        return names
    }

    /// The code spans of `text` (`` `name` ``).
    static func codeSpans(_ text: String) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    /// True when `span` names a test: a declared test type or function (dotted paths: each part),
    /// a test file, or a script of the repository.
    static func namesATest(_ span: String, declared: Set<String>) -> Bool {
        if span.hasPrefix("scripts/") { return FileManager.default.fileExists(atPath: root.appendingPathComponent(span).path) }
        let parts = span.split(separator: ".").map(String.init)
        if span.hasSuffix(".swift") { return declared.contains(span) }
        return !parts.isEmpty && parts.allSatisfy { declared.contains($0) }
    }

    @Test("every test the README and the guides name exists under Tests/")
    func namedTestsExist() throws {
        let declared = try Self.declaredTestNames()
        var checked = 0
        for document in try Self.documents() {
            for span in Self.codeSpans(document.text) where span.range(of: #"^[A-Z][A-Za-z0-9]*Tests(\.[A-Za-z0-9]+)*$|^[A-Za-z0-9]+Tests\.swift$"#, options: .regularExpression) != nil {
                checked += 1
                let exists = Self.namesATest(span, declared: declared)
                #expect(exists, "\(document.name) names `\(span)`, which is not under Tests/")
            }
        }
        #expect(checked >= 10, "only \(checked) test names found in the docs")
    }

    @Test("every row of the table of what the tests try names the test behind it")
    func everyClaimNamesItsTest() throws {
        let declared = try Self.declaredTestNames()
        let article = try #require(try Self.documents().first { $0.name == "WhatTheTestsTry.md" })
        let rows = article.text.split(separator: "\n").filter { $0.hasPrefix("| ") && !$0.hasPrefix("| what ") }
        #expect(rows.count >= 14)
        for row in rows {
            let named = Self.codeSpans(String(row)).filter { span in
                (span.first?.isUppercase ?? false || span.hasPrefix("scripts/")) && Self.namesATest(span, declared: declared)
            }
            let namesOne = !named.isEmpty
            #expect(namesOne, "a claim without its test: \(row.prefix(120))")
        }
    }
}
