import CheckoutLocking

/// A parked call of `InMemoryRemoteVault`: the test waits until the call arrives, looks at the
/// world while it hangs (e.g. checkout still lists the cache), then lets it continue.
public final class RemoteVaultHold: Sendable {
    private struct State {
        var reached = false
        var released = false
        var parked: CheckedContinuation<Void, Never>?
        var reachedWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    init() {}

    /// Returns once the held call has arrived.
    public func waitUntilReached() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let reached = state.withLock { state -> Bool in
                if state.reached { return true }
                state.reachedWaiters.append(continuation)
                return false
            }
            if reached { continuation.resume() }
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
                let waiters = state.reachedWaiters
                state.reachedWaiters.removeAll()
                if !state.released { state.parked = continuation }
                return (state.released, waiters)
            }
            waiters.forEach { $0.resume() }
            if released { continuation.resume() }
        }
    }
}
