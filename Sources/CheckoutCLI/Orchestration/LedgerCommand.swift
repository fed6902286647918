import CheckoutCore
import CheckoutOrchestration
import Foundation

/// `checkout ledger list|show ID|reconcile`: the orchestration ledger.
enum LedgerCommand: DeclaredCommand {
    static let spec = CommandSpec(
        name: "ledger",
        summary: "List, show and reconcile the payment ledger of `pay --routing`",
        usage: """
            USAGE: checkout ledger list --ledger DB [--limit N] [--json]
                   checkout ledger show ID --ledger DB [--json]
                   checkout ledger reconcile --ledger DB --routing FILE [--json]
            """,
        about: """
            list       The newest payment intents first: id, state, route, amount, attempts.
            show ID    One intent with every attempt (processor, idempotency key, status, category, raw
                       code, note such as circuit-open), its captures, voids and refunds, and the events
                       written to its outbox.
            reconcile  After a crash: every intent that is not terminal is settled through its open
                       attempt's processor status call (never sent to another processor). Charged:
                       succeeded; declined or not found: failed; status call down: stays unknown.
                       Captures, voids and refunds left pending or unknown are settled the same way.
            """,
        options: [
            OrchestrationSetup.ledgerOption.isRequired(),
            OrchestrationSetup.routingOption(suffix: " (reconcile)")
                .only("reconcile", refusing: { _ in "--routing is only for ledger reconcile" }),
            .integer("--limit", "N", range: 1...10_000, help: "Intents to list (default 50, at most 10000)."),
            .flag("--json", help: "list: {\"intents\":[...]}; show: the intent with \"attempts\" and \"events\";",
                  "reconcile: {\"reconciled\":[{\"paymentId\",\"from\",\"to\"}],\"operations\":[{\"paymentId\",",
                  "\"sequence\",\"operation\",\"from\",\"to\"}],\"stillOpen\":N}."),
        ],
        footer: """
            STATES: processing, requires_action, unknown, succeeded, failed, requires-capture, captured,
            partially-captured, voided, refunded, partially-refunded.
            ATTEMPTS: pending, requires_action, unknown, succeeded, declined, failed, skipped.

            EXIT CODES: 0 ok (reconcile: nothing left open); 1 not found, a still-open payment after
            reconcile, an invalid routing file or an unusable ledger; 2 usage error.
            """)

    private enum Subcommand: String, CaseIterable { case list, show, reconcile }

    static func run(_ arguments: inout ParsedCommandLine, output: Output) async throws -> Int32 {
        let json = arguments.flag("--json")
        let ledgerPath = try arguments.required("--ledger")
        let routingPath = arguments.value("--routing")
        let limit = try arguments.integer("--limit", default: 50)
        let subcommand: Subcommand = try arguments.choice("subcommand")
        let id = subcommand == .show ? arguments.positional() : nil
        try arguments.finish()
        if subcommand == .show && id == nil { throw UsageError(message: "ledger show needs the payment id (pi_...)") }
        if subcommand == .reconcile && routingPath == nil { throw UsageError(message: "ledger reconcile needs --routing FILE") }
        try arguments.check(subcommand: subcommand.rawValue)
        let ledger = try OrchestrationSetup.ledger(ledgerPath)
        switch subcommand {
        case .list:
            let intents = try await ledger.intents(limit: limit)
            if json {
                try output.json(CommandJSON.IntentList(intents: intents.map(CommandJSON.IntentSummary.init)))
            } else {
                for intent in intents {
                    output.line("\(intent.id)  \(intent.state.rawValue)  \(intent.route)  \(intent.amount) \(intent.currency)  "
                                + "\(intent.attempts.count) attempt\(intent.attempts.count == 1 ? "" : "s")")
                }
            }
            return 0
        case .show:
            guard let id, let intent = try await ledger.intent(id: id) else {
                throw CommandFailure(message: "no payment \(CommandSupport.quote(id ?? "")) in the ledger")
            }
            let events = try await ledger.events(paymentId: intent.id)
            if json {
                try output.json(CommandJSON.IntentDetail(summary: CommandJSON.IntentSummary(intent),
                                                         attempts: intent.attempts.map(CommandJSON.Attempt.init),
                                                         events: events.map { .init(id: $0.id, type: $0.type) }, intent: intent))
            } else {
                output.line("\(intent.id)  \(intent.state.rawValue)  route \(intent.route)  \(intent.amount) \(intent.currency)  \(intent.card ?? "")")
                for attempt in intent.attempts { output.line(OrchestrationSetup.attemptLine(attempt)) }
                for operation in intent.operations {
                    var line = "  \(operation.kind.rawValue) \(operation.sequence)  \(operation.status.rawValue)  \(operation.amount) \(intent.currency)"
                    if let raw = operation.rawCode { line += "  raw \(raw)" }
                    output.line(line)
                }
                for event in events { output.line("  event \(event.type)  \(event.id)") }
            }
            return 0
        case .reconcile:
            let file = try OrchestrationSetup.routing(routingPath ?? "", json: json, output: output)
            let router = try await OrchestrationSetup.router(file, ledger: ledger)
            let report = try await router.reconcile()
            if json {
                try output.json(CommandJSON.Reconciliation(
                    reconciled: report.entries.map { .init(paymentId: $0.intentId, from: $0.from.rawValue, to: $0.to.rawValue) },
                    operations: report.operations.map {
                        .init(paymentId: $0.intentId, sequence: $0.sequence, operation: $0.kind.rawValue, from: $0.from.rawValue,
                              to: $0.to.rawValue)
                    },
                    stillOpen: report.stillOpen))
            } else {
                for entry in report.operations {
                    output.line("\(entry.intentId)  \(entry.kind.rawValue) \(entry.sequence)  \(entry.from.rawValue) -> \(entry.to.rawValue)")
                }
                for entry in report.entries {
                    if entry.to.isTerminal {
                        output.line("\(entry.intentId)  \(entry.from.rawValue) -> \(entry.to.rawValue)")
                    } else {
                        output.line("\(entry.intentId)  \(entry.to.rawValue), still open: the processor's status call did not settle it")
                    }
                }
                let settled = report.entries.count + report.operations.count - report.stillOpen
                output.line("\(settled) settled, \(report.stillOpen) still open"
                            + (report.stillOpen > 0 ? " (run ledger reconcile again later)" : ""))
            }
            return report.stillOpen == 0 ? 0 : 1
        }
    }
}
