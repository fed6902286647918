import CheckoutCore
import CheckoutOrchestration
import CheckoutTestSupport
import Foundation
import Testing

extension Reliability.HostileInput {
    /// Valid documents the mutator starts from: a routing file with every condition and a decline table.
    static let routingSeeds: [String] = [
        """
        { "processors": [ { "name": "psp-a", "kind": "sandbox", "behaviour": { "createPayment": ["processor-error", "succeed"] } },
                          { "name": "psp-c", "kind": "http", "baseURL": "https://127.0.0.1:8443",
                            "declineTable": { "codes": { "05": "hard-decline" }, "default": "processor-error" } } ],
          "routes": [ { "name": "r", "when": { "methodType": ["PAYMENT_CARD"], "cardNetwork": ["VISA"], "bin": [{ "from": "400000", "to": "499999" }],
                                               "issuerCountry": ["NL"], "currency": ["EUR"], "amount": { "min": 0, "max": 100000 },
                                               "merchant": { "segment": ["travel"] }, "customer": { "tier": "gold" } },
                        "processors": ["psp-a", "psp-c"], "weights": { "psp-a": 3, "psp-c": 1 }, "fallbackOn": ["processor-error"] },
                      { "name": "default", "processors": ["psp-a"] } ],
          "breaker": { "consecutiveFailures": 5, "failureRate": 0.5, "window": 20, "coolDownSeconds": 30 } }
        """,
        SandboxDeclineCodes.tableJSON,
    ]

    @Test("routing files and decline tables: hostile mutations give typed errors with paths, never a crash or a card number")
    func routingFileFuzz() {
        let seed = ReliabilityBudget.seed &+ 1800
        var mutator = FuzzMutator(seed: seed)
        var failures = FuzzFailures(target: "routing.json", seed: seed)
        var accepted = 0, refused = 0
        for index in 0..<ReliabilityBudget.fuzzCases {
            let base = Array(Self.routingSeeds[index % Self.routingSeeds.count].utf8)
            let bytes = index % 10 == 9 ? mutator.randomBytes() : index % 2 == 0 ? mutator.mutateStructure(base) : mutator.mutate(base)
            let reached = IndependentParse.isJSONObject(bytes) ? ["JSON object"] : []
            var outcomes: [RoutingFileError?] = []
            do { _ = try RoutingFileLoader.load(bytes); outcomes.append(nil) } catch { outcomes.append(error) }
            do { _ = try DeclineTableLoader.load(bytes); outcomes.append(nil) } catch { outcomes.append(error) }
            for outcome in outcomes {
                guard let error = outcome else {
                    accepted += 1
                    continue
                }
                refused += 1
                if error.issues.isEmpty { failures.fail(index, "an error without issues") }
                for issue in error.issues where !issue.path.hasPrefix("$") {
                    failures.fail(index, "an issue without a JSON path: \(issue)")
                }
                failures.checkStrings(of: error, index)
            }
            // Each input goes to both loaders; one of them at most can take it.
            failures.verdict(outcomes.contains { $0 == nil } ? "accepted by a loader" : "refused by both", reached: reached)
        }
        failures.verify(counters: ["fuzz.routingFile"], planned: ReliabilityBudget.fuzzCases,
                        atLeast: ["JSON object": 0.15, "accepted by a loader": 0.01, "refused by both": 0.3])
        #expect(accepted > 0 && refused > 0, "accepted \(accepted), refused \(refused)")
    }
}
