import Foundation
import Testing

/// The exact bytes of command lines whose output depends on earlier ones (a vault database, a ledger),
/// run one after the other in one directory. Random identifiers (UUIDs) and timestamps are the only
/// bytes replaced (by `UUID` and `TIMESTAMP`, in both the output and `Tests/CLIPinned/NAME.*`);
/// every other byte (key order, `null`, escaping, non-ASCII) is compared exactly.
@Suite struct PinnedScenarioTests {
    struct Step: Sendable {
        /// The fixture's name in `Tests/CLIPinned`.
        let name: String
        /// The words after `checkout`; `{paymentId}` is the first `pi_…` id an earlier step printed.
        let words: [String]
        /// The exit code.
        let status: Int32
    }

    struct Scenario: Sendable, CustomStringConvertible {
        let name: String
        /// Files written into the directory first (name, contents).
        let files: [String: String]
        let steps: [Step]
        var description: String { name }
    }

    static let card = ["--number", "4242 4242 4242 4242", "--expiry", "12/30", "--cvv", "123"]

    static let scenarios: [Scenario] = [
        Scenario(name: "vault", files: [:], steps: [
            Step(name: "vault-add-json", words: ["vault", "add", "--merchant", "m", "--customer", "c", "--number", "4242424242424242",
                                                 "--expiry", "12/39", "--name", "Zoë/O'Brien \"Jr\"", "--default",
                                                 "--db", "vault.sqlite", "--json"], status: 0),
            Step(name: "vault-add-plain-json", words: ["vault", "add", "--merchant", "m", "--customer", "c", "--number",
                                                       "5555555555554444", "--expiry", "11/2038", "--db", "vault.sqlite", "--json"],
                 status: 0),
            Step(name: "vault-list-json", words: ["vault", "list", "--merchant", "m", "--customer", "c", "--db", "vault.sqlite", "--json"],
                 status: 0),
            Step(name: "vault-list-empty-json", words: ["vault", "list", "--merchant", "m", "--customer", "nobody",
                                                        "--db", "vault.sqlite", "--json"], status: 0),
        ]),
        Scenario(name: "orchestration", files: ["routing.json": OrchestrationCLITests.routing, "bad.json": #"{"processors": 3}"#], steps: [
            Step(name: "routed-pay-fallback-json", words: ["pay", "--routing", "routing.json", "--ledger", "ledger.sqlite"] + card
                 + ["--key", "order-1", "--json"], status: 0),
            // Its own ledger: two intents made in the same second list in the order of their random ids.
            Step(name: "routed-pay-fraud-json", words: ["pay", "--routing", "routing.json", "--ledger", "fraud.sqlite"] + card
                 + ["--key", "order-2", "--currency", "USD", "--json"], status: 1),
            Step(name: "routed-pay-unknown-json", words: ["pay", "--routing", "routing.json", "--ledger", "gbp.sqlite"] + card
                 + ["--key", "order-3", "--currency", "GBP", "--json"], status: 1),
            Step(name: "routed-pay-again-text", words: ["pay", "--routing", "routing.json", "--ledger", "ledger.sqlite"] + card
                 + ["--key", "order-1"], status: 0),
            Step(name: "routed-pay-bad-routing-json", words: ["pay", "--routing", "bad.json", "--ledger", "other.sqlite"] + card
                 + ["--json"], status: 1),
            Step(name: "route-explain-json", words: ["route", "explain", "--routing", "routing.json", "--number", "4242424242424242",
                                                     "--currency", "USD", "--merchant", "tier=gold", "--json"], status: 0),
            Step(name: "route-explain-text", words: ["route", "explain", "--routing", "routing.json", "--number", "4242424242424242"],
                 status: 0),
            Step(name: "ledger-list-json", words: ["ledger", "list", "--ledger", "ledger.sqlite", "--json"], status: 0),
            Step(name: "ledger-show-json", words: ["ledger", "show", "{paymentId}", "--ledger", "ledger.sqlite", "--json"], status: 0),
            Step(name: "ledger-reconcile-json", words: ["ledger", "reconcile", "--ledger", "ledger.sqlite", "--routing", "routing.json",
                                                        "--json"], status: 0),
            Step(name: "ledger-reconcile-unknown-json", words: ["ledger", "reconcile", "--ledger", "gbp.sqlite", "--routing",
                                                                "routing.json", "--json"], status: 1),
        ]),
    ]

    /// `text` with every UUID replaced by `UUID` and every ISO 8601 UTC timestamp by `TIMESTAMP`.
    static func redacted(_ text: String) -> String {
        let patterns = [("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}", "UUID"),
                        ("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?Z", "TIMESTAMP")]
        var result = text
        for (pattern, replacement) in patterns {
            let expression = try! NSRegularExpression(pattern: pattern)
            result = expression.stringByReplacingMatches(in: result, range: NSRange(result.startIndex..., in: result),
                                                         withTemplate: replacement)
        }
        return result
    }

    /// The first `pi_<UUID>` in `text`.
    static func firstPaymentId(in text: String) -> String? {
        guard let range = text.range(of: "pi_[0-9a-fA-F-]{36}", options: .regularExpression) else { return nil }
        return String(text[range])
    }

    @Test func redactionReplacesOnlyIdentifiersAndTimestamps() {
        #expect(Self.redacted(#"{"id":"vt_991207b2-ec44-47a0-bffa-f33142b8c427","at":"2026-12-02T14:48:20Z","n":12}"#)
                == #"{"id":"vt_UUID","at":"TIMESTAMP","n":12}"#)
    }

    @Test(arguments: scenarios) func everyStepIsByteForByteThePinnedOne(_ scenario: Scenario) async throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for (name, contents) in scenario.files {
            try Data(contents.utf8).write(to: directory.appendingPathComponent(name))
        }
        var paymentId: String?
        for step in scenario.steps {
            let words = try step.words.map { word in
                word == "{paymentId}" ? try #require(paymentId, "\(step.name): no earlier step printed a payment id") : word
            }
            let result = try await CLI.run(words, in: directory)
            paymentId = paymentId ?? Self.firstPaymentId(in: result.stdout)
            #expect(result.status == step.status, "\(step.name): \(result)")
            #expect(Self.redacted(result.stdout) == (try PinnedOutputTests.fixture(step.name + ".stdout")), "\(step.name) stdout: \(result)")
            #expect(Self.redacted(result.stderr) == (try PinnedOutputTests.fixture(step.name + ".stderr")), "\(step.name) stderr: \(result)")
        }
    }
}
