/// The time source a redirect flow polls by: how much time has passed, and a way to wait.
///
/// Injected so that tests drive polling with virtual time (deterministic and instant) while
/// production waits on the system's monotonic clock (`SystemPollingClock`).
public protocol PollingClock: Sendable {
    /// Monotonic time elapsed since a fixed, arbitrary origin.
    var now: Duration { get }
    /// Waits for `duration`.
    /// - Throws: `CancellationError` when the waiting task is cancelled.
    func sleep(for duration: Duration) async throws
}

/// The system's monotonic clock (`ContinuousClock`), counted from the moment it was created.
///
/// The default clock of `RedirectPaymentHandler`: sleeps really wait and are cancellable.
public struct SystemPollingClock: PollingClock {
    private let origin: ContinuousClock.Instant

    /// Creates a clock whose `now` starts at zero.
    public init() { origin = ContinuousClock.now }

    /// Time since this clock was created.
    public var now: Duration { ContinuousClock.now - origin }

    /// Waits on the system clock; cancellable.
    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }
}
