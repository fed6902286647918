import CheckoutCore
import CheckoutLocking
import CheckoutTestSupport
@testable import CheckoutOrchestration
import Foundation
import Spawning
import Testing

/// A child process paying through the router is killed in the middle of
/// attempts 20 times; after each kill, `reconcile()` against the processors' journals leaves every
/// payment terminal, and no payment is charged twice.
@Suite(.serialized) struct CrashReconcileTests {
    /// The child's routing file (`Sources/orchestration-crash-child`), for the parent's reconcile.
    static let routing = """
        { "processors": [ { "name": "psp-a", "kind": "sandbox" }, { "name": "psp-b", "kind": "sandbox" } ],
          "routes": [ { "name": "all", "processors": ["psp-a", "psp-b"], "fallbackOn": ["processor-error", "network-error"] } ] }
        """

    static func childExecutable() throws -> URL {
        let bundle = Bundle.main.bundleURL
        let candidates = [bundle.deletingLastPathComponent().appendingPathComponent("orchestration-crash-child"),
                          bundle.appendingPathComponent("orchestration-crash-child"),
                          URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                              .deletingLastPathComponent().appendingPathComponent(".build/debug/orchestration-crash-child")]
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            Issue.record("orchestration-crash-child is not built: run `swift build --build-tests` first")
            throw CancellationError()
        }
        return found
    }

    @Test("20 SIGKILLs mid-attempt, then reconcile: every payment terminal, none charged twice")
    func sigkillThenReconcile() async throws {
        let executable = try Self.childExecutable()
        let directory = try OrchestrationTemp.directory("crash")
        let ledgerPath = directory.appendingPathComponent("ledger.sqlite").path
        let summary = try await CrashLoop.run(20, seed: TestSeed.seed(18_003, for: "sigkillThenReconcile"), label: "crash test") { run in
            try ChildProcess(executable: executable.path, arguments: [ledgerPath, directory.path, "r\(run)", "500"],
                             standardOutput: .pipe, standardError: .file(directory.appendingPathComponent("child-\(run).log").path))
        } settle: { run in
            // "Restart": fresh processors over the same journals, a fresh router over the same ledger.
            let file = try RoutingFileLoader.load(Array(Self.routing.utf8))
            var journals: [String: SandboxJournal] = [:]
            var processors: [String: any RoutableProcessor] = [:]
            for name in ["psp-a", "psp-b"] {
                let journal = try SandboxJournal(path: directory.appendingPathComponent("\(name).sqlite").path)
                journals[name] = journal
                processors[name] = try ScriptedSandboxProcessor(name: name, journal: journal)
            }
            let ledger = try PaymentLedger.sqlite(path: ledgerPath)
            // The processors lived in the killed child (their journals are all that is left), so a
            // request cannot land after the kill: "not found" is proof at once (no grace needed).
            let router = try PaymentRouter(file: file, processors: processors, ledger: ledger, notFoundGrace: 0)
            let report = try await router.reconcile()
            #expect(report.stillOpen == 0, "run \(run): \(report)")
            #expect(try await ledger.openIntents().isEmpty)

            // No payment charged twice; a succeeded payment charged exactly once, a failed one never.
            var charged: [String: Int] = [:]
            for (name, journal) in journals {
                for row in try journal.rows() where row.charged { charged["\(name)/\(row.key)", default: 0] += 1 }
            }
            let intents = try await ledger.intents(limit: 10_000)
            return (intents.count, report.entries.count, ChargeAudit.problems(
                payments: intents.map { ($0.id, $0.state == .succeeded, $0.attempts.map(\.processor), $0.stableKey) },
                attemptKey: AttemptKey.derive(paymentKey:processor:), charges: charged))
        }
        #expect(summary.problems == [])
        // The child pays with a full card number (Sources/orchestration-crash-child): nothing it left
        // behind (ledger, sandbox journals, their WAL files, its logs) holds that number.
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
        let scan = PaymentDataByteScanner.scan(files: files, for: ["4242424242424242"])
        #expect(scan.bytesScanned > 0)
        #expect(scan.hits.isEmpty, "\(scan.hits)")
    }
}

