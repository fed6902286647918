import Foundation
import VaultSimulation

// vault-sim: the deterministic simulator of the vault's sync system (see `VaultSimulation`).
//
//   vault-sim --seeds 2000 [--from 1] [--storage mixed|memory|sqlite|postgres]
//   vault-sim --seed 1234 [--steps 3,7,12] [--storage sqlite] [--print-schedule]
//
// A range ends with the line "N seeds passed", or with the failing seed, its shrunk schedule and
// the command that replays it (exit 1). Usage errors exit 2.

let usage = """
    usage: vault-sim --seeds COUNT [--from FIRST] [--jobs N] [--storage mixed|memory|sqlite|postgres]
           vault-sim --seed SEED [--steps N,N,...] [--storage memory|sqlite|postgres] [--print-schedule] [--trace] [--no-shrink]

    Runs the sync system (real stores, engines, server and storage) under a seeded simulated
    network, clock and crashes, and checks that every device converges on the server's state.
    --seeds COUNT   run seeds FIRST..FIRST+COUNT-1 (FIRST is 1 by default); report seeds per second
    --jobs N        seeds run at once (default: one per processor)
    --seed SEED     run one seed; --steps keeps only those step numbers (a shrunk schedule)
    --storage       the server's storage: memory, sqlite, postgres (CHECKOUTKIT_POSTGRES_URL), or
                    mixed (every fourth seed on SQLite, the rest in memory; the default for --seeds)
    --print-schedule  print the schedule before running it
    --trace         print every device's rows, queue and known server default after each step
    --no-shrink     report a failure without shrinking it first
    """

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("vault-sim: \(message)\n\(usage)\n".utf8))
    exit(2)
}

var arguments = Array(CommandLine.arguments.dropFirst())
var options: [String: String] = [:]
var flags = Set<String>()
while let argument = arguments.first {
    arguments.removeFirst()
    switch argument {
    case "--seeds", "--from", "--seed", "--steps", "--storage", "--jobs":
        guard let value = arguments.first else { fail("\(argument) needs a value") }
        arguments.removeFirst()
        options[argument] = value
    case "--print-schedule", "--no-shrink", "--trace":
        flags.insert(argument)
    case "--help", "-h":
        print(usage)
        exit(0)
    default:
        fail("unexpected argument '\(argument)'")
    }
}

@MainActor func storage(named name: String, seed: UInt64) -> SimulationStorage {
    switch name {
    case "memory": return .memory
    case "sqlite": return .sqlite
    case "mixed": return seed % 4 == 3 ? .sqlite : .memory
    case "postgres":
        guard let url = ProcessInfo.processInfo.environment["CHECKOUTKIT_POSTGRES_URL"], !url.isEmpty else {
            fail("--storage postgres needs CHECKOUTKIT_POSTGRES_URL (scripts/with-postgres.sh sets it)")
        }
        return .postgres(url)
    default: fail("--storage takes mixed, memory, sqlite or postgres, not '\(name)'")
    }
}

@MainActor func number(_ option: String) -> UInt64? {
    guard let text = options[option] else { return nil }
    guard let value = UInt64(text) else { fail("\(option) takes a whole number, not '\(text)'") }
    return value
}

// The stores and the server's SQLite file live in memory-backed /dev/shm where there is one (the
// same SQLite files, without the disk's syncs: a crash here is a process's, never the power's).
let base = FileManager.default.isWritableFile(atPath: "/dev/shm") && ProcessInfo.processInfo.environment["TMPDIR"] == nil
    ? URL(fileURLWithPath: "/dev/shm") : FileManager.default.temporaryDirectory
let directory = base.appendingPathComponent("vault-sim-\(getpid())")
try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

/// Reports a failing schedule: shrinks it, prints it and the command that replays it.
@MainActor func report(_ schedule: SimulationSchedule, _ result: SimulationResult) async -> Never {
    print("seed \(schedule.seed) FAILED (\(schedule.storage), \(schedule.steps.count) steps):")
    for violation in result.violations { print("  \(violation)") }
    var shrunk = schedule
    if !flags.contains("--no-shrink"), let check = result.violations.first?.check {
        shrunk = await SimulationShrinker.shrink(schedule, failing: check, directory: directory)
        print("shrunk to \(shrunk.steps.count) of \(schedule.steps.count) steps, still failing '\(check)':")
    }
    print(shrunk)
    let replay = await VaultSimulation.run(shrunk, directory: directory)
    for violation in replay.violations { print("  \(violation)") }
    print("replay: swift run -c release vault-sim --seed \(schedule.seed) --storage \(schedule.storage) --steps "
          + shrunk.numbers.map(String.init).joined(separator: ","))
    try? FileManager.default.removeItem(at: directory)
    exit(1)
}

if let seed = number("--seed") {
    guard options["--seeds"] == nil else { fail("--seed and --seeds exclude each other") }
    let only = options["--steps"].map { text -> Set<Int> in
        Set(text.split(separator: ",").map { part -> Int in
            guard let step = Int(part) else { fail("--steps takes step numbers separated by commas") }
            return step
        })
    }
    let schedule = SimulationSchedule(seed: seed, storage: storage(named: options["--storage"] ?? "memory", seed: seed), only: only)
    if flags.contains("--print-schedule") { print(schedule) }
    let trace: (@Sendable (String) -> Void)? = flags.contains("--trace") ? { @Sendable line in print(line) } : nil
    let result = await VaultSimulation.run(schedule, directory: directory, trace: trace)
    guard result.passed else { await report(schedule, result) }
    print("seed \(seed): \(result.requests) requests, \(result.faults) faults, \(result.appliedOps) ops applied, "
          + "quiet after pass \(result.quiescentAfterPasses ?? 0) of at most \(result.passBound)")
    print("1 seeds passed")
} else if let count = number("--seeds") {
    guard options["--steps"] == nil else { fail("--steps goes with --seed") }
    let first = number("--from") ?? 1
    let jobs = Int(number("--jobs") ?? UInt64(max(1, ProcessInfo.processInfo.activeProcessorCount)))
    let started = ContinuousClock.now
    var requests = 0
    var faults = 0
    var ops = 0
    var failed: (SimulationSchedule, SimulationResult)?
    // Seeds run `jobs` at a time (each alone is sequential and deterministic); the first failing
    // seed in seed order is reported.
    let storageName = options["--storage"] ?? "mixed"
    let schedules = (first..<(first + count)).map { SimulationSchedule(seed: $0, storage: storage(named: storageName, seed: $0)) }
    await withTaskGroup(of: (SimulationSchedule, SimulationResult).self) { group in
        var next = 0
        func launch() {
            guard next < schedules.count, failed == nil else { return }
            let schedule = schedules[next]
            next += 1
            group.addTask { (schedule, await VaultSimulation.run(schedule, directory: directory)) }
        }
        for _ in 0..<max(1, jobs) { launch() }
        while let (schedule, result) = await group.next() {
            requests += result.requests
            faults += result.faults
            ops += result.appliedOps
            if !result.passed, failed.map({ schedule.seed < $0.0.seed }) ?? true { failed = (schedule, result) }
            launch()
        }
    }
    if let (schedule, result) = failed { await report(schedule, result) }
    let elapsed = (ContinuousClock.now - started).components
    let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
    print(String(format: "%llu seeds in %.1f s (%.1f seeds/s, %d at a time): %d requests, %d faults injected, %d ops applied",
                 count, seconds, Double(count) / max(seconds, 0.001), jobs, requests, faults, ops))
    print("\(count) seeds passed")
} else {
    fail("give --seed SEED or --seeds COUNT")
}
