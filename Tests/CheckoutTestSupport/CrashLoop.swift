import CheckoutLocking
import Foundation
import Spawning

/// The SIGKILL loop of the orchestration crash tests (in-process sandboxes and `sandbox-psp` over
/// HTTP share it): each run starts a child that prints `started KEY` before each payment, kills it
/// with SIGKILL after a seeded number of such lines plus a seeded pause (so the kill lands inside
/// an attempt), then lets the test restart and settle.
public enum CrashLoop {
    /// What a loop saw: the runs whose child ended before its kill, the payments in the ledger after
    /// the last run, and how many of them the reconciles settled.
    public struct Summary: Sendable, CustomStringConvertible {
        public var endedEarly: [Int] = []
        public var payments = 0
        public var reconciled = 0
        /// What `settle` found wrong, per run.
        public var runProblems: [String] = []
        /// Empty when every child was killed, more payments than runs were made, and at least one
        /// kill left an attempt for `reconcile()` (else the test did not test reconcile).
        public var problems: [String] {
            var problems = runProblems
            if !endedEarly.isEmpty { problems.append("the child ended before the kill in runs \(endedEarly)") }
            if payments <= 20 { problems.append("only \(payments) payments") }
            if reconciled == 0 { problems.append("no kill landed in an attempt: the test did not test reconcile") }
            return problems
        }
        public var description: String { "\(payments) payments over the kills, \(reconciled) settled by reconcile" }
    }

    /// Runs `runs` kills, each after 1-12 `started` lines and a pause below `maxPauseMicros` (longer
    /// for a child whose payments take longer, e.g. over HTTP). `start(run)` spawns the child with its
    /// standard output on a pipe; `settle(run)` restarts over the same ledger and returns the payments
    /// in the ledger, how many its `reconcile()` settled, and what it found wrong. Prints the summary
    /// after `label`.
    public static func run(_ runs: Int, seed: UInt64, maxPauseMicros: Int = 2500, label: String, start: (Int) throws -> ChildProcess,
                           settle: (Int) async throws -> (payments: Int, reconciled: Int, problems: [String])) async throws -> Summary {
        var random = SeededRandom(seed: seed)
        var summary = Summary()
        for run in 0..<runs {
            let child = try start(run)
            let killAfter = 1 + random.below(12)
            let extraMicros = UInt32(random.below(maxPauseMicros))
            if await !kill(child, afterStartedLines: killAfter, pauseMicros: extraMicros) { summary.endedEarly.append(run) }
            let settled = try await settle(run)
            summary.payments = settled.payments
            summary.reconciled += settled.reconciled
            summary.runProblems += settled.problems.map { "run \(run): \($0)" }
        }
        print("\(label): \(summary)")
        return summary
    }

    /// Reads `child`'s standard output until `count` lines begin with `started`, waits
    /// `pauseMicros`, sends SIGKILL and waits for the exit. False when the output ended first.
    public static func kill(_ child: ChildProcess, afterStartedLines count: Int, pauseMicros: UInt32) async -> Bool {
        guard let output = child.standardOutput else { return false }
        return await onOwnThread { () -> Bool in
            var buffer: [UInt8] = []
            var started = 0
            while started < count {
                let chunk = output.availableData
                if chunk.isEmpty { return false }
                buffer += chunk
                started = buffer.split(separator: 10).filter { $0.starts(with: Array("started".utf8)) }.count
            }
            usleep(pauseMicros)
            child.kill()
            _ = child.waitUntilExit()
            return true
        }
    }
}

/// Charges counted at the processors checked against a ledger's payments: no payment charged
/// twice, a succeeded payment charged exactly once, any other never, and no charge outside them.
public enum ChargeAudit {
    /// One payment of the ledger: its id, whether it succeeded, and the keys its attempts charged under
    /// (as the `charges` dictionary spells them).
    public struct Payment: Sendable {
        public let id: String
        public let succeeded: Bool
        public let chargeKeys: Set<String>
        public init(id: String, succeeded: Bool, chargeKeys: Set<String>) {
            self.id = id; self.succeeded = succeeded; self.chargeKeys = chargeKeys
        }

        /// A payment whose attempts went to `processors`, each charging under `attemptKey(processor)`;
        /// its keys are spelled `PROCESSOR/ATTEMPT-KEY`.
        public init(id: String, succeeded: Bool, processors: [String], attemptKey: (String) -> String) {
            self.init(id: id, succeeded: succeeded, chargeKeys: Set(processors.map { "\($0)/\(attemptKey($0))" }))
        }
    }

    /// Every violation for payments given as (id, succeeded, the processors of its attempts, its
    /// stable key), each attempt charging under `attemptKey(stableKey, processor)`, spelled
    /// `PROCESSOR/ATTEMPT-KEY` in `charges`.
    public static func problems(payments: [(id: String, succeeded: Bool, processors: [String], stableKey: String)],
                                attemptKey: (String, String) -> String, charges: [String: Int]) -> [String] {
        problems(payments: payments.map { payment in
            Payment(id: payment.id, succeeded: payment.succeeded, processors: payment.processors) { attemptKey(payment.stableKey, $0) }
        }, charges: charges)
    }

    /// Every violation, as text (empty when the charges are right).
    public static func problems(payments: [Payment], charges: [String: Int]) -> [String] {
        var problems: [String] = []
        var counted = 0
        for payment in payments {
            let total = payment.chargeKeys.reduce(0) { $0 + (charges[$1] ?? 0) }
            counted += total
            if total > 1 { problems.append("payment \(payment.id) charged \(total) times") }
            if total != (payment.succeeded ? 1 : 0) {
                problems.append("payment \(payment.id) \(payment.succeeded ? "succeeded" : "did not succeed") with \(total) charges")
            }
        }
        if counted != charges.values.reduce(0, +) { problems.append("a charge belongs to no payment of the ledger") }
        return problems
    }
}
