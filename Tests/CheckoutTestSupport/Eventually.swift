import Dispatch

/// The one bound on every wait in the test suites.
public enum TestWait {
    /// How long any wait may take before it counts as a failure: seconds, not minutes. Every wait
    /// is for something that must happen (no test waits for something that must not), and the work
    /// waited for is in the same process and takes milliseconds when it works, so a correct run
    /// never comes near this bound, and a broken one fails in seconds instead of hanging. What can
    /// still delay a task is the queue for the two cooperative threads, which `make test` bounds
    /// (at most 16 tests at once); the slow suites that load both cores for minutes are `make
    /// test-slow`'s. The sanitized build (`make tsan`, `-DCHECKOUTKIT_TSAN`) runs several times
    /// slower, so it waits longer.
    #if CHECKOUTKIT_TSAN
    public static let timeout: Duration = .seconds(90)
    #else
    public static let timeout: Duration = .seconds(30)
    #endif

    /// The bound for something that should already be done when the wait starts (a stream whose
    /// finish was sent synchronously, with only buffered elements left to read): it needs no
    /// other work, only a scheduled task, so a broken rule fails sooner than `timeout`.
    #if CHECKOUTKIT_TSAN
    public static let finished: Duration = .seconds(45)
    #else
    public static let finished: Duration = .seconds(15)
    #endif
}

/// The one wait of the test suites: polls `condition` until it holds or `timeout` of wall-clock
/// time has passed, and says which.
///
/// Every test that waits for detached work (a task reaching a gate, a server starting to drain,
/// a stream delivering a value) waits through this, so no wait is unbounded and none is bounded by
/// a count of yields that a fast machine exhausts early or a slow one never reaches. Polling sleeps
/// briefly between checks so a waiting test leaves the CPUs to the work it waits for.
///
///     #expect(await eventually { processor.waitingCount == 1 })
public func eventually(timeout: Duration = TestWait.timeout, poll: Duration = .milliseconds(1),
                       _ condition: () async throws -> Bool) async rethrows -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    while true {
        if try await condition() { return true }
        if clock.now >= deadline { return false }
        if poll > .zero { try? await Task.sleep(for: poll) } else { await Task.yield() }
    }
}

/// What one check of a wait on moving work found (`eventually(progressing:)`).
public enum WaitStep: Sendable {
    /// The condition holds: the wait ends.
    case done
    /// Not yet, but the work moved since the last check: the time bound starts again, and the next
    /// check comes at once.
    case progressed
    /// Not yet, and nothing moved: the next check comes after the poll interval.
    case idle
}

/// `eventually` for work that keeps moving (writers a reader races, a backlog being drained): the
/// time bound counts from the last check that saw progress, not from the start, so a loaded
/// machine (the whole suite and a database server on two cores) that slows the work does not fail
/// a correct test, while work that stops fails within `timeout`. An idle check sleeps `poll`
/// before the next one, leaving the CPUs to the work it waits for.
public func eventually(timeout: Duration = TestWait.timeout, poll: Duration = .milliseconds(1),
                       progressing step: () async throws -> WaitStep) async rethrows -> Bool {
    let clock = ContinuousClock()
    var deadline = clock.now.advanced(by: timeout)
    while true {
        switch try await step() {
        case .done: return true
        case .progressed: deadline = clock.now.advanced(by: timeout)
        case .idle:
            if clock.now >= deadline { return false }
            try? await Task.sleep(for: poll)
        }
    }
}

/// The blocking form of `eventually(progressing:)`, for a test's own thread (never a pool task).
public func eventuallyBlocking(timeout: Duration = TestWait.timeout, poll: Duration = .milliseconds(1),
                               progressing step: () throws -> WaitStep) rethrows -> Bool {
    let clock = ContinuousClock()
    var deadline = clock.now.advanced(by: timeout)
    while true {
        switch try step() {
        case .done: return true
        case .progressed: deadline = clock.now.advanced(by: timeout)
        case .idle:
            if clock.now >= deadline { return false }
            clock.sleepBlocking(for: poll)
        }
    }
}

/// Runs `body` until it returns a value (nil means "not yet"), for at most `timeout`: the same
/// bounded wait for a result the test needs, e.g. a retry until a twin request stops answering
/// 409. Nil when time ran out.
public func eventually<T>(timeout: Duration = TestWait.timeout, poll: Duration = .milliseconds(1),
                          value body: () async throws -> T?) async rethrows -> T? {
    var result: T?
    _ = try await eventually(timeout: timeout, poll: poll) {
        result = try await body()
        return result != nil
    }
    return result
}

/// The blocking form of `eventually`, for a test's own thread (never a pool task): polls
/// `condition` every `poll` until it holds or `timeout` has passed.
public func eventuallyBlocking(timeout: Duration = TestWait.timeout, poll: Duration = .milliseconds(5),
                               _ condition: () throws -> Bool) rethrows -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    while true {
        if try condition() { return true }
        if clock.now >= deadline { return false }
        clock.sleepBlocking(for: poll)
    }
}

extension ContinuousClock {
    /// Sleeps the calling thread (not a task) for `duration`.
    fileprivate func sleepBlocking(for duration: Duration) {
        let gate = DispatchSemaphore(value: 0)
        _ = gate.wait(timeout: .now() + .nanoseconds(duration.nanoseconds))
    }
}

extension Duration {
    /// The duration in whole nanoseconds, for Dispatch's deadlines.
    fileprivate var nanoseconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
    }
}

extension DispatchSemaphore {
    /// Waits for a signal for at most `TestWait.timeout`; false when time ran out. The thread-side
    /// form of `eventually`, for gates a test's own thread (never a pool task) blocks on.
    public func waitBounded(timeout: Duration = TestWait.timeout) -> Bool {
        wait(timeout: .now() + .nanoseconds(timeout.nanoseconds)) == .success
    }
}

extension DispatchGroup {
    /// Waits for the group for at most `TestWait.timeout`; false when time ran out.
    public func waitBounded(timeout: Duration = TestWait.timeout) -> Bool {
        wait(timeout: .now() + .nanoseconds(timeout.nanoseconds)) == .success
    }
}
