import CheckoutCoreTesting
import Testing

@Suite(.timeLimit(.minutes(2)))
struct TestClockTests {
    @Test func aSleeperWakesWhenTimePassesItsDeadlineAndNotBefore() async throws {
        let clock = TestClock()
        let sleeper = Task {
            try await clock.sleep(for: .seconds(30))
            return clock.now
        }
        #expect(await clock.waitForSleeper())
        clock.advance(by: .seconds(29))
        #expect(clock.sleeperCount == 1, "29 s is before the deadline")
        clock.advance(by: .seconds(5))
        #expect(clock.sleeperCount == 0)
        #expect(try await sleeper.value == TestClock.Instant(offset: .seconds(34)))
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
        clock.advance(by: .seconds(5))
        try await clock.sleep(until: TestClock.Instant(offset: .seconds(1)), tolerance: nil)
        #expect(clock.sleeperCount == 0)
    }

    @Test func cancellingASleeperWakesItWithCancellationError() async throws {
        let clock = TestClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(1)) }
        #expect(await clock.waitForSleeper())
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test func itServesAsAnyClockOfDuration() async throws {
        let clock: any Clock<Duration> = TestClock()
        #expect(clock.minimumResolution == .zero)
    }
}
