import CheckoutLocking

/// A parked call of a test remote (`RemoteFaults.hold`): the test waits until the call arrives, looks at the
/// world while it hangs (e.g. checkout still lists the cache), then lets it continue.
public final class RemoteVaultHold: Sendable {
    private struct State {
        var reached = false
        var released = false
        var parked: CheckedContinuation<Void, Never>?
        var reachedWaiters: [(id: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var nextWaiterId = 0
    }

    private let state = Locked(State())

    init() {}

    /// Returns once the held call has arrived (or the caller is cancelled: a test over its time
    /// limit must end).
    public func waitUntilReached() async {
        let id = state.withLock { state -> Int in
            defer { state.nextWaiterId += 1 }
            return state.nextWaiterId
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let reached = state.withLock { state -> Bool in
                    if state.reached || Task.isCancelled { return true }
                    state.reachedWaiters.append((id, continuation))
                    return false
                }
                if reached { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let index = state.reachedWaiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.reachedWaiters.remove(at: index).continuation
            }
            waiter?.resume()
        }
    }

    /// True once the held call has arrived.
    public var isReached: Bool { state.withLock { $0.reached } }

    /// Lets the held call continue (or lets it pass straight through if it has not arrived yet).
    public func release() {
        let parked = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.released = true
            defer { state.parked = nil }
            return state.parked
        }
        parked?.resume()
    }

    /// Called by the vault: signals arrival and waits for `release()`.
    func park() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (released, waiters) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                state.reached = true
                let waiters = state.reachedWaiters.map(\.continuation)
                state.reachedWaiters.removeAll()
                if !state.released { state.parked = continuation }
                return (state.released, waiters)
            }
            waiters.forEach { $0.resume() }
            if released { continuation.resume() }
        }
    }
}
