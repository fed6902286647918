/// Performs the actions a state machine returned, outside the owner's lock, in the order the
/// transitions produced them, without any caller waiting for another.
///
/// Why: a value-type state machine runs under its owner's lock and returns actions (publish a
/// state, stop a task). Performing them inside the lock would run foreign code there; performing
/// them after unlocking lets two threads' actions overtake each other. The owner `enqueue`s inside
/// its lock (so the queue's order is the transitions' order) and calls `drain` after unlocking.
/// Whoever drains first performs every queued action, including those other threads add
/// meanwhile; a `drain` that finds someone else draining returns at once, so nobody blocks.
/// ```swift
/// let actions = storage.withLock { state in
///     let transition = state.machine.handle(.cancel)
///     queue.enqueue(transition.actions)
/// }
/// queue.drain { action in perform(action) }
/// ```
public final class ActionQueue<Action: Sendable>: Sendable {
    private struct Storage {
        var queued: [Action] = []
        var draining = false
    }

    private let storage = Locked(Storage())

    /// Creates an empty queue.
    public init() {}

    /// Appends `actions` after every action queued before; call it inside the owner's lock.
    public func enqueue(_ actions: [Action]) {
        guard !actions.isEmpty else { return }
        storage.withLock { $0.queued.append(contentsOf: actions) }
    }

    /// Performs every queued action in order with `perform`, unless another caller is already
    /// draining (that caller then performs them). Call it outside the owner's lock.
    public func drain(_ perform: (Action) -> Void) {
        let claimed = storage.withLock { storage -> Bool in
            guard !storage.draining, !storage.queued.isEmpty else { return false }
            storage.draining = true
            return true
        }
        guard claimed else { return }
        while true {
            let batch = storage.withLock { storage -> [Action] in
                defer { storage.queued.removeAll() }
                if storage.queued.isEmpty { storage.draining = false }
                return storage.queued
            }
            if batch.isEmpty { return }
            for action in batch { perform(action) }
        }
    }
}
