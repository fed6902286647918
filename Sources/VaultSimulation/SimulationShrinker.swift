import Foundation

/// Makes a failing schedule short: removes steps (halves, then quarters, down to single steps)
/// while the run still breaks the same rule, so a failure reads as the few steps that cause it.
public enum SimulationShrinker {
    /// The shortest schedule found within `budget` runs that still breaks `check`.
    public static func shrink(_ schedule: SimulationSchedule, failing check: String, directory: URL,
                              budget: Int = 400) async -> SimulationSchedule {
        let kept = await shrink(schedule.numbers, budget: budget) { candidate in
            let result = await VaultSimulation.run(schedule.keeping(Set(candidate)), directory: directory)
            return result.violations.contains { $0.check == check }
        }
        return schedule.keeping(Set(kept))
    }

    /// The shortest sub-list of `steps` found within `budget` tries for which `stillFails` holds
    /// (`steps` itself must fail): chunks of half the list are removed while the rest still fails,
    /// then quarters, down to single steps.
    public static func shrink(_ steps: [Int], budget: Int, stillFails: ([Int]) async -> Bool) async -> [Int] {
        var kept = steps
        var tries = 0
        var chunk = max(1, kept.count / 2)
        while tries < budget {
            var removed = false
            var start = 0
            while start < kept.count, tries < budget {
                let candidate = Array(kept[..<start] + kept[min(kept.count, start + chunk)...])
                tries += 1
                if await stillFails(candidate) {
                    kept = candidate
                    removed = true
                } else {
                    start += chunk
                }
            }
            if !removed {
                if chunk == 1 { break }
                chunk = max(1, chunk / 2)
            }
        }
        return kept
    }
}
