@testable import CheckoutCLI
import CheckoutCore
import Testing

/// The parser derived from a `CommandSpec`, and the errors it gives, in-process.
@Suite struct DeclaredParsingTests {
    static let spec = CommandSpec(
        name: "tool", summary: "s", usage: "USAGE: checkout tool", about: "a",
        options: [
            .flag("--json", help: "j"),
            .valued("--merchant", "M", help: "m").isRequired(),
            OptionSpec.valued("--tag", "T", help: "t").isRepeatable(),
            .valued("--limit", "N", help: "n"),
        ])

    @Test func readsFlagsValuesRepeatedValuesAndPositionals() throws {
        var parsed = try ParsedCommandLine(["list", "--tag", "a", "--merchant=m1", "--json", "--tag=b", "extra"], spec: Self.spec)
        #expect(parsed.flag("--json"))
        #expect(parsed.value("--merchant") == "m1")
        #expect(parsed.values("--tag") == ["a", "b"])
        #expect(parsed.value("--limit") == nil)
        #expect(try parsed.integer("--limit", default: 7, range: 1...9) == 7)
        #expect(parsed.positional() == "list")
        #expect(parsed.positional() == "extra")
        #expect(parsed.positional() == nil)
        try parsed.finish()
    }

    struct ErrorCase: Sendable, CustomStringConvertible {
        let words: [String]
        let message: String
        var description: String { words.joined(separator: " ") }
    }

    static let errorCases: [ErrorCase] = [
        ErrorCase(words: ["--json"], message: "missing required option --merchant"),
        ErrorCase(words: ["--merchant"], message: "--merchant needs a value"),
        ErrorCase(words: ["--merchant", "--json"], message: "--merchant needs a value"),
        ErrorCase(words: ["--merchant", "a", "--merchant=b"], message: "--merchant may be given only once"),
        ErrorCase(words: ["--merchant", "a", "--limit", "x"], message: "--limit must be an integer in 1...9, got 'x'"),
        ErrorCase(words: ["--merchant", "a", "--merchnt", "b"], message: "unexpected argument '--merchnt'; did you mean '--merchant'?"),
        ErrorCase(words: ["--merchant", "a", "--jsn"], message: "unexpected argument '--jsn'; did you mean '--json'?"),
        ErrorCase(words: ["--merchant", "a", "--tga=4242424242424242"],
                  message: "unexpected argument '--tga=…' (its value not shown because it may contain card data); did you mean '--tag'?"),
        ErrorCase(words: ["--merchant", "a", "--verbose"], message: "unexpected argument '--verbose'"),
        ErrorCase(words: ["--merchant", "a", "--json", "--json"], message: "unexpected argument '--json'"),
        ErrorCase(words: ["--merchant", "a", "--json=1"], message: "unexpected argument '--json=…'"),
    ]

    @Test(arguments: errorCases) func wrongCommandLines(_ testCase: ErrorCase) {
        #expect(throws: UsageError.self, "\(testCase)") {
            var parsed = try ParsedCommandLine(testCase.words, spec: Self.spec)
            _ = try parsed.integer("--limit", default: 7, range: 1...9)
            _ = parsed.positional()
            try parsed.finish()
        }
        do {
            var parsed = try ParsedCommandLine(testCase.words, spec: Self.spec)
            _ = try parsed.integer("--limit", default: 7, range: 1...9)
            _ = parsed.positional()
            try parsed.finish()
        } catch let error as UsageError {
            #expect(error.message.hasPrefix(testCase.message), "\(testCase): \(error.message)")
            #expect(testCase.message.contains("did you mean") || !error.message.contains("did you mean"), "\(error.message)")
        } catch {
            Issue.record("\(testCase): \(error)")
        }
    }

    @Test func anOptionGivenToASubcommandThatDoesNotTakeItIsAUsageError() throws {
        let spec = CommandSpec(name: "tool", summary: "s", usage: "u", about: "a",
                               options: [OptionSpec.flag("--cvv", help: "c").only("vaulted"),
                                         OptionSpec.valued("--billing", "B", help: "b").only("card-form", "vaulted")])
        try ParsedCommandLine(["--cvv"], spec: spec).check(subcommand: "vaulted")
        try ParsedCommandLine(["--billing", "x"], spec: spec).check(subcommand: "card-form")
        try ParsedCommandLine([], spec: spec).check(subcommand: "payment-methods")
        #expect(throws: UsageError(message: "--cvv applies only to vaulted")) {
            try ParsedCommandLine(["--cvv"], spec: spec).check(subcommand: "card-form")
        }
        #expect(throws: UsageError(message: "--billing applies only to card-form, vaulted")) {
            try ParsedCommandLine(["--billing=x"], spec: spec).check(subcommand: "payment-methods")
        }
    }

    @Test(arguments: [("kitten", "sitting", 3), ("", "abc", 3), ("abc", "", 3), ("--numbr", "--number", 1), ("same", "same", 0),
                      ("--bogus", "--json", 5)])
    func editDistance(_ a: String, _ b: String, _ distance: Int) {
        #expect(EditDistance.between(a, b) == distance)
        #expect(EditDistance.between(b, a) == distance)
    }

    @Test func theSuggestionIsTheClosestWithinTwoEdits() {
        #expect(EditDistance.suggestion(for: "--cvc", among: ["--cvv", "--name"]) == "--cvv")
        #expect(EditDistance.suggestion(for: "--nmae", among: ["--name", "--number"]) == "--name")
        #expect(EditDistance.suggestion(for: "--bogus", among: ["--json", "--config"]) == nil)
    }
}
