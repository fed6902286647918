import Foundation
import Testing
@testable import CardPaymentMethod

/// The validator's month cache must give the calendar's month for any second, whatever it answered
/// before: walking forward and backward across month ends, and around the day a span of the old
/// 18-hour cache straddled (the cache was never filled that day, so every check paid the calendar).
@Suite("Card validator month cache")
struct MonthCacheTests {
    /// The month index (`year * 12 + month - 1`) of `seconds` in UTC, from Foundation's calendar.
    static func calendarMonth(_ seconds: Int64) -> Int {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month], from: Date(timeIntervalSince1970: Double(seconds)))
        return (parts.year ?? 0) * 12 + (parts.month ?? 0) - 1
    }

    /// Seconds around every month end from 1999 to 2041: the last second of a month, the first of
    /// the next, and points a few hours either side.
    static let samples: [Int64] = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        var seconds: [Int64] = []
        for year in 1999...2041 {
            for month in 1...12 {
                guard let start = calendar.date(from: DateComponents(year: year, month: month, day: 1)) else { continue }
                let boundary = Int64(start.timeIntervalSince1970)
                for offset: Int64 in [-86_400, -43_200, -3_600, -1, 0, 1, 3_600, 43_200, 86_400] {
                    seconds.append(boundary + offset)
                }
            }
        }
        return seconds
    }()

    @Test("forward through time, one cache: every answer is the calendar's month")
    func forward() {
        let cache = MonthCache()
        for second in Self.samples {
            #expect(cache.monthIndex(seconds: second) == Self.calendarMonth(second), "\(second)")
        }
    }

    @Test("backward and alternating, one cache: a cached month never answers for another day")
    func backwardAndAlternating() {
        let cache = MonthCache()
        for second in Self.samples.reversed() {
            #expect(cache.monthIndex(seconds: second) == Self.calendarMonth(second), "\(second)")
        }
        for (early, late) in zip(Self.samples, Self.samples.dropFirst(4)) {
            for second in [early, late, early, late] {
                #expect(cache.monthIndex(seconds: second) == Self.calendarMonth(second), "\(second)")
            }
        }
    }

    @Test("repeated reads on one day are answered from the cache (the calendar runs once)")
    func repeatedReadsHit() {
        let cache = MonthCache()
        // 2026-12-01 15:41 at UTC-12: the day the 18-hour span cache missed on every read.
        let second: Int64 = 1_796_139_660
        let first = cache.monthIndex(seconds: second)
        for offset in 0..<1_000 { _ = cache.monthIndex(seconds: second + Int64(offset)) }
        #expect(first == Self.calendarMonth(second))
        #expect(cache.computations == 1)
    }
}
