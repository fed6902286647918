import CheckoutCore
import CheckoutOrchestration
import CheckoutOrchestrationPostgres
import Foundation

/// What the orchestration commands share: reading `--routing FILE` (exit 1 with every error and its
/// JSON path), opening `--ledger DB` (a SQLite file, or a `postgres://` URL for PostgreSQL), and
/// building the router over the file's processors.
enum OrchestrationSetup {
    /// The help lines of the two options.
    static let routingHelp = "--routing FILE      The routing file (processors, routes, fallback policy; see Config/routing.json)."
    static let ledgerHelp = "--ledger DB         The ledger: a SQLite file (created when missing) or a postgres:// URL."
    /// `--routing FILE`, declared (`suffix` ends its help line, e.g. ` (reconcile)`).
    static func routingOption(suffix: String = "") -> OptionSpec {
        .valued("--routing", "FILE", help: "The routing file (processors, routes, fallback policy; see Config/routing.json)." + suffix)
    }
    /// `--ledger DB`, declared.
    static let ledgerOption = OptionSpec.valued("--ledger", "DB",
                                                help: "The ledger: a SQLite file (created when missing) or a postgres:// URL.")

    /// Loads and validates the routing file. With `json`, the errors are also printed on stdout as
    /// `{"errors":[{"path","message"}]}`.
    /// - Throws: `CommandFailure` listing every error with its JSON path (exit 1).
    static func routing(_ path: String, json: Bool = false, output: Output? = nil) throws -> RoutingFile {
        do {
            return try RoutingFileLoader.load(contentsOf: URL(fileURLWithPath: path))
        } catch {
            if json, let output {
                try? output.json(CommandJSON.RoutingErrors(errors: error.issues.map { .init(path: $0.path, message: $0.message) }))
            }
            throw CommandFailure(message: "\(path): \(error.description)")
        }
    }

    /// Opens the ledger.
    static func ledger(_ location: String) throws -> PaymentLedger {
        do {
            if location.hasPrefix("postgres://") || location.hasPrefix("postgresql://") {
                return PaymentLedger(storage: try PostgresLedgerStorage(url: location))
            }
            return try PaymentLedger.sqlite(path: location)
        } catch {
            throw CommandFailure(message: "cannot open the ledger: \(error)")
        }
    }

    /// The router over the file's processors, with its circuits rebuilt from the ledger.
    static func router(_ file: RoutingFile, ledger: PaymentLedger, seed: UInt64 = 0) async throws -> PaymentRouter {
        let router: PaymentRouter
        do {
            router = try PaymentRouter(file: file, processors: try ProcessorFactory().makeAll(file), ledger: ledger,
                                       picker: WeightedPicker(seed: seed), binLookup: SandboxProcessor())
        } catch {
            throw CommandFailure(message: "cannot build the processors: \(error)")
        }
        try await router.restoreCircuits()
        return router
    }

    /// Parses repeatable `KEY=VALUE` metadata options.
    static func metadata(_ texts: [String], option: String) throws -> [String: String] {
        var result: [String: String] = [:]
        for text in texts {
            let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty else {
                throw UsageError(message: "\(option) must be KEY=VALUE, got \(CommandSupport.quote(text))")
            }
            result[parts[0]] = parts[1]
        }
        return result
    }

    /// One text line of an attempt.
    static func attemptLine(_ attempt: AttemptRecord) -> String {
        var line = "  \(attempt.sequence). \(attempt.processor)  \(attempt.status.rawValue)"
        if let category = attempt.category { line += "  \(category.rawValue)" }
        if let raw = attempt.rawCode { line += "  raw \(raw)" }
        if let note = attempt.note { line += "  (\(note))" }
        if attempt.authentication != nil { line += "  3DS carried" }
        return line
    }
}
