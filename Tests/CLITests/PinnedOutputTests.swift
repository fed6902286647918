import Foundation
import Testing

/// The exact bytes (stdout, stderr, exit code) of a few command lines, pinned before the CLI's parser
/// and JSON output were rewritten: help texts, JSON (key order, `null`, numbers, non-ASCII), text
/// output and usage errors. The expected bytes live in `Tests/CLIPinned/NAME.stdout|stderr`; they
/// were written by the hand-written parser and `JSONSerialization`, and stay the contract.
@Suite struct PinnedOutputTests {
    struct Case: Sendable, CustomStringConvertible {
        /// The fixture's name in `Tests/CLIPinned`.
        let name: String
        /// The words after `checkout`.
        let words: [String]
        /// The exit code.
        let status: Int32
        var description: String { name }
    }

    /// What the embedded configuration requires of a card payment besides the number.
    static let cardholder = ["--expiry", "12/39", "--cvv", "123", "--name", "Jo Doe",
                             "--billing", "postalCode=1011AB", "--billing", "countryCode=NL"]

    static let cases: [Case] = [
        Case(name: "top-help", words: ["--help"], status: 0),
        Case(name: "no-command", words: [], status: 2),
        Case(name: "unknown-command", words: ["frobnicate"], status: 2),
        Case(name: "demo-help", words: ["demo", "--help"], status: 0),
        Case(name: "methods-help", words: ["methods", "--help"], status: 0),
        Case(name: "card-help", words: ["card", "--help"], status: 0),
        Case(name: "pay-help", words: ["pay", "--help"], status: 0),
        Case(name: "route-help", words: ["route", "--help"], status: 0),
        Case(name: "ledger-help", words: ["ledger", "--help"], status: 0),
        Case(name: "vault-help", words: ["vault", "--help"], status: 0),
        Case(name: "vault-sync-help", words: ["vault", "sync", "--help"], status: 0),
        Case(name: "vault-key-help", words: ["vault", "key", "--help"], status: 0),
        Case(name: "theme-help", words: ["theme", "--help"], status: 0),
        Case(name: "layout-help", words: ["layout", "--help"], status: 0),
        Case(name: "preview-help", words: ["preview", "--help"], status: 0),
        Case(name: "new-method-help", words: ["new-method", "--help"], status: 0),
        Case(name: "methods-json", words: ["methods", "--json"], status: 0),
        Case(name: "methods-text", words: ["methods"], status: 0),
        Case(name: "methods-locale-json", words: ["methods", "--json", "--locale", "nl"], status: 0),
        Case(name: "card-valid-json", words: ["card", "validate", "--number", "4242424242424242", "--json"], status: 0),
        Case(name: "card-invalid-json", words: ["card", "validate", "--number", "4000 0000 0000 0002", "--cvv", "12", "--name", "",
                                                "--json", "--locale", "de"], status: 1),
        Case(name: "card-invalid-text", words: ["card", "validate", "--number", "4000 0000 0000 0002", "--cvv", "12", "--name", ""],
             status: 1),
        Case(name: "theme-json", words: ["theme", "--json"], status: 0),
        Case(name: "theme-dark-text", words: ["theme", "--mode", "dark"], status: 0),
        Case(name: "contrast-json", words: ["theme", "--check-contrast", "--json"], status: 0),
        Case(name: "layout-json", words: ["layout", "payment-methods", "--json"], status: 0),
        Case(name: "layout-card-form-json", words: ["layout", "card-form", "--json"], status: 0),
        Case(name: "methods-bogus", words: ["methods", "--bogus"], status: 2),
        Case(name: "card-missing-value", words: ["card", "validate", "--number"], status: 2),
        Case(name: "card-unknown-option", words: ["card", "validate", "--numbr", "4242424242424242"], status: 2),
        Case(name: "theme-mode-twice", words: ["theme", "--mode", "dark", "--mode", "light"], status: 2),
        Case(name: "layout-bad-int", words: ["layout", "payment-methods", "--methods", "x"], status: 2),
        Case(name: "pay-routing-help", words: ["pay", "--routing", "--help"], status: 0),
        Case(name: "pay-card-json", words: ["pay", "--method", "PAYMENT_CARD", "--number", "4242424242424242"] + cardholder + ["--json"],
             status: 0),
        Case(name: "pay-card-text", words: ["pay", "--method", "PAYMENT_CARD", "--number", "4242424242424242"] + cardholder, status: 0),
        Case(name: "pay-vault-json", words: ["pay", "--method", "PAYMENT_CARD", "--number", "4242424242424242", "--vault"] + cardholder
             + ["--json"], status: 0),
        Case(name: "pay-decline-json", words: ["pay", "--method", "PAYMENT_CARD", "--number", "4000000000000002"] + cardholder
             + ["--json"], status: 1),
        Case(name: "pay-decline-text", words: ["pay", "--method", "PAYMENT_CARD", "--number", "4000000000000002"] + cardholder,
             status: 1),
        Case(name: "pay-redirect-json", words: ["pay", "--method", "PAYPAL", "--json"], status: 0),
        Case(name: "pay-missing-method", words: ["pay", "--number", "4242424242424242"], status: 2),
        Case(name: "pay-bad-method", words: ["pay", "--method", "paypal", "--json"], status: 2),
        Case(name: "pay-unknown-option", words: ["pay", "--method", "PAYMENT_CARD", "--numbr", "4242424242424242"], status: 2),
        Case(name: "pay-missing-value", words: ["pay", "--method"], status: 2),
        Case(name: "pay-method-twice", words: ["pay", "--method", "PAYPAL", "--method", "KLARNA"], status: 2),
        Case(name: "pay-bad-amount", words: ["pay", "--method", "PAYPAL", "--amount", "x"], status: 2),
        Case(name: "pay-card-needs-cvv", words: ["pay", "--method", "PAYMENT_CARD", "--number", "4242424242424242", "--expiry", "12/39"],
             status: 2),
        Case(name: "pay-stray-word", words: ["pay", "--method", "PAYPAL", "extra"], status: 2),
        Case(name: "pay-routed-missing-ledger", words: ["pay", "--routing", "/nonexistent.json", "--number", "4242424242424242"],
             status: 2),
        Case(name: "pay-routed-unknown-option", words: ["pay", "--routing", "x", "--ledger", "y", "--bogus"], status: 2),
    ]

    /// `Tests/CLIPinned`, found from this file's path.
    static let fixtures = CLI.packageRoot.appendingPathComponent("Tests/CLIPinned", isDirectory: true)

    static func fixture(_ name: String) throws -> String {
        String(decoding: try Data(contentsOf: fixtures.appendingPathComponent(name)), as: UTF8.self)
    }

    @Test(arguments: cases) func outputIsByteForByteThePinnedOne(_ testCase: Case) async throws {
        let result = try await CLI.run(testCase.words)
        #expect(result.status == testCase.status, "\(testCase): \(result)")
        #expect(result.stdout == (try Self.fixture(testCase.name + ".stdout")), "\(testCase) stdout: \(result)")
        #expect(result.stderr == (try Self.fixture(testCase.name + ".stderr")), "\(testCase) stderr: \(result)")
    }
}
