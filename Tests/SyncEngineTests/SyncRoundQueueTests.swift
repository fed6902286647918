import CheckoutCore
@testable import CheckoutVault
import CheckoutTestSupport
import Testing

/// The sync engine's round rules as a transition table: every state with every event, the
/// expected queue and actions written out by hand per cell.
@Suite struct SyncRoundQueueTests {
    typealias Queue = SyncRoundQueue
    typealias Slot = Queue.Slot

    static let a = VaultScope(merchantId: "m", customerId: "a")
    static let b = VaultScope(merchantId: "m", customerId: "b")

    static let states: [String: Queue] = [
        "empty": Queue(),
        "A running": Queue(slots: [a: Slot(running: 0)], nextId: 1),
        "A running, one queued": Queue(slots: [a: Slot(running: 0, queued: 1)], nextId: 2),
        "A and B running": Queue(slots: [a: Slot(running: 0), b: Slot(running: 1)], nextId: 2),
    ]

    static let events: [String: Queue.Event] = [
        "request A": .request(a), "request B": .request(b),
        "A's round 0 finished": .finished(a, id: 0), "A's round 1 finished": .finished(a, id: 1),
        "B's round 1 finished": .finished(b, id: 1),
    ]

    static let rules = TransitionTable(states: states, events: events) { $0.handle($1) }
    typealias Cell = TransitionTable<Queue, Queue.Event, [Queue.Action]>.Cell

    static func cell(_ state: String, _ event: String, _ expected: Queue? = nil, _ actions: [Queue.Action] = []) -> Cell {
        Cell(state, event, expected, actions)
    }

    static let table: [Cell] = [
        cell("empty", "request A", Queue(slots: [a: Slot(running: 0)], nextId: 1), [.start(id: 0, after: nil)]),
        cell("empty", "request B", Queue(slots: [b: Slot(running: 0)], nextId: 1), [.start(id: 0, after: nil)]),
        cell("empty", "A's round 0 finished"),
        cell("empty", "A's round 1 finished"),
        cell("empty", "B's round 1 finished"),

        // A request while a round runs queues one behind it; another customer's runs at once. Only
        // the running round's finish counts (its task is then dropped); a queued or unknown one's does not.
        cell("A running", "request A", Queue(slots: [a: Slot(running: 0, queued: 1)], nextId: 2), [.start(id: 1, after: 0)]),
        cell("A running", "request B", Queue(slots: [a: Slot(running: 0), b: Slot(running: 1)], nextId: 2),
             [.start(id: 1, after: nil)]),
        cell("A running", "A's round 0 finished", Queue(slots: [:], nextId: 1), [.forget(id: 0)]),
        cell("A running", "A's round 1 finished"),
        cell("A running", "B's round 1 finished"),

        // Every further request shares the queued round, which runs once the running one ends.
        cell("A running, one queued", "request A", nil, [.join(id: 1)]),
        cell("A running, one queued", "request B",
             Queue(slots: [a: Slot(running: 0, queued: 1), b: Slot(running: 2)], nextId: 3), [.start(id: 2, after: nil)]),
        cell("A running, one queued", "A's round 0 finished", Queue(slots: [a: Slot(running: 1)], nextId: 2), [.forget(id: 0)]),
        cell("A running, one queued", "A's round 1 finished"),
        cell("A running, one queued", "B's round 1 finished"),

        cell("A and B running", "request A",
             Queue(slots: [a: Slot(running: 0, queued: 2), b: Slot(running: 1)], nextId: 3), [.start(id: 2, after: 0)]),
        cell("A and B running", "request B",
             Queue(slots: [a: Slot(running: 0), b: Slot(running: 1, queued: 2)], nextId: 3), [.start(id: 2, after: 1)]),
        cell("A and B running", "A's round 0 finished", Queue(slots: [b: Slot(running: 1)], nextId: 2), [.forget(id: 0)]),
        cell("A and B running", "A's round 1 finished"),
        cell("A and B running", "B's round 1 finished", Queue(slots: [a: Slot(running: 0)], nextId: 2), [.forget(id: 1)]),
    ]

    @Test func theTableHasEveryStateWithEveryEventOnce() {
        #expect(Self.rules.coverageProblems(Self.table) == [])
    }

    @Test(arguments: table)
    func transition(_ cell: Cell) throws {
        #expect(try Self.rules.mismatch(cell) == nil)
    }
}

/// The background loop's waits after rounds, from a seeded generator.
@Suite struct SyncLoopBackoffTests {
    static let interval = Duration.seconds(300)

    @Test func afterASuccessTheTimerOrAnyTriggerEndsTheWait() {
        var backoff = SyncLoopBackoff()
        var random = RetryPolicy.Generator(seed: 1)
        let wait = backoff.wait(after: .succeeded, interval: Self.interval, retry: .standard, random: &random)
        #expect(wait == SyncLoopBackoff.Wait(duration: .seconds(300), accepting: [.localWrite, .reconnect]))
        #expect(backoff.wait(after: .succeeded, interval: nil, retry: .standard, random: &random)
                == SyncLoopBackoff.Wait(duration: nil, accepting: [.localWrite, .reconnect]))
    }

    @Test func failedRoundsBackOffBetweenHalfTheCeilingAndTheCeilingAndOnlyAReconnectCutsItShort() {
        var backoff = SyncLoopBackoff()
        var random = RetryPolicy.Generator(seed: 7)
        // The standard policy's ceilings: 0.5 s doubling to 60 s.
        let ceilings: [Double] = [0.5, 1, 2, 4, 8, 16, 32, 60, 60, 60]
        for (index, ceiling) in ceilings.enumerated() {
            let wait = backoff.wait(after: .failed(retryAfter: nil), interval: Self.interval, retry: .standard, random: &random)
            let seconds = wait.duration?.inSeconds ?? -1
            #expect(seconds >= ceiling / 2 && seconds <= ceiling, "failure \(index + 1): \(seconds) s")
            #expect(wait.accepting == [.reconnect])
            #expect(backoff.failedRounds == index + 1)
        }
        // A success resets the count: the next failure waits as the first did.
        _ = backoff.wait(after: .succeeded, interval: Self.interval, retry: .standard, random: &random)
        let again = backoff.wait(after: .failed(retryAfter: nil), interval: Self.interval, retry: .standard, random: &random)
        #expect((0.25...0.5).contains(again.duration?.inSeconds ?? -1))
        #expect(backoff.failedRounds == 1)
    }

    @Test func theServersRetryAfterIsHonouredUpToTheCap() {
        var backoff = SyncLoopBackoff()
        var random = RetryPolicy.Generator(seed: 3)
        #expect(backoff.wait(after: .failed(retryAfter: .seconds(30)), interval: nil, retry: .standard, random: &random).duration
                == .seconds(30))
        #expect(backoff.wait(after: .failed(retryAfter: .seconds(7200)), interval: nil, retry: .standard, random: &random).duration
                == .seconds(3600))
    }
}
