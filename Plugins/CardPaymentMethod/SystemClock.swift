import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension CardValidator {
    /// The default clock: the system's real-time clock read at its coarse resolution.
    ///
    /// Expiry checks need day resolution, so on Linux this reads `CLOCK_REALTIME_COARSE` (a few
    /// milliseconds of resolution, several times cheaper than the precise clock, which matters
    /// on the hot path); elsewhere it is `Date()`.
    public static let systemClock: @Sendable () -> Date = {
        #if os(Linux)
        var spec = timespec()
        if clock_gettime(CLOCK_REALTIME_COARSE, &spec) == 0 {
            return Date(timeIntervalSince1970: Double(spec.tv_sec) + Double(spec.tv_nsec) * 1e-9)
        }
        return Date()
        #else
        return Date()
        #endif
    }

    /// The system clock (the same reading as `systemClock`) in whole seconds since 1970, clamped
    /// like an injected clock's reading; what a validator on the system clock uses on the hot path.
    @inline(__always)
    static func systemSeconds() -> Int64 {
        #if os(Linux)
        var spec = timespec()
        if clock_gettime(CLOCK_REALTIME_COARSE, &spec) == 0 {
            // tv_nsec is below one second, so tv_sec is the reading rounded down.
            return max(-10_000_000_000_000, min(10_000_000_000_000, Int64(spec.tv_sec)))
        }
        #endif
        return wholeSeconds(Date().timeIntervalSince1970)
    }
}
