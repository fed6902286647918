import Foundation

/// The threads blocking work runs on (`onOwnThread`): started as they are needed, reused, and
/// never more than `limit` at once; work beyond the limit waits in line for a free thread (its
/// task suspended, not blocked).
///
/// Threads are kept once started (at most `limit` of them, each idle on a semaphore). Work that
/// blocks until other work on the same pool has run must not exceed the limit, or it waits for a
/// thread that never frees: `onOwnThread`'s pool has room for 64 such waits.
public final class BlockingThreadPool: Sendable {
    /// The pool `onOwnThread` uses.
    public static let shared = BlockingThreadPool(limit: 64)

    /// The most threads the pool runs at once.
    public let limit: Int

    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var head = 0
        var threads = 0
        /// Threads running a job; the others are free (waiting for a job, or about to take one).
        var busy = 0
        var mostBusy = 0
    }

    private let state = Locked(State())
    /// Signalled once per job: each signal is taken by exactly one thread, which runs one job.
    private let pending = DispatchSemaphore(value: 0)

    /// A pool of at most `limit` threads (at least one).
    public init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Threads started so far (never more than `limit`).
    public var threadCount: Int { state.withLock { $0.threads } }

    /// The most jobs that ran at the same time so far.
    public var mostBusy: Int { state.withLock { $0.mostBusy } }

    /// Queues `job`; a free thread runs it, or a new one while fewer than `limit` exist.
    public func submit(_ job: @escaping @Sendable () -> Void) {
        let start = state.withLock { state -> Bool in
            state.jobs.append(job)
            // A thread more only when the jobs not yet taken outnumber the free threads.
            guard state.jobs.count - state.head > state.threads - state.busy, state.threads < limit else { return false }
            state.threads += 1
            return true
        }
        if start {
            let thread = Thread { [self] in work() }
            thread.name = "BlockingThreadPool"
            thread.start()
        }
        pending.signal()
    }

    /// Runs `body` on one of the pool's threads and suspends the calling task until it returns.
    public func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        let edge = HandoffEdge()
        let value = await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            submit {
                let value = body()
                edge.release()
                continuation.resume(returning: value)
            }
        }
        edge.acquire()
        return value
    }

    private func work() {
        while true {
            pending.wait()
            let job = state.withLock { state -> (@Sendable () -> Void)? in
                guard state.head < state.jobs.count else { return nil }
                let job = state.jobs[state.head]
                state.head += 1
                if state.head > 64, state.head * 2 > state.jobs.count {
                    state.jobs.removeFirst(state.head)
                    state.head = 0
                }
                state.busy += 1
                state.mostBusy = max(state.mostBusy, state.busy)
                return job
            }
            guard let job else { continue }
            job()
            state.withLock { $0.busy -= 1 }
        }
    }
}

/// The hand-off of a result from a pool thread to the task that waits for it, told to the thread
/// sanitizer in a sanitized build (`make tsan`): the continuation's resume from a reused thread is
/// not an edge it sees, so what the work wrote (a store it opened) read as a race in the task.
/// Without the sanitizer it does nothing.
final class HandoffEdge: Sendable {
    func release() {
        #if CHECKOUTKIT_TSAN
        tsanRelease(Unmanaged.passUnretained(self).toOpaque())
        #endif
    }

    func acquire() {
        #if CHECKOUTKIT_TSAN
        tsanAcquire(Unmanaged.passUnretained(self).toOpaque())
        #endif
    }
}
