import CheckoutCore
import CheckoutLocking

/// A `Clock` that only moves when the test says so, with a wall-clock reading that moves with it.
///
/// `sleep` suspends until `advance(by:)` moves time past its deadline, so a test sees exactly
/// which waits the engine asked for (backoff, `Retry-After`, the timer) without sleeping.
/// `waitForSleepers` lets the test wait until the engine is parked on the clock. Pass the clock
/// as a `SyncEngine`'s or `WebhookDeliverer`'s `clock` and its `wallClock` beside it:
///
/// ```swift
/// let clock = ManualSyncClock()
/// let engine = SyncEngine(store: store, remote: remote, clock: clock, wallClock: clock.wallClock)
/// ```
public final class ManualSyncClock: Clock {
    /// A point on the manual clock: time since 1970 (so it reads as the `wallClock`'s time).
    public struct Instant: InstantProtocol, Sendable, Hashable, Comparable {
        /// Nanoseconds since 1970.
        public var nanosSince1970: Int64

        /// The instant `nanosSince1970` nanoseconds after 1970.
        public init(nanosSince1970: Int64) { self.nanosSince1970 = nanosSince1970 }

        /// The instant `duration` later (saturating).
        public func advanced(by duration: Swift.Duration) -> Instant {
            let (sum, overflow) = nanosSince1970.addingReportingOverflow(ManualSyncClock.nanos(duration))
            return Instant(nanosSince1970: overflow ? (duration > .zero ? .max : .min) : sum)
        }

        /// The time from this instant to `other` (negative when `other` is earlier).
        public func duration(to other: Instant) -> Swift.Duration {
            .nanoseconds(other.nanosSince1970 &- nanosSince1970)
        }

        /// Earlier instants come first.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.nanosSince1970 < rhs.nanosSince1970 }
    }

    private struct Sleeper {
        let id: Int
        let deadline: Int64
        let requested: Duration
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct Observer {
        let id: Int
        let minimumSleepers: Int
        let minimumSleepsStarted: Int
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var nowNanos: Int64
        var nextId = 0
        var sleepers: [Sleeper] = []
        var history: [Duration] = []
        var observers: [Observer] = []
    }

    private let state: Locked<State>

    /// A clock reading `startMillis` (Unix milliseconds) until advanced.
    public init(startMillis: Int64 = 1_800_000_000_000) {
        state = Locked(State(nowNanos: startMillis * 1_000_000))
    }

    /// The manual time in Unix milliseconds.
    public func nowMillis() -> Int64 {
        state.withLock { $0.nowNanos / 1_000_000 }
    }

    /// The current instant.
    public var now: Instant { state.withLock { Instant(nanosSince1970: $0.nowNanos) } }

    /// Zero: the clock moves only by hand.
    public var minimumResolution: Swift.Duration { .zero }

    /// The wall-clock reading of this clock (Unix milliseconds of `now`), for the `wallClock`
    /// parameter beside the `clock` one.
    public var wallClock: WallClock { WallClock(nowMillis: { [self] in nowMillis() }) }

    /// Every sleep requested so far, in order (including zero-length ones, which return at once).
    public var sleepHistory: [Duration] { state.withLock { $0.history } }

    /// The requested durations of the sleeps currently waiting, in the order they started.
    public var pendingSleeps: [Duration] { state.withLock { $0.sleepers.map(\.requested) } }

    /// Waits until `advance` reaches `deadline` (a deadline not after now returns at once); the
    /// wait is recorded as `deadline - now`. Throws `CancellationError` when cancelled.
    public func sleep(until deadline: Instant, tolerance: Swift.Duration? = nil) async throws {
        try Task.checkCancellation()
        let duration = state.withLock { Swift.Duration.nanoseconds(deadline.nanosSince1970 &- $0.nowNanos) }
        let nanos = Self.nanos(duration)
        guard nanos > 0 else {
            let observers = state.withLock { state in
                state.history.append(duration)
                return Self.takeSatisfied(&state)
            }
            observers.forEach { $0.resume() }
            return
        }
        let id = state.withLock { state -> Int in
            defer { state.nextId += 1 }
            return state.nextId
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (cancelled, observers) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                    // Checked under the lock: `onCancel` takes the same lock after the flag is set.
                    if Task.isCancelled { return (true, []) }
                    state.history.append(duration)
                    state.sleepers.append(Sleeper(id: id, deadline: deadline.nanosSince1970, requested: duration,
                                                  continuation: continuation))
                    return (false, Self.takeSatisfied(&state))
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
                observers.forEach { $0.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward by `duration`, waking every sleeper whose deadline has passed.
    public func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.nowNanos += max(0, Self.nanos(duration))
            let now = state.nowNanos
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Moves time to the earliest waiting sleeper's deadline (waking it); returns how far time
    /// moved, or nil when nobody sleeps.
    @discardableResult
    public func advanceToNextDeadline() -> Duration? {
        let step = state.withLock { state -> Duration? in
            guard let deadline = state.sleepers.map(\.deadline).min() else { return nil }
            return .nanoseconds(max(0, deadline - state.nowNanos))
        }
        if let step { advance(by: step) }
        return step
    }

    /// Returns once at least `count` sleeps are waiting on this clock (or the caller is cancelled).
    public func waitForSleepers(_ count: Int = 1) async {
        await waitUntil(minimumSleepers: count, minimumSleepsStarted: 0)
    }

    /// Returns once at least `count` sleeps have been requested in total, waiting or finished (or
    /// the caller is cancelled).
    public func waitForSleepsStarted(_ count: Int) async {
        await waitUntil(minimumSleepers: 0, minimumSleepsStarted: count)
    }

    /// Parks the caller until the condition holds, or until the caller is cancelled (a test over
    /// its time limit must end, not wait forever for a sleeper that never comes).
    private func waitUntil(minimumSleepers: Int, minimumSleepsStarted: Int) async {
        let id = state.withLock { state -> Int in
            defer { state.nextId += 1 }
            return state.nextId
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if Task.isCancelled { return true }
                    if state.sleepers.count >= minimumSleepers, state.history.count >= minimumSleepsStarted { return true }
                    state.observers.append(Observer(id: id, minimumSleepers: minimumSleepers,
                                                    minimumSleepsStarted: minimumSleepsStarted, continuation: continuation))
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let observer = state.withLock { state -> Observer? in
                guard let index = state.observers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.observers.remove(at: index)
            }
            observer?.continuation.resume()
        }
    }

    private static func takeSatisfied(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        let sleepers = state.sleepers.count
        let started = state.history.count
        let satisfied = state.observers.filter { sleepers >= $0.minimumSleepers && started >= $0.minimumSleepsStarted }
        state.observers.removeAll { sleepers >= $0.minimumSleepers && started >= $0.minimumSleepsStarted }
        return satisfied.map(\.continuation)
    }

    fileprivate static func nanos(_ duration: Swift.Duration) -> Int64 {
        let parts = duration.components
        let (seconds, overflow) = parts.seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return parts.seconds > 0 ? .max / 2 : 0 }
        return seconds &+ parts.attoseconds / 1_000_000_000
    }
}
