import CheckoutOrchestration
import CheckoutTestSupport
import Foundation
import Spawning
import Testing

/// Unknown outcomes and reconcile under SIGKILL across process boundaries: `orchestration-crash-child` pays through a
/// router whose processors are `kind: "http"` (two `sandbox-psp` processes that outlive it) and is
/// killed in the middle of attempts 20 times; after each kill a restarted router on the same ledger
/// reconciles through the processes' status calls, and the charges the processes count show no
/// payment charged twice.
@Suite(.serialized, .timeLimit(.minutes(5))) struct OverHTTPCrashTests {
    @Test("20 SIGKILLs of a child paying over HTTP, then reconcile: every payment terminal, none charged twice at sandbox-psp")
    func sigkillThenReconcileOverHTTP() async throws {
        let executable = try #require(ChildProcess.builtExecutable("orchestration-crash-child"),
                                      "orchestration-crash-child is not built next to the tests")
        // psp-a charges, times out after charging, or fails in turn (the in-process child's script, repeated
        // because this psp-a lives through every run); psp-b charges. No breaker: every payment tries psp-a.
        let turns = #""succeed", "timeout-after-charge", "processor-error", "succeed", "network-error", "timeout-after-charge""#
        let script = "[" + Array(repeating: turns, count: 60).joined(separator: ", ") + "]"
        let harness = try await OverHTTPScenarioTests.HTTPHarness.start(
            names: ["psp-a", "psp-b"], behaviours: ["psp-a": #"{"createPayment": \#(script)}"#],
            routes: #"[ { "name": "all", "processors": ["psp-a", "psp-b"], "fallbackOn": ["processor-error", "network-error"] } ]"#,
            breaker: #"{"consecutiveFailures": 0, "failureRate": 0, "window": 1, "coolDownSeconds": 1}"#)
        defer { Task { await harness.stop() } }
        let routingPath = harness.directory.appendingPathComponent("routing.json").path
        try Data(harness.routing.utf8).write(to: URL(fileURLWithPath: routingPath))

        let summary = try await CrashLoop.run(20, seed: TestSeed.seed(18_013, for: "sigkillThenReconcileOverHTTP"),
                                                 maxPauseMicros: 20_000, label: "crash test over HTTP") { run in
            try ChildProcess(executable: executable.path,
                             arguments: [harness.ledgerPath, harness.directory.path, "r\(run)", "500", routingPath],
                             standardOutput: .pipe,
                             standardError: .file(harness.directory.appendingPathComponent("child-\(run).log").path))
        } settle: { run in
            // "Restart": a fresh router over the same ledger and the same sandbox-psp processes.
            let ledger = try PaymentLedger.sqlite(path: harness.ledgerPath)
            // sandbox-psp outlives the child: a request the child sent before it was killed may still
            // be arriving or being answered. Once a sandbox has no connection open but the one
            // asking, nothing of the child's is in flight there, and "not found" is final: one
            // reconcile with no grace settles every attempt, on a loaded machine as on an idle one.
            for (name, server) in harness.servers {
                let quiet = await eventually(poll: .milliseconds(20)) { (try? await server.ledger())?.openConnections == 1 }
                #expect(quiet, "run \(run): \(name) still has a request of the killed child in flight")
            }
            let router = try PaymentRouter.make(file: try RoutingFileLoader.load(Array(harness.routing.utf8)), ledger: ledger,
                                                notFoundGrace: 0)
            let report = try await router.reconcile()
            let stillOpen = report.stillOpen
            #expect(stillOpen == 0, "run \(run): \(report)")
            #expect(try await ledger.openIntents().isEmpty, "run \(run)")

            var charged: [String: Int] = [:]
            for (name, server) in harness.servers {
                for (key, count) in try await server.ledger().chargesByKey { charged["\(name)/\(key)"] = count }
            }
            let intents = try await ledger.intents(limit: 10_000)
            let problems = ChargeAudit.problems(
                payments: intents.map { ($0.id, $0.state == .succeeded, $0.attempts.map(\.processor), $0.stableKey) },
                attemptKey: AttemptKey.derive(paymentKey:processor:), charges: charged)
            return (intents.count, report.entries.count, problems)
        }
        #expect(summary.problems == [])
    }
}
