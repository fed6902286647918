import Foundation
import Testing

/// `checkout pay --routing`, `route explain`, `ledger list|show|reconcile`, as a user runs them.
@Suite struct OrchestrationCLITests {
    static let routing = """
        { "processors": [ { "name": "psp-a", "kind": "sandbox", "behaviour": { "createPayment": "processor-error" } },
                          { "name": "psp-b", "kind": "sandbox" },
                          { "name": "psp-f", "kind": "sandbox", "behaviour": { "createPayment": "suspected-fraud" } },
                          { "name": "psp-t", "kind": "sandbox", "journal": "psp-t.journal",
                            "behaviour": { "createPayment": "timeout-after-charge", "attemptStatus": "network-error" } } ],
          "routes": [ { "name": "eur-cards", "when": { "methodType": ["PAYMENT_CARD"], "currency": ["EUR"], "amount": { "min": 0, "max": 100000 } },
                        "processors": ["psp-a", "psp-b"], "fallbackOn": ["processor-error", "network-error"] },
                      { "name": "usd-fraud", "when": { "currency": ["USD"] }, "processors": ["psp-f", "psp-b"],
                        "fallbackOn": ["processor-error", "soft-decline"] },
                      { "name": "gbp-timeout", "when": { "currency": ["GBP"] }, "processors": ["psp-t", "psp-b"],
                        "fallbackOn": ["network-error"] },
                      { "name": "default", "processors": ["psp-b"] } ] }
        """
    static let card = ["--number", "4242 4242 4242 4242", "--expiry", "12/30", "--cvv", "123"]

    static func setUp() throws -> URL {
        let directory = try CLI.temporaryDirectory()
        try Data(routing.utf8).write(to: directory.appendingPathComponent("routing.json"))
        return directory
    }

    @Test("pay --routing --json: route, outcome and every attempt with processor, category, raw code and status")
    func payFallback() async throws {
        let directory = try Self.setUp()
        let result = try await CLI.run(["pay", "--routing", "routing.json", "--ledger", "ledger.sqlite"] + Self.card
                                       + ["--key", "order-1", "--json"], in: directory)
        #expect(result.status == 0, "\(result)")
        let object = try result.object()
        #expect(object["route"] as? String == "eur-cards")
        #expect(object["outcome"] as? String == "succeeded")
        let attempts = try #require(object["attempts"] as? [[String: Any]])
        #expect(attempts.map { $0["processor"] as? String } == ["psp-a", "psp-b"])
        #expect(attempts.map { $0["status"] as? String } == ["failed", "succeeded"])
        #expect(attempts[0]["category"] as? String == "processor-error")
        #expect(attempts[0]["rawCode"] as? String == "96")
        #expect(attempts[1]["category"] is NSNull)
        #expect(!result.stdout.contains("4242424242424242") && !result.stdout.contains("4242 4242 4242 4242"))
        // The same key again: the same payment, nothing charged again.
        let again = try await CLI.run(["pay", "--routing", "routing.json", "--ledger", "ledger.sqlite"] + Self.card
                                      + ["--key", "order-1", "--json"], in: directory)
        #expect(try again.object()["paymentId"] as? String == object["paymentId"] as? String)
        let list = try await CLI.run(["ledger", "list", "--ledger", "ledger.sqlite", "--json"], in: directory)
        #expect((try list.object()["intents"] as? [[String: Any]])?.count == 1)
        let id = try #require(object["paymentId"] as? String)
        let show = try await CLI.run(["ledger", "show", id, "--ledger", "ledger.sqlite", "--json"], in: directory)
        #expect(show.status == 0, "\(show)")
        let shown = try show.object()
        #expect(shown["state"] as? String == "succeeded")
        #expect((shown["events"] as? [[String: Any]])?.map { $0["type"] as? String } == ["payment.succeeded"])
        let text = try await CLI.run(["ledger", "show", id, "--ledger", "ledger.sqlite"], in: directory)
        #expect(text.stdout.contains("psp-a  failed  processor-error  raw 96"))
        let ledgerBytes = try Data(contentsOf: directory.appendingPathComponent("ledger.sqlite"))
        #expect(ledgerBytes.range(of: Data("4242424242424242".utf8)) == nil)
    }

    @Test("a key reused with another amount or currency: exit 1, idempotency-key-reused, the first payment neither reported nor changed")
    func payKeyReused() async throws {
        let directory = try Self.setUp()
        let pay = ["pay", "--routing", "routing.json", "--ledger", "l.sqlite"] + Self.card + ["--key", "k", "--json"]
        let first = try await CLI.run(pay, in: directory)
        #expect(first.status == 0, "\(first)")
        let paid = try first.object()
        #expect(paid["amount"] as? Int == 1000)
        #expect(paid["currency"] as? String == "EUR")
        for change in [["--amount", "99999"], ["--currency", "GBP"]] {
            let again = try await CLI.run(pay + change, in: directory)
            #expect(again.status == 1, "\(again)")
            let object = try again.object()
            #expect((object["error"] as? [String: Any])?["code"] as? String == "idempotency-key-reused", "\(object)")
            #expect(object["paymentId"] is NSNull)
            #expect(object["outcome"] as? String == "failed")
            #expect((object["attempts"] as? [Any])?.isEmpty == true)
            #expect(object["amount"] as? Int == (change[0] == "--amount" ? 99999 : 1000))
            #expect(object["currency"] as? String == (change[0] == "--currency" ? "GBP" : "EUR"))
        }
        let list = try await CLI.run(["ledger", "list", "--ledger", "l.sqlite", "--json"], in: directory)
        let intents = try #require(try list.object()["intents"] as? [[String: Any]])
        #expect(intents.count == 1)
        #expect(intents.first?["amount"] as? Int == 1000)
        #expect(intents.first?["state"] as? String == "succeeded")
    }

    @Test("--currency that is not an active ISO 4217 currency is a usage error (exit 2), before anything is written",
          arguments: ["ZZZ", "XAU"])
    func payUnknownCurrency(code: String) async throws {
        let directory = try Self.setUp()
        let result = try await CLI.run(["pay", "--routing", "routing.json", "--ledger", "l.sqlite"] + Self.card
                                       + ["--currency", code, "--json"], in: directory)
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("--currency must be an ISO 4217 code"), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("l.sqlite").path))
    }

    @Test("pay --routing takes --billing as pay does: checked by the card form's rules, a bad field is exit 2, a bad value exit 1")
    func payRoutedWithBilling() async throws {
        let directory = try Self.setUp()
        let pay = ["pay", "--routing", "routing.json", "--ledger", "l.sqlite"] + Self.card
        let good = try await CLI.run(pay + ["--billing", "postalCode=1011AB", "--billing", "countryCode=NL", "--json"], in: directory)
        #expect(good.status == 0, "\(good)")
        let badValue = try await CLI.run(pay + ["--billing", "postalCode=ABCDEFGHIJKL", "--billing", "countryCode=NL", "--json"],
                                         in: directory)
        #expect(badValue.status == 1, "\(badValue)")
        #expect(badValue.stderr.contains("the billing address is not valid (postalCode:"), "\(badValue)")
        let badField = try await CLI.run(pay + ["--billing", "colour=red"], in: directory)
        #expect(badField.status == 2, "\(badField)")
        #expect(badField.stderr.contains("--billing must be FIELD=VALUE"), "\(badField)")
    }

    @Test("suspected fraud: exit 1, one attempt, no fallback")
    func payFraud() async throws {
        let directory = try Self.setUp()
        let result = try await CLI.run(["pay", "--routing", "routing.json", "--ledger", "l.sqlite"] + Self.card
                                       + ["--currency", "USD", "--json"], in: directory)
        #expect(result.status == 1)
        let object = try result.object()
        #expect(object["outcome"] as? String == "failed")
        let attempts = try #require(object["attempts"] as? [[String: Any]])
        #expect(attempts.count == 1)
        #expect(attempts[0]["category"] as? String == "suspected-fraud")
        #expect(attempts[0]["status"] as? String == "declined")
    }

    @Test("a timeout after the charge stays unknown, then ledger reconcile settles it to succeeded through the journal")
    func payUnknownThenReconcile() async throws {
        let directory = try Self.setUp()
        let result = try await CLI.run(["pay", "--routing", "routing.json", "--ledger", "l.sqlite"] + Self.card
                                       + ["--currency", "GBP", "--json"], in: directory)
        #expect(result.status == 1, "\(result)")
        let object = try result.object()
        #expect(object["outcome"] as? String == "unknown")
        #expect((object["attempts"] as? [[String: Any]])?.map { $0["processor"] as? String } == ["psp-t"])
        // While psp-t's status call still fails, the text says the payment is still open, not reconciled.
        let open = try await CLI.run(["ledger", "reconcile", "--ledger", "l.sqlite", "--routing", "routing.json"], in: directory)
        #expect(open.status == 1, "\(open)")
        #expect(open.stdout.contains("unknown, still open: the processor's status call did not settle it"), "\(open)")
        #expect(open.stdout.contains("0 settled, 1 still open (run ledger reconcile again later)"), "\(open)")
        #expect(!open.stdout.contains("reconciled"), "\(open)")
        // The reconcile's routing file has psp-t's status call working again (same journal).
        let healed = Self.routing.replacingOccurrences(of: #", "attemptStatus": "network-error""#, with: "")
        try Data(healed.utf8).write(to: directory.appendingPathComponent("healed.json"))
        let reconcile = try await CLI.run(["ledger", "reconcile", "--ledger", "l.sqlite", "--routing", "healed.json", "--json"],
                                          in: directory)
        #expect(reconcile.status == 0, "\(reconcile)")
        let entries = try #require(try reconcile.object()["reconciled"] as? [[String: Any]])
        #expect(entries.map { $0["to"] as? String } == ["succeeded"])
        #expect(entries.map { $0["from"] as? String } == ["unknown"])
    }

    @Test("route explain prints the route and the reason, in text and JSON")
    func explain() async throws {
        let directory = try Self.setUp()
        let text = try await CLI.run(["route", "explain", "--routing", "routing.json", "--method", "PAYMENT_CARD", "--number",
                                      "4242424242424242", "--amount", "2500", "--currency", "USD"], in: directory)
        #expect(text.status == 0, "\(text)")
        #expect(text.stdout.contains("route: usd-fraud"))
        #expect(text.stdout.contains("not eur-cards: currency USD not in [EUR]"))
        #expect(!text.stdout.contains("4242424242424242"))
        let json = try await CLI.run(["route", "explain", "--routing", "routing.json", "--number", "4242424242424242",
                                      "--amount", "2500", "--currency", "EUR", "--json"], in: directory)
        let object = try json.object()
        #expect(object["route"] as? String == "eur-cards")
        #expect((object["processors"] as? [[String: Any]])?.map { $0["name"] as? String } == ["psp-a", "psp-b"])
        #expect(object["reasons"] as? [String] == ["methodType PAYMENT_CARD", "currency EUR", "amount 2500 in 0...100000"])
        #expect(object["neverFallBack"] as? [String] == ["hard-decline", "insufficient-funds", "suspected-fraud", "lost-or-stolen",
                                                         "authentication-failed"])
        #expect((object["facts"] as? [String: Any])?["bin"] as? String == "424242")
    }

    @Test("an invalid routing file is exit 1 with every error and its JSON path")
    func invalidFile() async throws {
        let directory = try CLI.temporaryDirectory()
        try Data(#"{"processors": [{"name": "a", "kind": "sandbox", "behaviour": {"createPayment": "boom"}}], "routes": [{"name": "r", "processors": ["a", "zz"]}]}"#.utf8)
            .write(to: directory.appendingPathComponent("bad.json"))
        for arguments in [["pay", "--routing", "bad.json", "--ledger", "l.sqlite"] + Self.card + ["--json"],
                          ["route", "explain", "--routing", "bad.json", "--json"]] {
            let result = try await CLI.run(arguments, in: directory)
            #expect(result.status == 1, "\(result)")
            #expect(result.stderr.contains("$.processors[0].behaviour.createPayment"))
            #expect(result.stderr.contains("$.routes[0].processors[1]: unknown processor \"zz\""))
            let errors = try #require(try result.object()["errors"] as? [[String: Any]])
            #expect(errors.map { $0["path"] as? String } == ["$.processors[0].behaviour.createPayment", "$.routes[0].processors[1]"])
        }
    }
}
