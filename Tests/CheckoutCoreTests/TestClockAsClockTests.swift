import CheckoutCore
import CheckoutCoreTesting
import Testing

/// The test clock as the engine sees it: an `any Clock<Duration>`, with a wall reading beside it.
@Suite("TestClock as the sync engine sees it")
struct TestClockAsClockTests {
    @Test("a sleep through any Clock<Duration> is recorded with its length and wakes only when advanced past it")
    func sleepThroughTheExistential() async throws {
        let manual = TestClock()
        let clock: any Clock<Duration> = manual
        let sleeper = Task { try await clock.sleep(for: .seconds(30)) }
        await manual.waitForSleepers(1)
        #expect(manual.pendingSleeps == [.seconds(30)])
        manual.advance(by: .seconds(29))
        #expect(manual.pendingSleeps == [.seconds(30)])
        manual.advance(by: .seconds(1))
        try await sleeper.value
        #expect(manual.pendingSleeps.isEmpty)
        #expect(manual.sleepHistory == [.seconds(30)])
    }

    @Test("a deadline already reached returns at once and is recorded; a cancelled sleeper throws")
    func pastDeadlinesAndCancellation() async throws {
        let manual = TestClock()
        try await manual.sleep(until: manual.now.advanced(by: .seconds(-1)))
        try await manual.sleep(for: .zero)
        #expect(manual.sleepHistory == [.seconds(-1), .zero])
        let sleeper = Task { try await manual.sleep(for: .seconds(5)) }
        await manual.waitForSleepers(1)
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(manual.pendingSleeps.isEmpty)
    }

    @Test("the wall clock and a stopwatch on the clock move with advance, and only with it")
    func wallClockAndStopwatchMoveTogether() {
        let manual = TestClock(startMillis: 1_800_000_000_000)
        let wall = manual.wallClock
        let watch = Stopwatch(manual)
        #expect(wall.nowMillis == 1_800_000_000_000)
        #expect(wall.now.timeIntervalSince1970 == 1_800_000_000)
        manual.advance(by: .milliseconds(1500))
        #expect(wall.nowMillis == 1_800_000_001_500)
        #expect(watch.elapsed == .milliseconds(1500))
        #expect(manual.now.duration(to: manual.now.advanced(by: .seconds(2))) == .seconds(2))
    }
}
