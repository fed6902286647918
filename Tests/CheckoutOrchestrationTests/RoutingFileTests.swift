import CheckoutCore
import CheckoutTestSupport
@testable import CheckoutOrchestration
import Foundation
import Testing

/// The routing file is validated at load, every error with its JSON path.
@Suite struct RoutingFileTests {
    static let configDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Config", isDirectory: true)

    static let issueExample = """
        { "processors": [ { "name": "psp-a", "kind": "sandbox", "behaviour": { "createPayment": "processor-error" } },
                          { "name": "psp-b", "kind": "sandbox" },
                          { "name": "psp-c", "kind": "http", "baseURL": "https://127.0.0.1:8443" } ],
          "routes": [ { "name": "eur-cards",
                        "when": { "methodType": ["PAYMENT_CARD"], "currency": ["EUR"], "amount": { "min": 0, "max": 100000 } },
                        "processors": ["psp-a", "psp-b"],
                        "fallbackOn": ["processor-error", "network-error", "issuer-unavailable", "soft-decline"] },
                      { "name": "default", "processors": ["psp-b"] } ] }
        """

    @Test("the issue's example file loads; its http processor is an HTTPPaymentProcessor at its baseURL")
    func issueExampleLoads() throws {
        let file = try RoutingFileLoader.load(Array(Self.issueExample.utf8))
        #expect(file.processors.map(\.name) == ["psp-a", "psp-b", "psp-c"])
        #expect(file.processors[0].behaviour.value(.createPayment, call: 0) == .category(.processorError))
        #expect(file.processors[2].baseURL == URL(string: "https://127.0.0.1:8443"))
        #expect(file.routes[0].when.amount == AmountRange(min: 0, max: 100000))
        #expect(file.routes[0].fallbackOn == [.processorError, .networkError, .issuerUnavailable, .softDecline])
        let http = try ProcessorFactory().make(file.processors[2])
        #expect(http is HTTPPaymentProcessor)
        #expect(http.name == "psp-c")
    }

    @Test("Config/routing.json is valid and every processor in it can be built")
    func shippedFileValid() throws {
        let file = try RoutingFileLoader.load(contentsOf: Self.configDirectory.appendingPathComponent("routing.json"))
        #expect(!file.routes.isEmpty)
        #expect(try ProcessorFactory().makeAll(file).count == file.processors.count)
    }

    @Test("Config/declines/sandbox.json is the sandbox's built-in table, byte for byte")
    func sandboxTableIsTheConfigFile() throws {
        let data = try Data(contentsOf: Self.configDirectory.appendingPathComponent("declines/sandbox.json"))
        #expect(String(decoding: data, as: UTF8.self) == SandboxDeclineCodes.tableJSON + "\n")
        let table = ScriptedSandboxProcessor.builtInDeclineTable
        for category in DeclineCategory.allCases {
            #expect(table.category(for: SandboxDeclineCodes.rawCode(for: category)) == category)
        }
        #expect(table.category(for: "no-such-code") == .processorError)
    }

    @Test("every error of a bad file is reported at once, each with its JSON path")
    func everyErrorWithPath() throws {
        let bad = """
            { "processors": [ { "name": "psp-a", "kind": "sandbox", "behaviour": { "createPayment": "explode", "dispute": "succeed" } },
                              { "name": "psp-a", "kind": "carrier-pigeon" },
                              { "name": "psp-h", "kind": "http", "baseURL": "http://example.com" },
                              { "kind": "http" } ],
              "routes": [ { "name": "r1", "when": { "currency": ["eur"], "amount": { "min": 10, "max": 1 }, "colour": ["red"] },
                            "processors": ["psp-a", "psp-zz", "psp-a"], "weights": { "psp-q": 1 },
                            "fallbackOn": ["suspected-fraud", "bogus"] },
                          { "name": "catch-all", "processors": ["psp-a"] },
                          { "name": "r3", "processors": [] } ],
              "breaker": { "failureRate": 2 },
              "extra": true }
            """
        do {
            _ = try RoutingFileLoader.load(Array(bad.utf8))
            Issue.record("the file should be refused")
        } catch {
            let paths = error.issues.map(\.path)
            let expected = [
                "$.extra", "$.processors[0].behaviour.createPayment", "$.processors[0].behaviour.dispute",
                "$.processors[1].kind", "$.processors[2].baseURL", "$.processors[3].name", "$.processors[3].baseURL",
                "$.routes[0].when.colour", "$.routes[0].when.currency[0]", "$.routes[0].when.amount",
                "$.routes[0].processors[1]", "$.routes[0].processors[2]", "$.routes[0].weights[\"psp-q\"]",
                "$.routes[0].fallbackOn[0]", "$.routes[0].fallbackOn[1]", "$.routes[1].when", "$.routes[2].processors",
                "$.breaker.failureRate",
            ]
            for path in expected { #expect(paths.contains(path), "missing an error at \(path): \(error)") }
            #expect(error.issues.first { $0.path == "$.routes[0].processors[1]" }?.message.contains("unknown processor") == true)
            #expect(error.description.contains("$.routes[0].fallbackOn[0]: suspected-fraud never falls back"))
        }
    }

    @Test("an unknown processor name is an error at its path", arguments: [#"["nope"]"#, #"["psp-a", "ghost"]"#])
    func unknownProcessor(list: String) throws {
        let json = #"{"processors": [{"name": "psp-a", "kind": "sandbox"}], "routes": [{"name": "r", "processors": "# + list + "}]}"
        #expect(throws: RoutingFileError.self) { _ = try RoutingFileLoader.load(Array(json.utf8)) }
        do { _ = try RoutingFileLoader.load(Array(json.utf8)) } catch {
            #expect(error.issues.count == 1)
            #expect(error.issues[0].path.hasPrefix("$.routes[0].processors["))
        }
    }

    @Test("a decline table is validated with paths too")
    func declineTableErrors() {
        do {
            _ = try DeclineTableLoader.load(Array(#"{"codes": {"05": "hard-decline", "XX": "maybe"}, "colour": 1}"#.utf8))
            Issue.record("should fail")
        } catch {
            #expect(Set(error.issues.map(\.path)) == ["$.codes.XX", "$.colour", "$.default"])
        }
    }

    @Test("a value that holds a card number is masked in the error message")
    func noCardInErrors() {
        do {
            _ = try RoutingFileLoader.load(Array(#"{"processors": [{"name": "a", "kind": "sandbox"}], "routes": [{"name": "r", "processors": ["4242424242424242"]}]}"#.utf8))
        } catch {
            #expect(!error.description.contains("4242424242424242"))
            #expect(!CardNumberDetector.containsCardNumber(error.description))
        }
    }

    @Test("the fast decision and the explanation agree on every payment")
    func decideMatchesExplain() throws {
        let json = """
            { "processors": [ { "name": "a", "kind": "sandbox" } ],
              "routes": [ { "name": "visa-nl", "when": { "cardNetwork": ["VISA"], "issuerCountry": ["NL"] }, "processors": ["a"] },
                          { "name": "bin", "when": { "bin": [{ "from": "4000", "to": "4099" }], "currency": ["EUR", "USD"] }, "processors": ["a"] },
                          { "name": "gold", "when": { "customer": { "tier": ["gold", "platinum"] }, "merchant": { "segment": "travel" } }, "processors": ["a"] },
                          { "name": "small", "when": { "amount": { "max": 500 } }, "processors": ["a"] },
                          { "name": "wallets", "when": { "methodType": ["APPLE_PAY", "GOOGLE_PAY"] }, "processors": ["a"] } ] }
            """
        let table = RoutingTable(routes: try RoutingFileLoader.load(Array(json.utf8)).routes)
        var random = SeededRandom(seed: TestSeed.seed(18_002, for: "decideMatchesExplain"))
        for _ in 0..<2000 {
            let facts = RoutingFacts(
                methodType: ["PAYMENT_CARD", "APPLE_PAY", "PAYPAL"][random.below(3)],
                cardNetwork: [nil, "VISA", "MASTERCARD"][random.below(3)],
                bin: [nil, "40001234", "40991234", "41000000", "4"][random.below(5)],
                issuerCountry: [nil, "NL", "DE"][random.below(3)], currency: ["EUR", "USD", "GBP"][random.below(3)],
                amount: [0, 499, 500, 501, 100_000][random.below(5)],
                merchant: [[:], ["segment": "travel"], ["segment": "retail"]][random.below(3)],
                customer: [[:], ["tier": "gold"], ["tier": "bronze"]][random.below(3)])
            let fast = table.decide(facts).map { table.routes[$0].name }
            let explained = table.explain(facts).last.flatMap { $0.matched ? $0.route : nil }
            #expect(fast == explained, "\(facts)")
        }
    }
}

