import CheckoutLocking

/// The one bounded wait of CheckoutCoreTesting: values put from any task, taken in order by one
/// waiting test. A take parks on a continuation (no polling, no sleep between checks) and a timer
/// ends it with nil once `timeout` has passed, so a value that never comes fails instead of hanging.
final class BoundedWaitQueue<Value: Sendable>: Sendable {
    private struct Waiter {
        let id: Int
        let continuation: CheckedContinuation<Value?, Never>
        var timer: Task<Void, Never>?
    }

    private struct State {
        var buffer: [Value] = []
        var waiter: Waiter?
        var nextId = 0
        var taken = 0
    }

    private enum Take { case value(Value), parked, cancelled }

    private let state = Locked(State())

    init() {}

    /// Hands `value` to the waiting take, or buffers it for the next one.
    func put(_ value: Value) {
        let waiter = state.withLock { state -> Waiter? in
            guard let waiter = state.waiter else {
                state.buffer.append(value)
                return nil
            }
            state.waiter = nil
            state.taken += 1
            return waiter
        }
        waiter?.timer?.cancel()
        waiter?.continuation.resume(returning: value)
    }

    /// The next value, waiting for it at most `timeout`; nil when time ran out or the caller was
    /// cancelled. One take at a time: a second concurrent take ends the first with nil.
    func take(within timeout: Duration) async -> Value? {
        let id = state.withLock { state -> Int in
            state.nextId += 1
            return state.nextId
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
                let (step, displaced) = state.withLock { state -> (Take, Waiter?) in
                    if !state.buffer.isEmpty {
                        state.taken += 1
                        return (.value(state.buffer.removeFirst()), nil)
                    }
                    if Task.isCancelled { return (.cancelled, nil) }
                    let displaced = state.waiter
                    state.waiter = Waiter(id: id, continuation: continuation, timer: nil)
                    return (.parked, displaced)
                }
                displaced?.timer?.cancel()
                displaced?.continuation.resume(returning: nil)
                switch step {
                case .value(let value): continuation.resume(returning: value)
                case .cancelled: continuation.resume(returning: nil)
                case .parked:
                    let timer = Task { [weak self] in
                        guard (try? await Task.sleep(for: timeout)) != nil else { return }
                        self?.expire(id)
                    }
                    let stale = state.withLock { state -> Bool in
                        guard state.waiter?.id == id else { return true }
                        state.waiter?.timer = timer
                        return false
                    }
                    if stale { timer.cancel() }
                }
            }
        } onCancel: {
            expire(id)
        }
    }

    /// Ends take `id` with nil if it is still waiting.
    private func expire(_ id: Int) {
        let waiter = state.withLock { state -> Waiter? in
            guard state.waiter?.id == id else { return nil }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.timer?.cancel()
        waiter?.continuation.resume(returning: nil)
    }

    /// Removes and returns every buffered value (those put but never taken).
    func drain() -> [Value] {
        state.withLock { state in
            defer { state.buffer.removeAll() }
            return state.buffer
        }
    }

    /// How many values have been taken so far.
    var takenCount: Int { state.withLock { $0.taken } }
}
