import CheckoutCore
import CheckoutLocking
import CheckoutTestSupport
@testable import CheckoutOrchestration
import Foundation
import Spawning
import Testing

/// Item 3 and 4 under SIGKILL: a child process paying through the router is killed in the middle of
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
        var random = SeededRandom(seed: TestSeed.seed(18_003, for: "sigkillThenReconcile"))
        var reconciledOpen = 0
        var paymentsSeen = 0
        for run in 0..<20 {
            let child = try ChildProcess(executable: executable.path,
                                         arguments: [ledgerPath, directory.path, "r\(run)", "500"],
                                         standardOutput: .pipe, standardError: .file(directory.appendingPathComponent("child-\(run).log").path))
            let output = try #require(child.standardOutput)
            let killAfter = 1 + random.below(12)
            let extraMicros = UInt32(random.below(2500))
            let finishedEarly = await onOwnThread { () -> Bool in
                var buffer: [UInt8] = []
                var started = 0
                while started < killAfter {
                    let chunk = output.availableData
                    if chunk.isEmpty { return true }
                    buffer += chunk
                    started = buffer.split(separator: 10).filter { $0.starts(with: Array("started".utf8)) }.count
                }
                usleep(extraMicros)
                child.kill()
                _ = child.waitUntilExit()
                return false
            }
            #expect(!finishedEarly, "the child ended before the kill (run \(run))")

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
            let router = try PaymentRouter(file: file, processors: processors, ledger: ledger)
            let report = try await router.reconcile()
            reconciledOpen += report.entries.count
            #expect(report.stillOpen == 0, "run \(run): \(report)")
            #expect(try await ledger.openIntents().isEmpty)

            // No payment charged twice; a succeeded payment charged exactly once, a failed one never.
            var charged: [String: Int] = [:]
            for (name, journal) in journals {
                for row in try journal.rows() where row.charged { charged["\(name)/\(row.key)", default: 0] += 1 }
            }
            let intents = try await ledger.intents(limit: 10_000)
            paymentsSeen = intents.count
            var chargedKeys = 0
            for intent in intents {
                let charges = Set(intent.attempts.map(\.processor)).reduce(0) { total, name in
                    total + (charged["\(name)/\(AttemptKey.derive(paymentKey: intent.stableKey, processor: name))"] ?? 0)
                }
                chargedKeys += charges
                #expect(charges <= 1, "payment \(intent.id) charged \(charges) times")
                #expect(charges == (intent.state == .succeeded ? 1 : 0), "\(intent.id) is \(intent.state.rawValue) with \(charges) charges")
            }
            #expect(chargedKeys == charged.values.reduce(0, +), "a charge belongs to no payment of the ledger")
        }
        #expect(paymentsSeen > 20)
        #expect(reconciledOpen > 0, "no kill landed in an attempt: the test did not test reconcile")
        print("crash test: \(paymentsSeen) payments over 20 kills, \(reconciledOpen) settled by reconcile")
    }
}
