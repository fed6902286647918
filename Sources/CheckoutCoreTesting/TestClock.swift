import CheckoutLocking

/// A `Clock` whose time moves only when the test advances it: a task sleeping on it wakes when
/// `advance(by:)` or `advance(to:)` takes the time to or past its deadline, in deadline order,
/// and at once (with `CancellationError`) when its task is cancelled. Pass it wherever code
/// takes an `any Clock<Duration>`.
///
/// ```swift
/// let clock = TestClock()
/// let timer = Task { try await clock.sleep(for: .seconds(30)) }
/// #expect(await clock.waitForSleeper())   // the task is asleep now
/// clock.advance(by: .seconds(29))         // still asleep
/// clock.advance(by: .seconds(1))          // wakes
/// try await timer.value
/// ```
public final class TestClock: Clock, Sendable {
    /// A point on the test clock: the time advanced since the clock was made.
    public struct Instant: InstantProtocol, Sendable, Hashable, Comparable {
        /// Time since the clock's start.
        public var offset: Swift.Duration

        /// The instant `offset` after the clock's start.
        public init(offset: Swift.Duration) { self.offset = offset }

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
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var nextId = 0
    }

    private let state = Locked(State())
    private let arrivals = BoundedWaitQueue<Instant>()

    /// A clock at offset zero with nobody asleep.
    public init() {}

    /// The current time.
    public var now: Instant { state.withLock { $0.now } }

    /// Zero: the clock moves only by hand.
    public var minimumResolution: Duration { .zero }

    /// How many tasks are asleep on this clock now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Suspends until the clock reaches `deadline` (at once if it already has).
    /// - Throws: `CancellationError` when the task is cancelled, before or while asleep.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id = state.withLock { state -> Int in
            state.nextId += 1
            return state.nextId
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Step { case due, cancelled, asleep }
                let step = state.withLock { state -> Step in
                    if Task.isCancelled { return .cancelled }
                    if deadline <= state.now { return .due }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return .asleep
                }
                switch step {
                case .due: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .asleep: arrivals.put(deadline)
                }
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
    public func waitForSleeper(timeout: Duration = .seconds(60)) async -> Bool {
        await arrivals.take(within: timeout) != nil
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
}
