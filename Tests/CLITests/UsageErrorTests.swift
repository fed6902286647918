import Foundation
import Testing

/// A wrong command line exits 2 with a message on stderr (and nothing on stdout).
@Suite struct UsageErrorTests {
    static let cases: [UsageCase] = [
        UsageCase(words: ["frobnicate"], message: "error: unknown command 'frobnicate'"),
        UsageCase(words: ["methods", "--bogus"], message: "error: unexpected argument '--bogus'"),
        UsageCase(words: ["methods", "--json", "--json=1"], message: "error: unexpected argument '--json=…'"),
        UsageCase(words: ["demo", "--bogus"], message: "error: unexpected argument '--bogus'"),
        UsageCase(words: ["theme", "--mode", "dim"], message: "error: --mode must be light or dark, got 'dim'"),
        UsageCase(words: ["theme", "extra"], message: "error: unexpected argument 'extra'"),
        UsageCase(words: ["layout"], message: "error: missing component: expected one of payment-methods, vaulted, card-form"),
        UsageCase(words: ["layout", "nowhere"], message: "error: unknown component 'nowhere'"),
        UsageCase(words: ["layout", "payment-methods", "--methods", "x"], message: "error: --methods must be an integer"),
        UsageCase(words: ["layout", "card-form", "--cvv"], message: "error: --cvv applies only to vaulted"),
        UsageCase(words: ["pay"], message: "error: missing required option --method"),
        UsageCase(words: ["pay", "--method", "PAYMENT_CARD", "--number", "4242424242424242"],
             message: "error: --method PAYMENT_CARD needs --expiry"),
        UsageCase(words: ["pay", "--method", "PAYPAL", "--wallet", "approve"],
             message: "error: --wallet is only for --method APPLE_PAY or GOOGLE_PAY"),
        UsageCase(words: ["vault", "list"], message: "error: missing required option --merchant"),
        UsageCase(words: ["vault", "--merchant", "m", "--customer", "c"], message: "error: missing subcommand: expected one of"),
        UsageCase(words: ["vault", "purge", "--merchant", "m", "--customer", "c"], message: "error: unknown subcommand 'purge'"),
        UsageCase(words: ["vault", "sync"], message: "error: missing required option --db"),
        UsageCase(words: ["new-method", "--type", "GIFT_CARD"], message: "error: missing NAME"),
    ]

    @Test(arguments: cases) func wrongCommandLineExits2(_ testCase: UsageCase) async throws {
        let result = try await CLI.run(testCase.words)
        #expect(result.status == 2, "\(testCase): \(result)")
        #expect(result.stdout.isEmpty, "\(testCase): \(result)")
        #expect(result.stderr.hasPrefix(testCase.message), "\(testCase): \(result)")
    }

    /// A card number typed into the wrong option is refused without being echoed, in every command
    /// that checks a currency or a country.
    @Test(arguments: [
        ["pay", "--method", "PAYMENT_CARD", "--currency", "4111111111111111"],
        ["pay", "--method", "PAYMENT_CARD", "--country", "4111111111111111"],
        ["pay", "--routing", "Config/routing.json", "--ledger", "/nonexistent/l.sqlite", "--currency", "4111 1111 1111 1111"],
        ["route", "explain", "--routing", "Config/routing.json", "--currency", "4111111111111111"],
        ["preview", "--out", "/nonexistent", "--currency", "4111111111111111"],
    ])
    func aCardNumberInACurrencyOrCountryIsNotEchoed(_ words: [String]) async throws {
        let result = try await CLI.run(words)
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains(words.contains("--country") ? "--country must be" : "--currency must be"), "\(result)")
        #expect(!result.stderr.replacingOccurrences(of: " ", with: "").contains("4111111111111111"), "\(result)")
    }

    @Test func anUnknownCommandAlsoPrintsTheTopLevelHelp() async throws {
        let result = try await CLI.run(["frobnicate"])
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("USAGE: checkout <command> [options]"), "\(result)")
    }

    @Test func aCommandsUsageErrorPointsToItsHelp() async throws {
        let result = try await CLI.run(["theme", "--bogus"])
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("Run `checkout theme --help` for usage."), "\(result)")
    }
}
