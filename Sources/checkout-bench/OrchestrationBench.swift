import CheckoutCore
import CheckoutOrchestration
import CheckoutOrchestrationPostgres
import Foundation

/// Orchestration: the routing decision over 100 routes; the router with its SQLite
/// ledger against a direct call of the same sandbox processor (paired, alternated); and the
/// ledger's write transactions per second on SQLite and, when `CHECKOUTKIT_POSTGRES_URL` is set,
/// PostgreSQL.
enum OrchestrationBench {
    static func run(_ options: BenchOptions) async throws -> [Figure] {
        var figures = [try decision(options)]
        figures += try await overhead(options)
        figures += try await ledgerWrites(options)
        figures += try await authRate(options)
        return figures
    }

    /// 100 routes, each with currency, amount, network and merchant conditions; the payment matches
    /// only the last one, so every decision walks all 100.
    static func decision(_ options: BenchOptions) throws -> Figure {
        let currencies = ["EUR", "USD", "GBP", "JPY", "CHF"]
        let routes = (0..<100).map { index in
            Route(name: "r\(index)",
                  when: RouteConditions(methodType: ["PAYMENT_CARD"], cardNetwork: ["VISA", "MASTERCARD"],
                                        currency: [currencies[index % 5]], amount: AmountRange(min: index * 10, max: index * 10 + 9),
                                        merchant: ["segment": ["s\(index)"]]),
                  processors: ["a"])
        }
        let table = RoutingTable(routes: routes)
        let facts = RoutingFacts(methodType: "PAYMENT_CARD", cardNetwork: "VISA", bin: "42424242", currency: currencies[99 % 5],
                                 amount: 995, merchant: ["segment": "s99", "country": "NL"])
        guard table.decide(facts) == 99 else { throw BenchFailure("orchestration: the decision picked the wrong route") }
        let count = options.scale(200_000, quick: 20_000)
        var hits = 0
        let (median, spread) = Measure.repeated(options.repeats) {
            Measure.seconds { for _ in 0..<count { if table.decide(facts) != nil { hits &+= 1 } } }
        }
        guard hits > 0 else { throw BenchFailure("orchestration: no decision") }
        let nanoseconds = median / Double(count) * 1e9
        return Figure(name: "orchestration.routingDecision100Rules", value: nanoseconds, unit: "ns/decision", spread: spread,
                      target: "<= 2000 ns", targetMet: nanoseconds <= 2000,
                      note: "100 routes, the payment matches only the last")
    }

    static let file = """
        { "processors": [ { "name": "psp-a", "kind": "sandbox" } ], "routes": [ { "name": "all", "processors": ["psp-a"] } ] }
        """

    /// tokenize + createPayment through the router (intent and attempt written to a SQLite ledger,
    /// fully synchronous) against the same two calls on the sandbox directly.
    static func overhead(_ options: BenchOptions) async throws -> [Figure] {
        let scratch = try ScratchDirectory("orchestration")
        defer { scratch.remove() }
        let routing = try RoutingFileLoader.load(Array(file.utf8))
        let payments = options.scale(300, quick: 40)
        let token = ClientToken(merchantId: "m", customerId: "c", amount: 1000, currency: "EUR", country: "NL", allowedCardNetworks: [],
                                expiresAt: WallClock.system.now.addingTimeInterval(3600),
                                paymentMethods: [AdvertisedPaymentMethod(id: "pm", type: .paymentCard)])
        let session = ClientSession(token: token, paymentMethods: token.paymentMethods)
        let card = CardDetails(number: "4242424242424242", cvv: "123", expiryMonth: 12, expiryYear: 2030, network: .visa)
        var figures: [Figure] = []
        for (label, durability) in [("full", SQLiteLedgerStorage.Durability.full), ("normal", .processCrash)] {
            let sandbox = ScriptedSandboxProcessor(name: "psp-a")
            let ledger = PaymentLedger(storage: try SQLiteLedgerStorage(path: scratch.url.appendingPathComponent("\(label).sqlite").path,
                                                                        durability: durability))
            let router = try PaymentRouter(file: routing, processors: ["psp-a": sandbox], ledger: ledger)
            let direct = ScriptedSandboxProcessor(name: "direct")
            var serial = 0
            let paired = try await Measure.paired(options.repeats, {
                try await Measure.seconds {
                    for _ in 0..<payments {
                        serial += 1
                        let routed = try await router.tokenize(.card(card), session: session)
                        _ = try await router.createPayment(CreatePaymentRequest(token: routed, session: session, idempotencyKey: "r\(serial)"))
                    }
                }
            }, baseline: {
                try await Measure.seconds {
                    for _ in 0..<payments {
                        serial += 1
                        let plain = try await direct.tokenize(.card(card), session: session)
                        _ = try await direct.createPayment(CreatePaymentRequest(token: plain, session: session, idempotencyKey: "d\(serial)"))
                    }
                }
            })
            let perPayment = 1e6 / Double(payments)
            figures.append(Figure(name: "orchestration.routerLedgerPayment.\(label)Sync", value: paired.subject.median * perPayment,
                                  unit: "us/payment", spread: paired.subject.spread, baseline: paired.baseline.median * perPayment,
                                  baselineName: "direct sandbox call", ratio: paired.ratio, pairs: paired.pairs,
                                  note: "tokenize + createPayment; router writes intent, attempt and event (3 transactions), "
                                      + "SQLite synchronous=\(label == "full" ? "FULL" : "NORMAL")"))
        }
        return figures
    }

    /// Ledger write transactions per second: open + startAttempt + settle (with its event) per payment.
    static func ledgerWrites(_ options: BenchOptions) async throws -> [Figure] {
        let scratch = try ScratchDirectory("orchestration-ledger")
        defer { scratch.remove() }
        let payments = options.scale(300, quick: 40)
        var backends: [(String, PaymentLedger, BenchSchema?)] = [
            ("sqlite", PaymentLedger(storage: try SQLiteLedgerStorage(path: scratch.url.appendingPathComponent("w.sqlite").path)), nil),
        ]
        var figures: [Figure] = []
        if let url = ProcessInfo.processInfo.environment[PostgresBench.variable], !url.isEmpty {
            let schema = try BenchSchema(baseURL: url)
            backends.append(("postgres", PaymentLedger(storage: try PostgresLedgerStorage(url: schema.url)), schema))
        } else {
            figures.append(Figure(name: "orchestration.ledgerWrites.postgres.skipped", value: .nan, unit: "",
                                  note: "\(PostgresBench.variable) is not set (scripts/with-postgres.sh swift run -c release "
                                      + "checkout-bench --only orchestration)", skipped: true))
        }
        defer { backends.forEach { $0.2?.drop() } }
        var serial = 0
        for (name, ledger, _) in backends {
            let (median, spread) = try await Measure.repeated(options.repeats) {
                try await Measure.seconds {
                    for _ in 0..<payments {
                        serial += 1
                        let intent = try await ledger.open(NewIntent(stableKey: "\(name)-\(serial)", route: "r", methodType: "PAYMENT_CARD",
                                                                     amount: 1, currency: "EUR", card: nil))
                        let attempt = try await ledger.startAttempt(intentId: intent.id, processor: "a", idempotencyKey: "k\(serial)")
                        try await ledger.settle(intentId: intent.id, sequence: attempt.sequence, AttemptSettlement(status: .succeeded),
                                                intentState: .succeeded)
                    }
                }
            }
            figures.append(Figure(name: "orchestration.ledgerWrites.\(name)", value: Double(payments * 3) / median,
                                  unit: "transactions/s", spread: spread,
                                  note: name == "sqlite" ? "synchronous=FULL, one transaction per state change" : "READ COMMITTED, row lock"))
        }
        return figures
    }
}
