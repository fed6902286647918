import CheckoutCore
import CheckoutLocking
import Foundation
import Testing

@Suite struct WallClockTests {
    @Test func fixedClockReadsTheSameInstantAsDateAndMillis() {
        let clock = WallClock.fixed(Date(timeIntervalSince1970: 1_800_000_000.25))
        #expect(clock.now == Date(timeIntervalSince1970: 1_800_000_000.25))
        #expect(clock.nowMillis == 1_800_000_000_250)
        #expect(!clock.isSystem)
    }

    @Test func millisecondSourceIsReadOnEveryCall() {
        let millis = Locked<Int64>(1_000)
        let clock = WallClock(nowMillis: { millis.withLock { $0 } })
        #expect(clock.nowMillis == 1_000)
        millis.withLock { $0 = 61_500 }
        #expect(clock.nowMillis == 61_500)
        #expect(clock.now == Date(timeIntervalSince1970: 61.5))
    }

    @Test func dateSourceRoundsToTheNearestMillisecond() {
        let clock = WallClock(now: { Date(timeIntervalSince1970: 2.0006) })
        #expect(clock.nowMillis == 2_001)
    }

    @Test func systemClockFollowsTheMachinesTime() {
        let before = Date()
        let read = WallClock.system.now
        let after = Date()
        #expect(WallClock.system.isSystem)
        #expect(read >= before && read <= after)
        let millis = WallClock.system.nowMillis
        #expect(abs(millis - Int64(Date().timeIntervalSince1970 * 1000)) < 5_000)
    }
}
