import Synchronization

/// Remembers which month a span of 65,536 seconds (about 18 hours) falls in, for `CardValidator`.
///
/// The hot path reads the clock on every check; turning seconds into a civil month costs
/// divisions, so the month of the current span is kept in one atomic word (span number in the
/// high 32 bits, month index in the low 32). A span that straddles a month boundary is never
/// cached (its month is computed each time). Races only recompute the same value.
final class MonthCache: Sendable {
    private let packed = Atomic<UInt64>(UInt64.max)
    /// Spans are `1 << spanShift` seconds long.
    private static let spanShift: Int64 = 16
    /// Keeps span numbers positive (the validator clamps seconds to ±1e13, i.e. ±1.6e8 spans).
    private static let spanOffset: Int64 = 1 << 30

    /// The month index (`year * 12 + month - 1`) of `seconds` since 1970 in the expiry time zone.
    @inline(__always)
    func monthIndex(seconds: Int64) -> Int {
        let span = seconds >> Self.spanShift
        // Below 2^31, so it never equals the initial all-ones high word.
        let key = UInt64(truncatingIfNeeded: span &+ Self.spanOffset) & 0x7FFF_FFFF
        let cached = packed.load(ordering: .relaxed)
        if cached >> 32 == key { return Int(Int32(truncatingIfNeeded: cached)) }
        let index = Self.compute(seconds)
        let first = Self.compute(span << Self.spanShift)
        let last = Self.compute(((span + 1) << Self.spanShift) - 1)
        if first == last {
            packed.store(key << 32 | UInt64(UInt32(truncatingIfNeeded: index)), ordering: .relaxed)
        }
        return index
    }

    private static func compute(_ seconds: Int64) -> Int {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let (year, month) = CardValidator.civil(daysSinceEpoch: days)
        return Int(year) * 12 + Int(month) - 1
    }
}
