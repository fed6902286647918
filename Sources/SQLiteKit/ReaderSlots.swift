import CheckoutLocking
import Dispatch

/// The permits to use a pool's reader connections, and the idle readers themselves.
///
/// At most `count` readers exist. A caller gets a permit with an idle reader, or a permit and
/// `nil` (open a new reader). When none is free the caller waits in line: a task suspends
/// (`acquire()`, which a cancellation of the task ends with `CancellationError`), a thread blocks
/// (`acquireBlocking()`). A release hands the reader straight to the first in line, so waiters
/// are served in the order they came.
final class ReaderSlots: Sendable {
    private enum Waiter {
        case task(id: Int, CheckedContinuation<PooledConnection?, any Error>)
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
        /// The line; a cancelled task's place is nil.
        var waiters: [Waiter?] = []
        var nextWaiter = 0
        var nextTaskId = 0
        /// Tasks cancelled before they took their place in line.
        var cancelledEarly: Set<Int> = []

        /// A permit (and an idle reader, if any), or nil when none is free.
        mutating func take() -> PooledConnection?? {
            guard available > 0 else { return nil }
            available -= 1
            return .some(idle.popLast())
        }

        mutating func firstWaiter() -> Waiter? {
            while nextWaiter < waiters.count {
                let waiter = waiters[nextWaiter]
                nextWaiter += 1
                if nextWaiter == waiters.count {
                    waiters.removeAll(keepingCapacity: true)
                    nextWaiter = 0
                }
                if let waiter { return waiter }
            }
            return nil
        }

        /// Takes the waiting task `id` out of line (nil when it is not in line: served already, or
        /// not in line yet, which is then remembered).
        mutating func removeTask(_ id: Int) -> CheckedContinuation<PooledConnection?, any Error>? {
            for index in nextWaiter..<waiters.count {
                if case .task(id, let continuation)? = waiters[index] {
                    waiters[index] = nil
                    return continuation
                }
            }
            cancelledEarly.insert(id)
            return nil
        }
    }

    private let state: Locked<State>

    init(count: Int) {
        state = Locked(State(available: count))
    }

    /// A permit, suspending the task (never blocking its thread) while none is free.
    /// - Throws: `CancellationError` when the task is cancelled while it waits (it then holds no
    ///   permit); a task cancelled before it had to wait still gets a free permit.
    func acquire() async throws -> PooledConnection? {
        // A free permit is taken without a suspension (the common case).
        if let granted = state.withLock({ $0.take() }) { return granted }
        let id = state.withLock { state in
            state.nextTaskId += 1
            return state.nextTaskId
        }
        // A cancellation that comes after the task was served is remembered as early; forget it.
        defer { state.withLock { _ = $0.cancelledEarly.remove(id) } }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let granted = state.withLock { state -> Result<PooledConnection?, any Error>? in
                    if let granted = state.take() { return .success(granted) }
                    if state.cancelledEarly.remove(id) != nil { return .failure(CancellationError()) }
                    state.waiters.append(.task(id: id, continuation))
                    return nil
                }
                if let granted { continuation.resume(with: granted) }
            }
        } onCancel: {
            state.withLock { $0.removeTask(id) }?.resume(throwing: CancellationError())
        }
    }

    /// How many callers wait in line (for tests).
    var waitingCount: Int {
        state.withLock { state in state.waiters[state.nextWaiter...].reduce(0) { $0 + ($1 == nil ? 0 : 1) } }
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
        case .task(_, let continuation):
            continuation.resume(returning: connection)
        case .thread(let handoff):
            handoff.connection.withLock { $0 = connection }
            handoff.ready.signal()
        case nil:
            break
        }
    }
}
