import CheckoutCore
import CheckoutVault
import Foundation

/// `checkout vault sync`: runs one full sync round of one customer's local vault against the
/// remote vault server and prints what it did.
///
/// Exit 0 after a successful round (rejected ops are dropped, listed on stderr and counted),
/// 1 when the server cannot be reached or the round fails (pending ops are kept in the outbox),
/// 2 for a bad command line. `VaultCommand` routes `checkout vault sync` here.
enum VaultSyncCommand: CLICommand {
    static let name = "vault sync"
    static let summary = "Sync one customer's local vault with the remote vault server"
    static let help = """
        USAGE: checkout vault sync --db PATH --merchant M --customer C --remote URL [--api-key KEY] [--json]
                                   [--timeout SECONDS] [--page-size N] [--batch-size N]

        Runs one sync round: pulls the customer's change feed from the server (page by page, each page
        applied with its cursor in one transaction), then pushes the local outbox in batches. Rejected
        operations are dropped from the outbox and listed on stderr. When the server cannot be reached
        nothing is lost: pending operations stay queued for the next sync.

        OPTIONS:
          --db PATH           The local vault database (created if missing).
          --merchant M        The merchant id of the local vault rows.
          --customer C        The customer to sync.
          --remote URL        The vault server, e.g. http://127.0.0.1:8080.
          --api-key KEY       The merchant's API key (default: the VAULT_API_KEY environment variable,
                              which keeps the key out of the process list).
          --json              Print {"pulled", "pushed", "rejected", "pending", "cursor"} on one line.
          --timeout SECONDS   Per-request timeout, 1...600 (default 15).
          --page-size N       Changes per pulled page, 1...1000 (default 500).
          --batch-size N      Operations per pushed batch, 1...500 (default 200).
          --help              Show this help.

        EXIT CODES: 0 synced; 1 the server could not be reached or the sync failed (pending operations
        are kept); 2 usage error.
        """

    static func run(_ arguments: inout Arguments, output: Output) async throws -> Int32 {
        if arguments.flag("--help") {
            output.line(help)
            return 0
        }
        let json = arguments.flag("--json")
        let databasePath = try arguments.required("--db")
        let merchant = try arguments.required("--merchant")
        let customer = try arguments.required("--customer")
        let remoteText = try arguments.required("--remote")
        let apiKeyOption = try arguments.option("--api-key")
        let timeout = try arguments.integer("--timeout", default: 15, range: 1...600)
        let pageSize = try arguments.integer("--page-size", default: 500, range: 1...1000)
        let batchSize = try arguments.integer("--batch-size", default: 200, range: 1...500)
        try arguments.finish()

        guard !merchant.isEmpty, !customer.isEmpty else {
            throw UsageError(message: "--merchant and --customer must not be empty")
        }
        guard let remoteURL = URL(string: remoteText), let scheme = remoteURL.scheme?.lowercased(),
              scheme == "http" || scheme == "https", remoteURL.host != nil else {
            throw UsageError(message: "--remote must be an http:// or https:// URL with a host, got \(CommandSupport.quote(remoteText))")
        }
        guard let apiKey = apiKeyOption ?? ProcessInfo.processInfo.environment["VAULT_API_KEY"], !apiKey.isEmpty else {
            throw UsageError(message: "missing required option --api-key (or the VAULT_API_KEY environment variable)")
        }

        let scope = VaultScope(merchantId: merchant, customerId: customer)
        let store: VaultStore
        do {
            store = try VaultStore(path: databasePath)
        } catch {
            throw CommandFailure(message: "cannot open the vault database \(databasePath): \(error)")
        }
        let remote = HTTPRemoteVault(baseURL: remoteURL, apiKey: apiKey, timeout: TimeInterval(timeout),
                                     resourceTimeout: TimeInterval(timeout))
        let engine = SyncEngine(store: store, remote: remote,
                                configuration: .init(scopes: [scope], includePendingScopes: false, pageSize: pageSize,
                                                     pushBatchSize: batchSize, interval: nil, retry: .noRetry))

        let outcome: Result<SyncReport, any Error>
        do {
            outcome = .success(try await engine.syncNow(scope: scope))
        } catch {
            outcome = .failure(error)
        }
        switch outcome {
        case .success(let report):
            for rejection in report.rejections {
                output.error("rejected: \(rejection.kind.rawValue) of \(rejection.token): \(rejection.verdict.rawValue) "
                             + "(\(rejection.reason))" + (rejection.message.map { ": \($0)" } ?? ""))
            }
            if json {
                try output.json([
                    "pulled": report.pulled, "pushed": report.pushed, "rejected": report.rejected,
                    "pending": report.pending, "cursor": CommandSupport.nullable(report.cursor),
                ] as [String: Any])
            } else {
                output.line("pulled \(report.pulled), pushed \(report.pushed), rejected \(report.rejected), "
                            + "pending \(report.pending), cursor \(report.cursor ?? "none")")
            }
            return 0
        case .failure(let error):
            let pending = (try? store.pendingCount(scope: scope)).map(String.init) ?? "unknown"
            let failure = (error as? SyncError) ?? SyncError(.storeFailure, "\(error)")
            let message: String
            if failure.code == .unreachable {
                message = "cannot reach the vault server at \(remoteURL.absoluteString) (\(failure.message)); "
                    + "\(pending) pending operation(s) kept for the next sync"
            } else {
                message = "sync failed: \(failure.message); \(pending) pending operation(s) kept for the next sync"
            }
            if json {
                try output.json(["error": ["code": failure.code.rawValue, "message": failure.message],
                                 "pending": Int(pending) ?? NSNull()] as [String: Any])
            }
            output.error("error: \(PaymentDataRedactorBridge.redact(message))")
            return 1
        }
    }
}
