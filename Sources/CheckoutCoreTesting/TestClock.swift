import CheckoutCore
import CheckoutLocking

/// The one manual clock of the tests: a `Clock` whose time moves only when the test says so, with
/// a wall-clock reading (`wallClock`, Unix time) that moves with it. Pass it wherever code takes
/// an `any Clock<Duration>` (sessions, polling, the sync engine, webhook deliveries, the purge)
/// and its `wallClock` wherever code takes a `WallClock`.
///
/// A task sleeping on it wakes when `advance(by:)`, `advance(to:)` or `advanceToNextDeadline()`
/// takes the time to or past its deadline, in deadline order, and at once (with
/// `CancellationError`) when its task is cancelled. The test sees every wait the code asked for
/// (`sleepHistory`, `pendingSleeps`) and waits on events, never on the wall clock:
/// `waitForSleeper()` returns once the next sleep has begun, `waitForSleepers(_:)` once that many
/// tasks are asleep.
///
/// ```swift
/// let clock = TestClock()
/// let timer = Task { try await clock.sleep(for: .seconds(30)) }
/// #expect(await clock.waitForSleeper())   // the task is asleep now
/// clock.advance(by: .seconds(29))         // still asleep
/// clock.advance(by: .seconds(1))          // wakes
/// try await timer.value
/// ```
///
/// `TestClock.automatic(onSleep:)` makes a clock whose sleeps advance the time themselves and
/// return at once, for tests where time should pass by itself (a polling loop), with a hook that
/// runs on every sleep so the test can act "while" the code waits.
public final class TestClock: Clock, Sendable {
    /// A point on the test clock: the time since the Unix epoch, so it reads as `wallClock`'s time.
    public struct Instant: InstantProtocol, Sendable, Hashable, Comparable {
        /// Time since 1970-01-01T00:00:00Z.
        public var offset: Swift.Duration

        /// The instant `offset` after the Unix epoch.
        public init(offset: Swift.Duration) { self.offset = offset }

        /// The instant `nanosSince1970` nanoseconds after the Unix epoch.
        public init(nanosSince1970: Int64) { offset = .nanoseconds(nanosSince1970) }

        /// Nanoseconds since the Unix epoch (saturating).
        public var nanosSince1970: Int64 { TestClock.nanos(offset) }

        /// The instant `duration` later.
        public func advanced(by duration: Swift.Duration) -> Instant { Instant(offset: offset + duration) }
        /// The time from this instant to `other` (negative when `other` is earlier).
        public func duration(to other: Instant) -> Swift.Duration { other.offset - offset }
        /// Earlier instants come first.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        let id: Int
        let deadline: Instant
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
        var now: Instant
        var nextId = 0
        var sleepers: [Sleeper] = []
        var history: [Duration] = []
        var observers: [Observer] = []
    }

    private let state: Locked<State>
    private let arrivals = BoundedWaitQueue<Instant>()
    private let onSleep: (@Sendable (Int) async -> Void)?

    /// A clock reading `startMillis` (Unix milliseconds; the default is in January 2027) with
    /// nobody asleep, moved only by hand.
    public init(startMillis: Int64 = 1_800_000_000_000) {
        state = Locked(State(now: Instant(offset: .milliseconds(startMillis))))
        onSleep = nil
    }

    private init(startMillis: Int64, onSleep: @escaping @Sendable (Int) async -> Void) {
        state = Locked(State(now: Instant(offset: .milliseconds(startMillis))))
        self.onSleep = onSleep
    }

    /// A clock whose every sleep moves the time to its deadline and returns at once (after
    /// `onSleep` ran with the sleep's 1-based number): for tests where time should pass by itself.
    public static func automatic(startMillis: Int64 = 1_800_000_000_000,
                                 onSleep: @escaping @Sendable (Int) async -> Void = { _ in }) -> TestClock {
        TestClock(startMillis: startMillis, onSleep: onSleep)
    }

    /// The current time.
    public var now: Instant { state.withLock { $0.now } }

    /// Zero: the clock moves only by hand.
    public var minimumResolution: Duration { .zero }

    /// The time in Unix milliseconds.
    public func nowMillis() -> Int64 { state.withLock { $0.now.nanosSince1970 / 1_000_000 } }

    /// The wall-clock reading of this clock, for the `wallClock` (or `clock: WallClock`) parameter
    /// beside the `clock` one.
    public var wallClock: WallClock { WallClock(nowMillis: { [self] in nowMillis() }) }

    /// How many tasks are asleep on this clock now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Every sleep requested so far, in order (zero-length and past-deadline ones included).
    public var sleepHistory: [Duration] { state.withLock { $0.history } }

    /// The requested durations of the sleeps waiting now, in the order they started.
    public var pendingSleeps: [Duration] { state.withLock { $0.sleepers.map(\.requested) } }

    /// Suspends until the clock reaches `deadline` (at once if it already has; an automatic clock
    /// moves to it). The wait is recorded as `deadline - now`.
    /// - Throws: `CancellationError` when the task is cancelled, before or while asleep.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        if let onSleep {
            let number = state.withLock { state -> Int in
                state.history.append(state.now.duration(to: deadline))
                state.now = max(state.now, deadline)
                return state.history.count
            }
            await onSleep(number)
            try Task.checkCancellation()
            return
        }
        let id = state.withLock { state -> Int in
            defer { state.nextId += 1 }
            return state.nextId
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Step { case due, cancelled, asleep }
                let (step, observers) = state.withLock { state -> (Step, [CheckedContinuation<Void, Never>]) in
                    // Checked under the lock: `onCancel` takes the same lock after the flag is set.
                    if Task.isCancelled { return (.cancelled, []) }
                    let requested = state.now.duration(to: deadline)
                    state.history.append(requested)
                    if deadline <= state.now { return (.due, Self.takeSatisfied(&state)) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, requested: requested, continuation: continuation))
                    return (.asleep, Self.takeSatisfied(&state))
                }
                switch step {
                case .due: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .asleep: arrivals.put(deadline)
                }
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

    /// Waits (without polling) until a task has gone to sleep on this clock, consuming that
    /// arrival: the n-th wait returns once the n-th sleep has begun. False after `timeout`.
    public func waitForSleeper(timeout: Duration = .seconds(30)) async -> Bool {
        await arrivals.take(within: timeout) != nil
    }

    /// Returns once at least `count` tasks are asleep on this clock (or the caller is cancelled).
    public func waitForSleepers(_ count: Int = 1) async {
        await waitUntil(minimumSleepers: count, minimumSleepsStarted: 0)
    }

    /// Returns once at least `count` sleeps have been requested in total, waiting or finished (or
    /// the caller is cancelled).
    public func waitForSleepsStarted(_ count: Int) async {
        await waitUntil(minimumSleepers: 0, minimumSleepsStarted: count)
    }

    /// Moves the time forward by `duration` (a negative one is ignored: time never goes back) and
    /// wakes every sleeper whose deadline has passed.
    public func advance(by duration: Duration) {
        advance(toward: { max($0, $0.advanced(by: duration)) })
    }

    /// Moves the time to `instant` (never backwards) and wakes every sleeper whose deadline has passed.
    public func advance(to instant: Instant) {
        advance(toward: { max($0, instant) })
    }

    /// Moves the time to the earliest waiting sleeper's deadline (waking it); returns how far the
    /// time moved, or nil when nobody sleeps.
    @discardableResult
    public func advanceToNextDeadline() -> Duration? {
        let step = state.withLock { state -> Duration? in
            guard let deadline = state.sleepers.map(\.deadline).min() else { return nil }
            return max(.zero, state.now.duration(to: deadline))
        }
        if let step { advance(by: step) }
        return step
    }

    private func advance(toward target: (Instant) -> Instant) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = target(state.now)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
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
        guard !overflow else { return parts.seconds > 0 ? .max / 2 : .min / 2 }
        return seconds &+ parts.attoseconds / 1_000_000_000
    }
}
