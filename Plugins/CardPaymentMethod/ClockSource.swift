import Foundation

/// Where a `CardValidator` reads the current time for expiry checks.
///
/// The system clock is a case of its own, not a closure, so the hot path can read it as whole
/// seconds (`CardValidator.systemSeconds()`) with no indirect call and no `Date`.
enum ClockSource: Sendable {
    /// The system's coarse real-time clock (`CardValidator.systemClock`).
    case system
    /// A clock given to the initializer (tests inject fixed or moving clocks).
    case injected(@Sendable () -> Date)
}
