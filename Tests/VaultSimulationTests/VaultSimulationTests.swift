import CheckoutLocking
import Foundation
import Testing
import VaultSimulation

/// The simulator itself: it replays a seed exactly, the seeds that found bugs stay fixed, and a
/// run's checks see what they claim to see.
@Suite("The sync simulator", .timeLimit(.minutes(10)))
struct VaultSimulationTests {
    let directory = FileManager.default.temporaryDirectory

    @Test("a seed replays request for request: the same trace, answers and verdict twice",
          arguments: [UInt64(7), 42, 65, 1014])
    func deterministic(seed: UInt64) async {
        let first = await VaultSimulation.run(SimulationSchedule(seed: seed), directory: directory)
        let second = await VaultSimulation.run(SimulationSchedule(seed: seed), directory: directory)
        #expect(first.traceDigest == second.traceDigest)
        #expect(first.requests == second.requests && first.faults == second.faults && first.appliedOps == second.appliedOps)
        #expect(first.violations == second.violations)
        // The run did something: requests crossed the network, faults were injected, ops applied.
        #expect(first.requests > 0)
    }

    @Test("another seed is another run")
    func seedsDiffer() async {
        let one = await VaultSimulation.run(SimulationSchedule(seed: 7), directory: directory)
        let other = await VaultSimulation.run(SimulationSchedule(seed: 8), directory: directory)
        #expect(one.traceDigest != other.traceDigest)
    }

    /// Seeds whose shrunk schedules found bugs, each fixed with its own test elsewhere:
    /// - 42: a pull from the start paged below a purge horizon older than itself got 410 on its
    ///   second page, forever (the cursor now carries the horizon it was issued at);
    /// - 65: an applied `setDefault` raised the row's version over fields another device had
    ///   changed meanwhile (a row's version now moves only with the server's fields);
    /// - 1014: a cursor issued on an empty feed (sequence 0) was taken for "from the start", so its
    ///   device never learned that the tombstone of the card it had pushed was purged; and, with a
    ///   setDefault queued on that card, its refusal (not-found) left the card shown;
    /// - 360: deleting on not-found must not touch a card the server never held (its creation was
    ///   still queued);
    /// - 3186: a replayed upsert answer moved the default the device knew past a newer default on
    ///   another card (the default now comes from the feed alone);
    /// - 3574: a conflict's server state was skipped at the row's own version, over fields the row
    ///   only guessed;
    /// - 8220: after a reset, a card kept for its queued setDefault stayed although the server had
    ///   deleted it and purged the tombstone (the replayed answer said "applied").
    @Test("the seeds that found bugs pass, whole and shrunk", arguments: [
        (UInt64(42), [28, 29, 34, 35, 36, 38, 40, 46]),
        (UInt64(65), [4, 11, 13, 30, 32, 36, 38, 40, 45, 51, 52, 54, 57]),
        (UInt64(1014), [11, 14, 15, 21, 24, 26]),
        (UInt64(1014), [11, 14, 15, 20, 21, 24, 26]),
        (UInt64(360), [3, 5, 15, 22, 30, 31, 37, 39, 49, 50, 58, 65]),
        (UInt64(3186), [0, 4, 14, 16, 20, 22, 23, 24, 25, 27]),
        (UInt64(3574), [0, 6, 11, 15, 16, 21, 23, 32, 34, 36, 52, 54, 61, 65]),
        (UInt64(8220), [18, 24, 28, 39, 41, 46, 48, 51, 64]),
    ])
    func regressions(seed: UInt64, steps: [Int]) async {
        let shrunk = await VaultSimulation.run(SimulationSchedule(seed: seed, only: Set(steps)), directory: directory)
        #expect(shrunk.violations == [])
        let whole = await VaultSimulation.run(SimulationSchedule(seed: seed), directory: directory)
        #expect(whole.violations == [])
        #expect(whole.quiescentAfterPasses != nil)
    }

    @Test("100 seeds converge, in memory and on SQLite, with faults injected and ops applied")
    func seeds() async {
        var faults = 0
        var applied = 0
        var passed = 0
        for seed in UInt64(5000)..<5100 {
            let schedule = SimulationSchedule(seed: seed, storage: seed % 4 == 3 ? .sqlite : .memory)
            let result = await VaultSimulation.run(schedule, directory: directory)
            #expect(result.violations == [], "seed \(seed)")
            if result.passed { passed += 1 }
            faults += result.faults
            applied += result.appliedOps
        }
        #expect(passed == 100)
        #expect(faults > 100)
        #expect(applied > 300)
    }

    @Test("a shrunk schedule keeps its step numbers, so a card is named after the step that added it")
    func keepingSteps() {
        let full = SimulationSchedule(seed: 65)
        let kept = full.keeping(Set(full.numbers.prefix(5)))
        #expect(kept.numbers == Array(full.numbers.prefix(5)))
        #expect(kept.parameters == full.parameters)
        #expect(SimulationSchedule(seed: 65, only: Set(kept.numbers)).numbers == kept.numbers)
    }
}

@Suite("The shrinker")
struct SimulationShrinkerTests {
    @Test("it finds the few steps a failure needs, in order", arguments: [[3, 17], [0], [41], [5, 6, 7], [2, 30, 31, 44]])
    func minimal(needed: [Int]) async {
        let steps = Array(0..<45)
        let shrunk = await SimulationShrinker.shrink(steps, budget: 1_000) { candidate in
            Set(needed).isSubset(of: candidate)
        }
        #expect(shrunk == needed)
    }

    @Test("it stops at its budget and returns a list that still fails")
    func budget() async {
        let tries = Locked(0)
        let shrunk = await SimulationShrinker.shrink(Array(0..<64), budget: 5) { candidate in
            tries.withLock { $0 += 1 }
            return candidate.contains(9)
        }
        #expect(tries.withLock { $0 } == 5)
        #expect(shrunk.contains(9))
    }
}
