import CheckoutLocking

/// Wakes the sync engine's background loop: a local write, a reconnect, or a request to stop waiting.
///
/// A fired trigger nobody waits for is remembered (once per kind) so a write made while a round
/// runs still causes the next round. One waiter at a time (the engine's loop).
final class SyncTrigger: Sendable {
    /// Why the loop should wake.
    enum Kind: Hashable, Sendable {
        /// The store was written locally.
        case localWrite
        /// The network came back.
        case reconnect
    }

    private struct Waiter {
        var accepting: Set<Kind>
        var continuation: CheckedContinuation<Kind?, Never>
    }

    private struct State {
        var pending: Set<Kind> = []
        var waiter: Waiter?
    }

    private let state = Locked(State())

    /// Delivers `kind` to the waiter if it accepts it, else remembers it.
    func fire(_ kind: Kind) {
        let waiter = state.withLock { state -> Waiter? in
            if let waiter = state.waiter, waiter.accepting.contains(kind) {
                state.waiter = nil
                return waiter
            }
            state.pending.insert(kind)
            return nil
        }
        waiter?.continuation.resume(returning: kind)
    }

    /// Forgets remembered triggers (a round is about to start and will see their effect).
    func clear() {
        state.withLock { $0.pending.removeAll() }
    }

    /// Waits for a trigger of one of the `accepting` kinds (a remembered one returns at once);
    /// nil when the calling task is cancelled.
    func wait(accepting: Set<Kind>) async -> Kind? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Kind?, Never>) in
                let immediate = state.withLock { state -> Kind?? in
                    if let kind = state.pending.first(where: accepting.contains) {
                        state.pending.remove(kind)
                        return .some(kind)
                    }
                    // Checked under the lock: `onCancel` takes the same lock after the flag is set.
                    if Task.isCancelled { return .some(nil) }
                    state.waiter = Waiter(accepting: accepting, continuation: continuation)
                    return .none
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.continuation.resume(returning: nil)
        }
    }
}
