import CheckoutCoreTesting
import CheckoutLocking
import Testing

@Suite(.timeLimit(.minutes(2)))
struct TestClockTests {
    @Test func aSleeperWakesWhenTimePassesItsDeadlineAndNotBefore() async throws {
        let clock = TestClock()
        let start = clock.now
        let sleeper = Task {
            try await clock.sleep(for: .seconds(30))
            return clock.now
        }
        #expect(await clock.waitForSleeper())
        clock.advance(by: .seconds(29))
        #expect(clock.sleeperCount == 1, "29 s is before the deadline")
        clock.advance(by: .seconds(5))
        #expect(clock.sleeperCount == 0)
        #expect(try await sleeper.value == start.advanced(by: .seconds(34)))
    }

    @Test func advancingToAnInstantWakesOnlyTheSleepersDueByThen() async throws {
        let clock = TestClock()
        let start = clock.now
        let early = Task { try await clock.sleep(until: start.advanced(by: .seconds(10)), tolerance: nil) }
        let late = Task { try await clock.sleep(until: start.advanced(by: .seconds(60)), tolerance: nil) }
        #expect(await clock.waitForSleeper())
        #expect(await clock.waitForSleeper())
        clock.advance(to: start.advanced(by: .seconds(10)))
        try await early.value
        #expect(clock.sleeperCount == 1)
        clock.advance(to: start)  // never backwards
        #expect(clock.now == start.advanced(by: .seconds(10)))
        clock.advance(by: .seconds(-5))
        #expect(clock.now == start.advanced(by: .seconds(10)))
        clock.advance(by: .seconds(50))
        try await late.value
    }

    @Test func aDeadlineAlreadyPassedReturnsAtOnce() async throws {
        let clock = TestClock()
        let start = clock.now
        clock.advance(by: .seconds(5))
        try await clock.sleep(until: start.advanced(by: .seconds(1)), tolerance: nil)
        #expect(clock.sleeperCount == 0)
        #expect(clock.sleepHistory == [.seconds(-4)], "the wait is recorded as deadline - now")
    }

    @Test func cancellingASleeperWakesItWithCancellationError() async throws {
        let clock = TestClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(1)) }
        #expect(await clock.waitForSleeper())
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test func anAutomaticClockMovesItselfAndRunsTheHookOnEverySleep() async throws {
        let hooks = Locked<[Int]>([])
        let clock = TestClock.automatic(startMillis: 0) { number in hooks.withLock { $0.append(number) } }
        try await clock.sleep(for: .seconds(2))
        try await clock.sleep(for: .milliseconds(500))
        #expect(clock.nowMillis() == 2_500)
        #expect(clock.sleepHistory == [.seconds(2), .milliseconds(500)])
        #expect(hooks.withLock { $0 } == [1, 2])
        #expect(clock.sleeperCount == 0)
    }

    @Test func waitsForSleepersByCountAndAdvancesToTheNextDeadline() async throws {
        let clock = TestClock()
        let first = Task { try await clock.sleep(for: .seconds(3)) }
        let second = Task { try await clock.sleep(for: .seconds(1)) }
        await clock.waitForSleepers(2)
        #expect(Set(clock.pendingSleeps) == [.seconds(3), .seconds(1)])
        #expect(clock.advanceToNextDeadline() == .seconds(1))
        try await second.value
        #expect(clock.advanceToNextDeadline() == .seconds(2))
        try await first.value
        #expect(clock.advanceToNextDeadline() == nil)
        await clock.waitForSleepsStarted(2)
    }

    @Test func itServesAsAnyClockOfDuration() async throws {
        let clock: any Clock<Duration> = TestClock()
        #expect(clock.minimumResolution == .zero)
    }
}
