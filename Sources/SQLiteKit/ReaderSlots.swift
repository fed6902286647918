import CheckoutLocking
import Dispatch

/// The permits to use a pool's reader connections, and the idle readers themselves.
///
/// At most `count` readers exist. A caller gets a permit with an idle reader, or a permit and
/// `nil` (open a new reader). When none is free the caller waits in line: a task suspends
/// (`acquire()`), a thread blocks (`acquireBlocking()`). A release hands the reader straight to
/// the first in line, so waiters are served in the order they came.
final class ReaderSlots: Sendable {
    private enum Waiter {
        case task(CheckedContinuation<PooledConnection?, Never>)
        case thread(Handoff)
    }

    /// Where a release leaves the reader for a blocked thread.
    private final class Handoff: Sendable {
        let ready = DispatchSemaphore(value: 0)
        let connection = Locked<PooledConnection?>(nil)
    }

    private struct State {
        var available: Int
        var idle: [PooledConnection] = []
        var waiters: [Waiter] = []
        var nextWaiter = 0

        /// A permit (and an idle reader, if any), or nil when none is free.
        mutating func take() -> PooledConnection?? {
            guard available > 0 else { return nil }
            available -= 1
            return .some(idle.popLast())
        }

        mutating func firstWaiter() -> Waiter? {
            guard nextWaiter < waiters.count else { return nil }
            let waiter = waiters[nextWaiter]
            nextWaiter += 1
            if nextWaiter == waiters.count {
                waiters.removeAll(keepingCapacity: true)
                nextWaiter = 0
            }
            return waiter
        }
    }

    private let state: Locked<State>

    init(count: Int) {
        state = Locked(State(available: count))
    }

    /// A permit, suspending the task (never blocking its thread) while none is free.
    func acquire() async -> PooledConnection? {
        // A free permit is taken without a suspension (the common case).
        if let granted = state.withLock({ $0.take() }) { return granted }
        return await withCheckedContinuation { continuation in
            let granted = state.withLock { state -> PooledConnection?? in
                if let granted = state.take() { return granted }
                state.waiters.append(.task(continuation))
                return nil
            }
            if let granted { continuation.resume(returning: granted) }
        }
    }

    /// A permit, blocking the calling thread while none is free.
    func acquireBlocking() -> PooledConnection? {
        // A free permit is taken without making a hand-off (the common case).
        if let granted = state.withLock({ $0.take() }) { return granted }
        let handoff = Handoff()
        let granted = state.withLock { state -> PooledConnection?? in
            if let granted = state.take() { return granted }
            state.waiters.append(.thread(handoff))
            return nil
        }
        if let granted { return granted }
        handoff.ready.wait()
        return handoff.connection.withLock { $0 }
    }

    /// Gives the permit back with its reader (nil when opening one failed): to the first waiter, or
    /// to the idle list.
    func release(_ connection: PooledConnection?) {
        let waiter = state.withLock { state -> Waiter? in
            if let waiter = state.firstWaiter() { return waiter }
            state.available += 1
            if let connection { state.idle.append(connection) }
            return nil
        }
        switch waiter {
        case .task(let continuation):
            continuation.resume(returning: connection)
        case .thread(let handoff):
            handoff.connection.withLock { $0 = connection }
            handoff.ready.signal()
        case nil:
            break
        }
    }
}
