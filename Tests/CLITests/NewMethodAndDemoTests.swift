import Foundation
import Testing

/// `checkout new-method` usage errors (the scaffolding itself is tested in CheckoutScaffoldTests)
/// and `checkout demo` end to end.
@Suite struct NewMethodAndDemoTests {
    static let usageCases: [UsageCase] = [
        UsageCase(words: ["GiftCard"], message: "error: missing required option --type"),
        UsageCase(words: ["--type", "GIFT_CARD"], message: "error: missing NAME"),
        UsageCase(words: ["giftCard", "--type", "GIFT_CARD"], message: "error: "),
        UsageCase(words: ["GiftCard", "--type", "gift card"], message: "error: "),
        UsageCase(words: ["GiftCard", "Extra", "--type", "GIFT_CARD"], message: "error: unexpected argument 'Extra'"),
    ]

    @Test(arguments: usageCases) func newMethodUsageErrorsExit2AndWriteNothing(_ testCase: UsageCase) async throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let package = directory.appendingPathComponent("package", isDirectory: true)
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        let result = try await CLI.run(["new-method"] + testCase.words + ["--package-path", package.path], in: directory)
        #expect(result.status == 2, "\(testCase): \(result)")
        #expect(result.stdout.isEmpty, "\(testCase): \(result)")
        #expect(result.stderr.hasPrefix(testCase.message), "\(testCase): \(result)")
        #expect(result.stderr.contains("Run `checkout new-method --help` for usage."), "\(result)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: package.path).isEmpty, "\(testCase) wrote files")
    }

    @Test("new-method outside a Swift package says what to do, exit 1, and writes nothing")
    func newMethodOutsideAPackage() async throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await CLI.run(["new-method", "GiftCard", "--type", "GIFT_CARD"], in: directory)
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("has no Package.swift: run new-method in the root of the Swift package"), "\(result)")
        #expect(result.stderr.contains("--package-path DIR"), "\(result)")
        #expect(!result.stderr.contains("could not be completed"), "\(result)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test func demoRunsToTheEnd() async throws {
        let result = try await CLI.run(["demo"])
        #expect(result.status == 0, "\(result)")
        #expect(result.lines.last?.hasSuffix("demo complete: every step passed") == true, "\(result)")
        #expect(!result.stdout.contains("\u{1B}["), "NO_COLOR and a non-terminal: no ANSI codes\n\(result)")
    }
}
