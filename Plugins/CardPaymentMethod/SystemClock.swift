import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension CardValidator {
    /// The system's real-time clock in whole seconds since 1970, clamped like an injected clock's
    /// reading: what a validator on `WallClock.system` reads on the hot path. Expiry checks need
    /// day resolution, so on Linux this reads `CLOCK_REALTIME_COARSE` (a few milliseconds of
    /// resolution, several times cheaper than the precise clock); elsewhere `Date()`.
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
