import CheckoutCore
import CheckoutVault
import HTTPTransport
import Foundation

/// `checkout vault sync`: runs one full sync round of one customer's local vault against the
/// remote vault server and prints what it did.
///
/// Exit 0 after a successful round (rejected ops are dropped, listed on stderr and counted),
/// 1 when the server cannot be reached or the round fails (pending ops are kept in the outbox),
/// 2 for a bad command line. `VaultCommand` routes `checkout vault sync` here.
enum VaultSyncCommand: DeclaredCommand {
    static let spec = CommandSpec(
        name: "vault sync",
        summary: "Sync one customer's local vault with the remote vault server",
        usage: """
            USAGE: checkout vault sync --db PATH --merchant M --customer C --remote URL
                                       [--api-key KEY | --ephemeral-key SECRET] [--ca-bundle PEM] [--json]
                                       [--timeout SECONDS] [--page-size N] [--batch-size N] [--max-pages N]
            """,
        about: """
            Runs one sync round: pulls the customer's change feed from the server (page by page, each page
            applied with its cursor in one transaction), then pushes the local outbox in batches. Rejected
            operations are dropped from the outbox and listed on stderr. When the server cannot be reached
            nothing is lost: pending operations stay queued for the next sync.

            The key must belong to --merchant: the client asks the server whose key it is (GET /v1/whoami)
            and refuses to sync another merchant's customer (nothing is pushed or pulled; exit 1,
            merchant-mismatch). A round pulls at most --max-pages pages or for 120 seconds; a round that
            stops early says "partial" and the next sync resumes from its cursor. Vault tokens are masked
            in text output and rejection lines (•••1a2b); --json prints them whole.
            """,
        options: [
            OptionSpec.valued("--db", "PATH", help: "The local vault database (created if missing).").isRequired(),
            OptionSpec.valued("--merchant", "M", help: "The merchant id of the local vault rows.").isRequired(),
            OptionSpec.valued("--customer", "C", help: "The customer to sync.").isRequired(),
            OptionSpec.valued("--remote", "URL", help: "The vault server, e.g. https://vault.example.com:8443 (plain http:// only",
                              "to loopback; no user or password in it).").isRequired(),
            .valued("--api-key", "KEY", help: "The merchant's API key, for a backend (default: the VAULT_API_KEY",
                    "environment variable, which keeps the key out of the process list)."),
            .valued("--ephemeral-key", "SECRET", help: "An ephemeral key for this customer, as a device holds it (default: the",
                    "VAULT_EPHEMERAL_KEY environment variable). Exactly one of the two kinds."),
            .valued("--ca-bundle", "PEM", help: "Trust the CAs in this PEM file instead of the system store (a private CA)."),
            .flag("--json", help: "Print {\"pulled\", \"pushed\", \"rejected\", \"pending\", \"cursor\", \"partial\"} on one line."),
            .integer("--timeout", "SECONDS", range: 1...600, help: "Per-request timeout, 1...600 (default 15)."),
            .integer("--page-size", "N", range: 1...1000, help: "Changes per pulled page, 1...1000 (default 500)."),
            .integer("--batch-size", "N", range: 1...500, help: "Operations per pushed batch, 1...500 (default 200)."),
            .integer("--max-pages", "N", range: 1...100_000, help: "Pages pulled per round at most, 1...100000 (default 1000)."),
            .showHelp,
        ],
        footer: """
            EXIT CODES: 0 synced; 1 the server could not be reached, its certificate was refused (the message
            names the cause: certificate not trusted, host name mismatch, expired), the key was refused
            (key-expired, key-revoked, unauthorized) or the sync failed (pending operations are kept);
            2 usage error.
            """)

    static func run(_ arguments: inout ParsedCommandLine, output: Output) async throws -> Int32 {
        if arguments.flag("--help") {
            output.line(help)
            return 0
        }
        let json = arguments.flag("--json")
        let databasePath = try arguments.required("--db")
        let merchant = try arguments.required("--merchant")
        let customer = try arguments.required("--customer")
        let remoteText = try arguments.required("--remote")
        let apiKeyOption = arguments.value("--api-key")
        let ephemeralOption = arguments.value("--ephemeral-key")
        let caBundle = arguments.value("--ca-bundle")
        let timeout = try arguments.integer("--timeout", default: 15)
        let pageSize = try arguments.integer("--page-size", default: 500)
        let batchSize = try arguments.integer("--batch-size", default: 200)
        let maxPages = try arguments.integer("--max-pages", default: SyncEngine.Configuration.defaultMaxPagesPerRound)
        try arguments.finish()

        guard !merchant.isEmpty, !customer.isEmpty else {
            throw UsageError(message: "--merchant and --customer must not be empty")
        }
        let remoteURL = try CommandSupport.remoteURL(remoteText)
        let environment = ProcessInfo.processInfo.environment
        let credentials: VaultCredentials
        switch (apiKeyOption, ephemeralOption) {
        case (let apiKey?, nil):
            credentials = .apiKey(apiKey)
        case (nil, let secret?):
            credentials = .ephemeral { _ in EphemeralVaultKey(secret: secret, expiresAt: .distantFuture) }
        case (nil, nil):
            if let apiKey = environment["VAULT_API_KEY"], !apiKey.isEmpty, environment["VAULT_EPHEMERAL_KEY"] == nil {
                credentials = .apiKey(apiKey)
            } else if let secret = environment["VAULT_EPHEMERAL_KEY"], !secret.isEmpty, environment["VAULT_API_KEY"] == nil {
                credentials = .ephemeral { _ in EphemeralVaultKey(secret: secret, expiresAt: .distantFuture) }
            } else {
                throw UsageError(message: "give exactly one of --api-key or --ephemeral-key (or VAULT_API_KEY / VAULT_EPHEMERAL_KEY)")
            }
        default:
            throw UsageError(message: "--api-key and --ephemeral-key exclude each other: a device holds only its ephemeral key")
        }
        if case .apiKey(let key) = credentials, key.isEmpty { throw UsageError(message: "--api-key must not be empty") }
        if let caBundle, !FileManager.default.isReadableFile(atPath: caBundle) {
            throw CommandFailure(message: "cannot read the CA bundle \(caBundle)")
        }

        let scope = VaultScope(merchantId: merchant, customerId: customer)
        let store: VaultStore
        do {
            store = try await VaultStore.open(path: databasePath)
        } catch {
            throw CommandFailure(message: "cannot open the vault database \(databasePath): \(error)")
        }
        let remote = HTTPRemoteVault(baseURL: remoteURL, credentials: credentials, timeout: TimeInterval(timeout),
                                     resourceTimeout: TimeInterval(timeout), tls: TLSOptions(caBundle: caBundle))
        let engine = await SyncEngine.open(store: store, remote: remote,
                                           configuration: .init(scopes: [scope], includePendingScopes: false, pageSize: pageSize,
                                                                pushBatchSize: batchSize, interval: nil, retry: .noRetry,
                                                                maxPagesPerRound: maxPages))

        let outcome: Result<SyncReport, any Error>
        do {
            outcome = .success(try await engine.syncNow(scope: scope))
        } catch {
            outcome = .failure(error)
        }
        switch outcome {
        case .success(let report):
            for rejection in report.rejections {
                output.error("rejected: \(rejection.kind.rawValue) of \(VaultTokenMask.mask(rejection.token)): \(rejection.verdict.rawValue) "
                             + "(\(rejection.reason))" + (rejection.message.map { ": \($0)" } ?? ""))
            }
            if json {
                try output.json(CommandJSON.SyncRound(pulled: report.pulled, pushed: report.pushed, rejected: report.rejected,
                                                      pending: report.pending, cursor: JSONNullable(report.cursor),
                                                      partial: report.isPartial))
            } else {
                output.line("pulled \(report.pulled), pushed \(report.pushed), rejected \(report.rejected), "
                            + "pending \(report.pending), cursor \(report.cursor ?? "none")"
                            + (report.partial.map { ", partial: stopped at the \($0); sync again to continue" } ?? ""))
            }
            return 0
        case .failure(let error):
            let pending = (try? await store.pendingCount(scope: scope)).map(String.init) ?? "unknown"
            let failure = (error as? SyncError) ?? SyncError(.storeFailure, "\(error)")
            let message: String
            if failure.code == .unreachable {
                message = "cannot reach the vault server at \(remoteURL.absoluteString) (\(failure.message)); "
                    + "\(pending) pending operation(s) kept for the next sync"
            } else if failure.code == .untrustedServer {
                message = "refusing the vault server at \(remoteURL.absoluteString): \(failure.message); "
                    + "\(pending) pending operation(s) kept for the next sync"
            } else {
                message = "sync failed: \(failure.message); \(pending) pending operation(s) kept for the next sync"
            }
            if json {
                try output.json(CommandJSON.Failure(error: .init(code: failure.code.rawValue,
                                                                 message: PrintedTextRedactor.redact(failure.message)),
                                                    pending: JSONNullable(Int(pending))))
            }
            output.error("error: \(PrintedTextRedactor.redact(message))")
            return 1
        }
    }
}
