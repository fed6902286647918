import Synchronization

/// Remembers which month the current day falls in, for `CardValidator`.
///
/// The hot path reads the clock on every check; turning seconds into a civil month costs
/// divisions, so the month of the last day seen is kept in one atomic word (day number in the
/// high 32 bits, month index in the low 32). A day never straddles a month, so after the first
/// check of a day every check is answered from the word. (An earlier cache keyed 18-hour spans of
/// the clock: the span that straddled a month's end was never cached, and for most of a day each
/// month every check paid the calendar three times.) Races only recompute the same value.
final class MonthCache: Sendable {
    private let packed = Atomic<UInt64>(UInt64.max)
    private let misses = Atomic<Int>(0)
    /// Keeps day numbers positive (the validator clamps seconds to ±1e13, i.e. ±1.2e8 days).
    private static let dayOffset: Int64 = 1 << 30

    /// How many reads missed the cache and ran the calendar arithmetic (for tests).
    var computations: Int { misses.load(ordering: .relaxed) }

    /// The month index (`year * 12 + month - 1`) of `seconds` since 1970 in the expiry time zone.
    @inline(__always)
    func monthIndex(seconds: Int64) -> Int {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        // Below 2^31, so it never equals the initial all-ones high word.
        let key = UInt64(truncatingIfNeeded: days &+ Self.dayOffset) & 0x7FFF_FFFF
        let cached = packed.load(ordering: .relaxed)
        if cached >> 32 == key { return Int(Int32(truncatingIfNeeded: cached)) }
        return fill(days: days, key: key)
    }

    @inline(never)
    private func fill(days: Int64, key: UInt64) -> Int {
        misses.add(1, ordering: .relaxed)
        let (year, month) = CardValidator.civil(daysSinceEpoch: days)
        let index = Int(year) * 12 + Int(month) - 1
        packed.store(key << 32 | UInt64(UInt32(truncatingIfNeeded: index)), ordering: .relaxed)
        return index
    }
}
