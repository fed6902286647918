import CheckoutCore
import CheckoutOrchestration
import Foundation

/// `checkout capture|void|refund --routing FILE --ledger DB --payment ID [--amount MINOR] [--key K] [--json]`:
/// an operation on a payment made by `pay --routing`, at the processor that holds it.
enum OperationCommand {
    static func spec(_ kind: OperationKind) -> CommandSpec {
        let name = kind.rawValue
        let summary = switch kind {
        case .capture: "Capture a payment authorized with --capture manual (all or part)"
        case .void: "Void a payment authorized with --capture manual, before any capture"
        case .refund: "Refund all or part of a captured payment"
        }
        let about = switch kind {
        case .capture: """
            Takes all (default) or --amount of the payment's authorization at the processor that holds
            it; a partial capture releases the rest. The payment moves to captured or partially-captured.
            """
        case .void: """
            Releases the payment's authorization before any capture; the payment moves to voided.
            """
        case .refund: """
            Gives back all that is left (default) or --amount of what was captured. Several partial
            refunds add up to at most the captured amount; the ledger's storage refuses more, even
            when refunds run at once.
            """
        }
        var options: [OptionSpec] = [
            OrchestrationSetup.routingOption().isRequired(),
            OrchestrationSetup.ledgerOption.isRequired(),
            OptionSpec.valued("--payment", "ID", help: "The payment (pi_... from `pay --routing` or `ledger list`).").isRequired(),
        ]
        if kind != .void {
            options.append(.integer("--amount", "MINOR", range: 1...100_000_000_000,
                                    help: "Minor units (default: all that is left to \(name))."))
        }
        options += [
            .valued("--key", "KEY", help: "The operation's idempotency key (default: a new UUID). The same key again",
                    "reports the same \(name) and sends nothing; another operation under it is refused."),
            .flag("--json", help: #"Print {"paymentId","operation","status","amount","currency","captured","refunded","#,
                  #""error":{"code","message"}|null}."#),
        ]
        return CommandSpec(
            name: name,
            summary: summary,
            usage: "USAGE: checkout \(name) --routing FILE --ledger DB --payment ID\(kind == .void ? "" : " [--amount MINOR]") [--key KEY] [--json]",
            about: about,
            options: options,
            footer: """
                STATUS: succeeded; pending (accepted, settled later: `ledger reconcile`); failed; unknown (no
                answer: `ledger reconcile` asks the processor).
                ERRORS: amount-exceeds-captured, not-capturable, not-voidable, already-voided, not-refundable,
                operation-open, idempotency-key-reused, not-found, outcome-unknown, or the processor's raw code.

                EXIT CODES: 0 the processor accepted (succeeded or pending); 1 refused, failed or unknown, an
                invalid routing file or an unusable ledger; 2 usage error.
                """)
    }

    static func run(_ kind: OperationKind, _ arguments: inout ParsedCommandLine, output: Output) async throws -> Int32 {
        let json = arguments.flag("--json")
        let routingPath = try arguments.required("--routing")
        let ledgerPath = try arguments.required("--ledger")
        let paymentId = try arguments.required("--payment")
        let amount: Int? = kind == .void || arguments.value("--amount") == nil ? nil : try arguments.integer("--amount", default: 0)
        let key = arguments.value("--key") ?? SafeIdentifier.random()
        try arguments.finish()
        guard !key.isEmpty, key.utf8.count <= 200 else { throw UsageError(message: "--key must be 1 to 200 characters") }
        let file = try OrchestrationSetup.routing(routingPath, json: json, output: output)
        let ledger = try OrchestrationSetup.ledger(ledgerPath)
        let router = try await OrchestrationSetup.router(file, ledger: ledger)
        let result: OperationResult = switch kind {
        case .capture: try await router.capture(paymentId: paymentId, amount: amount, idempotencyKey: key)
        case .void: try await router.void(paymentId: paymentId, idempotencyKey: key)
        case .refund: try await router.refund(paymentId: paymentId, amount: amount, idempotencyKey: key)
        }
        let error = result.errorCode.map { CommandJSON.Failure.Detail(code: $0, message: result.errorMessage ?? $0) }
        if json {
            try output.json(CommandJSON.Operation(paymentId: result.paymentId, operation: result.operation.rawValue,
                                                  status: result.status.rawValue, amount: result.amount, currency: result.currency,
                                                  captured: result.captured, refunded: result.refunded, error: JSONNullable(error)))
        } else {
            var line = "\(result.operation.rawValue) \(result.status.rawValue)  \(result.paymentId)  \(result.amount) \(result.currency)"
            line += "  captured \(result.captured)  refunded \(result.refunded)"
            if let error { line += "  \(error.code): \(error.message)" }
            output.line(line)
        }
        return result.status == .succeeded || result.status == .pending ? 0 : 1
    }
}

/// `checkout capture`.
enum CaptureCommand: DeclaredCommand {
    static let spec = OperationCommand.spec(.capture)
    static func run(_ arguments: inout ParsedCommandLine, output: Output) async throws -> Int32 {
        try await OperationCommand.run(.capture, &arguments, output: output)
    }
}

/// `checkout void`.
enum VoidCommand: DeclaredCommand {
    static let spec = OperationCommand.spec(.void)
    static func run(_ arguments: inout ParsedCommandLine, output: Output) async throws -> Int32 {
        try await OperationCommand.run(.void, &arguments, output: output)
    }
}

/// `checkout refund`.
enum RefundCommand: DeclaredCommand {
    static let spec = OperationCommand.spec(.refund)
    static func run(_ arguments: inout ParsedCommandLine, output: Output) async throws -> Int32 {
        try await OperationCommand.run(.refund, &arguments, output: output)
    }
}
