import CheckoutCore
import CheckoutLocking

/// The simulation's time: it moves only when the simulator advances it, or when something sleeps
/// on it, and then it jumps to the sleeper's deadline at once.
///
/// The simulator runs one thing at a time, so a sleep (an engine's backoff between retries, a
/// `Retry-After`) has nothing to wait for: the world simply is that much later when it returns.
/// The engines' waits, their `lastSyncedAt`, the stores' stamps, ephemeral-key expiry and the
/// server's tombstone retention all read this one time, so a seed replays exactly.
public final class SimulatedTime: Clock, Sendable {
    /// A point in simulated time: milliseconds since 1970 (it reads as the `wallClock`'s time).
    public struct Instant: InstantProtocol, Sendable, Hashable, Comparable {
        /// Nanoseconds since 1970.
        public var nanos: Int64

        /// The instant `duration` later.
        public func advanced(by duration: Duration) -> Instant {
            Instant(nanos: nanos &+ SimulatedTime.nanos(duration))
        }

        /// The time from this instant to `other`.
        public func duration(to other: Instant) -> Duration { .nanoseconds(other.nanos &- nanos) }

        /// Earlier instants come first.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.nanos < rhs.nanos }
    }

    private let current: Locked<Int64>
    private let slept = Locked<Duration>(.zero)

    /// A clock at `startMillis` (Unix milliseconds).
    public init(startMillis: Int64 = 1_800_000_000_000) {
        current = Locked(startMillis * 1_000_000)
    }

    /// Now.
    public var now: Instant { Instant(nanos: current.withLock { $0 }) }

    /// Zero: time moves only as described.
    public var minimumResolution: Duration { .zero }

    /// Returns at once, the time moved on to `deadline` (never backwards).
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let waited = current.withLock { now -> Int64 in
            let before = now
            now = max(now, deadline.nanos)
            return now - before
        }
        slept.withLock { $0 += .nanoseconds(waited) }
    }

    /// Moves the time forward by `duration`.
    public func advance(by duration: Duration) {
        current.withLock { $0 &+= Self.nanos(duration) }
    }

    /// The total time sleepers skipped (backoff the engines asked for).
    public var totalSlept: Duration { slept.withLock { $0 } }

    /// The wall-clock reading of this time, for stores, engines and the server.
    public var wallClock: WallClock {
        WallClock(nowMillis: { [self] in self.current.withLock { $0 / 1_000_000 } })
    }

    static func nanos(_ duration: Duration) -> Int64 {
        let parts = duration.components
        return parts.seconds &* 1_000_000_000 &+ parts.attoseconds / 1_000_000_000
    }
}
