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
}
