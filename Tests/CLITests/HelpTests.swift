import Foundation
import Testing

/// `--help` for the top level and every command: exit 0, the usage on stdout, every option named.
@Suite struct HelpTests {
    /// The help line of every command that reads configuration (`ConfigLocation.helpLine`).
    static let configHelp = "--config-dir DIR    Configuration directory (default: ./Config if present, else the embedded defaults)"

    struct Case: Sendable, CustomStringConvertible {
        let words: [String]
        let usage: String
        let options: [String]
        let readsConfiguration: Bool
        var description: String { words.joined(separator: " ") }
    }

    static let cases: [Case] = [
        Case(words: ["demo"], usage: "USAGE: checkout demo", options: ["--verbose", "--config-dir"],
             readsConfiguration: true),
        Case(words: ["methods"], usage: "USAGE: checkout methods", options: ["--json", "--config FILE", "--config-dir"],
             readsConfiguration: true),
        Case(words: ["card"], usage: "USAGE: checkout card validate",
             options: ["--number", "--expiry", "--cvv", "--name", "--allowed", "--json", "--config-dir", "--help"],
             readsConfiguration: true),
        Case(words: ["pay"], usage: "USAGE: checkout pay --method TYPE",
             options: ["--method", "--number", "--expiry", "--cvv", "--name", "--billing", "--vault", "--amount",
                       "--currency", "--country", "--wallet", "--poll-timeout", "--config-dir", "--json", "--help"],
             readsConfiguration: true),
        Case(words: ["vault"], usage: "USAGE: checkout vault add",
             options: ["--db", "--merchant", "--customer", "--number", "--expiry", "--name", "--default", "--id",
                       "--config-dir", "--json", "--help", "checkout vault list", "checkout vault delete",
                       "checkout vault default", "checkout vault sync"],
             readsConfiguration: true),
        Case(words: ["vault", "sync"], usage: "USAGE: checkout vault sync",
             options: ["--db", "--merchant", "--customer", "--remote", "--api-key", "--json", "--timeout",
                       "--page-size", "--batch-size", "--help"],
             readsConfiguration: false),
        Case(words: ["theme"], usage: "USAGE: checkout theme",
             options: ["--json", "--mode", "--overrides", "--config-dir", "--help"], readsConfiguration: true),
        Case(words: ["layout"], usage: "USAGE: checkout layout payment-methods|vaulted|card-form",
             options: ["--methods", "--empty", "--cvv", "--network-selector", "--billing", "--width", "--mode",
                       "--overrides", "--config-dir", "--json", "--help"],
             readsConfiguration: true),
        Case(words: ["new-method"], usage: "USAGE: checkout new-method NAME --type TYPE",
             options: ["--type", "--package-path", "--json"], readsConfiguration: false),
    ]

    @Test func topLevelHelpListsEveryCommand() async throws {
        for flag in ["--help", "-h"] {
            let result = try await CLI.run([flag])
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout.contains("USAGE: checkout <command> [options]"), "\(result)")
            for command in Self.cases.map(\.words[0]) {
                #expect(result.stdout.contains("\n  \(command) "), "top-level help lacks \(command)\n\(result)")
            }
            #expect(result.stdout.contains("Exit codes: 0 ok, 1 the operation failed"), "\(result)")
            #expect(result.stderr.isEmpty, "\(result)")
        }
    }

    @Test func noCommandPrintsTheHelpOnStderrAndExits2() async throws {
        let result = try await CLI.run([])
        #expect(result.status == 2, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderr.contains("USAGE: checkout <command> [options]"), "\(result)")
    }

    @Test(arguments: cases) func commandHelpNamesEveryOption(_ testCase: Case) async throws {
        for flag in ["--help", "-h"] {
            let result = try await CLI.run(testCase.words + [flag])
            #expect(result.status == 0, "\(result)")
            #expect(result.stderr.isEmpty, "\(result)")
            #expect(result.stdout.hasPrefix(testCase.usage), "\(testCase): \(result)")
            for option in testCase.options {
                #expect(result.stdout.contains(option), "\(testCase) help lacks \(option)\n\(result)")
            }
            #expect(result.stdout.contains(Self.configHelp) == testCase.readsConfiguration,
                    "\(testCase) help and the configuration line\n\(result)")
        }
    }

    @Test func helpAfterOtherWordsStillWins() async throws {
        let result = try await CLI.run(["pay", "--method", "PAYPAL", "--help"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasPrefix("USAGE: checkout pay"), "\(result)")
    }
}
