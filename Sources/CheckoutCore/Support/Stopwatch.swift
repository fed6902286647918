/// Time elapsed on a clock since a start: how code that takes an `any Clock<Duration>` measures
/// a budget or a wait (the instants of an existential clock cannot be compared directly).
///
/// ```swift
/// let watch = Stopwatch(clock)          // clock: any Clock<Duration>
/// if watch.elapsed >= budget { … }
/// ```
public struct Stopwatch: Sendable {
    private let read: @Sendable () -> Duration

    /// Starts now on `clock`.
    public init(_ clock: any Clock<Duration>) { read = Self.elapsed(on: clock) }

    private static func elapsed<C: Clock<Duration>>(on clock: C) -> @Sendable () -> Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }

    /// The time since the start, on the clock it was started on.
    public var elapsed: Duration { read() }
}
