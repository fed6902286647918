import CardPaymentMethod
import CheckoutCore
import CheckoutKit
import CheckoutOrchestration
import Foundation

/// `checkout route explain`: the route a payment would take and why, without paying.
enum RouteCommand: DeclaredCommand {
    static let spec = CommandSpec(
        name: "route",
        summary: "Explain which route and processors a payment would take",
        usage: """
            USAGE: checkout route explain --routing FILE [--method TYPE] [--number N] [--amount MINOR]
                                          [--currency CODE] [--country CODE] [--network NAME]
                                          [--issuer-country CODE] [--merchant K=V]... [--customer K=V]...
                                          [--key KEY] [--seed N] [--ledger DB] [--json]
            """,
        about: """
            Prints the route the router would choose for the payment, why (each route tested in order
            with the conditions that failed or held), the processors in the order they would be tried
            (with weights), which of them would be skipped because their circuit is open (with
            --ledger, the circuits are rebuilt from the ledger's recent attempts), and the categories
            that fall back. Pays nothing and writes nothing.
            """,
        options: [
            OrchestrationSetup.routingOption().isRequired(),
            .valued("--method", "TYPE", help: "Payment-method type (default PAYMENT_CARD)."),
        ] + CardOptions.specs(number: ["Card number: its network (card-networks.json) and leading digits are used,",
                                       "never printed (only the first 6 digits appear as `bin`)."],
                              expiry: [], cvv: [], name: []).map { $0.name == "--number" ? $0 : $0.isHidden() } + [
            .integer("--amount", "MINOR", range: 0...100_000_000_000, help: "Amount in minor units (default 1000)."),
            .valued("--currency", "CODE", help: "ISO 4217 currency (default EUR)."),
            .valued("--country", "CODE", help: "Merchant country, metadata `merchant.country` (default NL)."),
            .valued("--network", "NAME", help: "Card network, instead of detecting it from --number."),
            .valued("--issuer-country", "C", help: "Issuer country (default: the sandbox BIN table's, when it knows the BIN)."),
            OptionSpec.valued("--merchant", "K=V", help: "Merchant metadata (repeatable).").isRepeatable()
                .checked { _ = try OrchestrationSetup.metadata([$0], option: "--merchant") },
            OptionSpec.valued("--customer", "K=V", help: "Customer metadata (repeatable).").isRepeatable()
                .checked { _ = try OrchestrationSetup.metadata([$0], option: "--customer") },
            .valued("--key", "KEY", help: "A payment's stable key: the weighted first pick for that payment."),
            .valued("--seed", "N", help: "Seed of the weighted pick (default 0)."),
            .valued("--ledger", "DB", help: "Rebuild the circuits from this ledger (see `checkout pay --routing`)."),
            ConfigLocation.option.isHidden(),
            .flag("--json", help: "Print {\"route\",\"reasons\",\"routes\":[{\"name\",\"matched\",\"reasons\"}],",
                  "\"processors\":[{\"name\",\"weight\",\"skipped\",\"skippedUntil\",\"skippedFor\",\"authRate\"}],",
                  "\"fallbackOn\",\"neverFallBack\",\"weighted\",\"facts\"}."),
        ],
        footer: """
            EXIT CODES: 0 a route matched; 1 no route matched or the routing file is invalid (every error
            with its JSON path); 2 usage error.
            """)

    private enum Subcommand: String, CaseIterable { case explain }

    static func run(_ arguments: inout ParsedCommandLine, output: Output) async throws -> Int32 {
        let json = arguments.flag("--json")
        let routingPath = try arguments.required("--routing")
        let method = arguments.value("--method") ?? "PAYMENT_CARD"
        let card = CardOptions.from(arguments)
        let amount = try arguments.integer("--amount", default: 1000)
        let currency = arguments.value("--currency") ?? "EUR"
        let country = arguments.value("--country") ?? "NL"
        let networkText = arguments.value("--network")
        let issuerText = arguments.value("--issuer-country")
        var merchant = try OrchestrationSetup.metadata(arguments.values("--merchant"), option: "--merchant")
        let customer = try OrchestrationSetup.metadata(arguments.values("--customer"), option: "--customer")
        let key = arguments.value("--key")
        let seedText = arguments.value("--seed")
        let ledgerPath = arguments.value("--ledger")
        let defaults = try ConfigLocation.defaults(arguments)
        let _: Subcommand = try arguments.choice("subcommand")
        try arguments.finish()
        if card.expiry != nil || card.cvv != nil || card.name != nil {
            throw UsageError(message: "route explain reads only --number of the card options")
        }
        guard method.utf8.allSatisfy({ ($0 >= 65 && $0 <= 90) || ($0 >= 48 && $0 <= 57) || $0 == 95 }), !method.isEmpty else {
            throw UsageError(message: "--method must be an upper-case payment-method type such as PAYMENT_CARD")
        }
        _ = try CommandSupport.currency(currency)
        var seed: UInt64 = 0
        if let seedText {
            guard let value = UInt64(seedText) else { throw UsageError(message: "--seed must be an unsigned integer") }
            seed = value
        }
        let number = try card.readingStandardInput().number.map { String($0.filter { $0 != " " && $0 != "-" }) }
        if let number, number.isEmpty || !number.allSatisfy(\.isASCII) || !number.allSatisfy(\.isNumber) {
            throw UsageError(message: "--number must be digits (spaces and dashes allowed)")
        }
        let file = try OrchestrationSetup.routing(routingPath, json: json, output: output)
        let ledger = try ledgerPath.map(OrchestrationSetup.ledger)
        let planner: RoutePlanner
        if let ledger {
            let router = try await OrchestrationSetup.router(file, ledger: ledger, seed: seed)
            planner = RoutePlanner(file: file, table: router.table, picker: router.picker, breakers: router.breakers,
                                   authRates: router.authRates)
        } else {
            planner = RoutePlanner(file: file, picker: WeightedPicker(seed: seed))
        }
        merchant["country"] = merchant["country"] ?? country
        let bin = number.map { String($0.prefix(8)) }
        var issuer = issuerText
        if issuer == nil, let bin { issuer = try await SandboxProcessor().lookup(bin: bin).issuerCountry }
        let network = networkText ?? number.flatMap { defaults.cardNetworks.detect($0)?.rawValue }
        let facts = RoutingFacts(methodType: method, cardNetwork: network, bin: bin, issuerCountry: issuer, currency: currency,
                                 amount: amount, merchant: merchant, customer: customer)
        let explanation = planner.explain(facts, paymentKey: key)
        try write(explanation, json: json, output: output)
        return explanation.route == nil ? 1 : 0
    }

    private static func write(_ explanation: RouteExplanation, json: Bool, output: Output) throws {
        let chosen = explanation.verdicts.last { $0.matched }
        let never = DeclineCategory.allCases.filter(DeclineCategory.neverFallBack.contains).map(\.rawValue)
        if json {
            let facts = explanation.facts
            let formatter = ISO8601DateFormatter()
            try output.json(CommandJSON.Explanation(
                route: JSONNullable(explanation.route), reasons: chosen?.reasons ?? [],
                routes: explanation.verdicts.map { .init(name: $0.route, matched: $0.matched, reasons: $0.reasons) },
                processors: explanation.steps.map { step in
                    .init(name: step.processor, weight: JSONNullable(step.weight), skipped: step.skipped,
                          skippedUntil: JSONNullable(step.skippedUntil.map { formatter.string(from: $0) }),
                          skippedFor: JSONNullable(step.currencyNotTaken ? "currency" : step.skipped ? "circuit-open" : nil),
                          authRate: JSONNullable(step.authRate))
                },
                fallbackOn: explanation.fallbackOn.map(\.rawValue), neverFallBack: never, weighted: explanation.weighted,
                facts: .init(methodType: facts.methodType, cardNetwork: JSONNullable(facts.cardNetwork),
                             bin: JSONNullable(facts.bin.map { String($0.prefix(6)) }), issuerCountry: JSONNullable(facts.issuerCountry),
                             currency: facts.currency, amount: facts.amount, merchant: facts.merchant, customer: facts.customer)))
            return
        }
        guard let route = explanation.route else {
            output.line("no route matches this payment")
            for verdict in explanation.verdicts { output.line("  \(verdict.route): \(verdict.reasons.joined(separator: "; "))") }
            return
        }
        output.line("route: \(route)")
        output.line("because: \(chosen?.reasons.joined(separator: "; ") ?? "")")
        for verdict in explanation.verdicts where !verdict.matched {
            output.line("  not \(verdict.route): \(verdict.reasons.joined(separator: "; "))")
        }
        output.line("processors\(explanation.weighted ? " (first picked by weight for --key)" : ""):")
        for (index, step) in explanation.steps.enumerated() {
            var line = "  \(index + 1). \(step.processor)"
            if let weight = step.weight { line += "  weight \(weight)" }
            if let rate = step.authRate {
                line += "  auth rate \(String(format: "%.3f", rate)) (\(Int((step.observations ?? 0).rounded())) recent outcomes)"
            }
            if step.currencyNotTaken {
                line += "  SKIPPED: does not take \(explanation.facts.currency)"
            } else if step.skipped {
                line += "  SKIPPED: circuit open" + (step.skippedUntil.map { " until \(ISO8601DateFormatter().string(from: $0))" } ?? " (probe running)")
            }
            output.line(line)
        }
        output.line("falls back on: \(explanation.fallbackOn.map(\.rawValue).joined(separator: ", ").nonEmpty ?? "nothing")")
        output.line("never falls back: \(never.joined(separator: ", "))")
    }
}

extension String {
    /// nil for the empty string.
    var nonEmpty: String? { isEmpty ? nil : self }
}
