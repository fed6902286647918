import CheckoutLocking

/// Holds a current value and delivers every change to any number of `AsyncStream` subscribers.
///
/// Each subscriber first receives the current value, then every later value, in order. Streams
/// buffer without limit so a slow reader never makes a writer wait; a reader that stops iterating
/// is removed when its stream terminates. Used by every session and flow to publish `Equatable`
/// snapshots; plugins may use it for their own state.
public final class StateBroadcaster<Value: Sendable>: Sendable {
    private struct Storage {
        var value: Value
        var subscribers = SubscriberList<Value>()
        /// The revision of the last `send(_:revision:)`.
        var revision: UInt64 = 0
    }

    private let storage: Locked<Storage>

    /// Creates a broadcaster holding `initial`.
    public init(_ initial: Value) { storage = Locked(Storage(value: initial)) }

    /// The current value.
    public var value: Value { storage.withLock { $0.value } }

    /// A stream of the current value followed by every change.
    public func stream() -> AsyncStream<Value> {
        SubscriberList.stream(register: { continuation in
            storage.withLock { storage in
                continuation.yield(storage.value)
                return storage.subscribers.add(continuation)
            }
        }, unregister: { [weak self] id in self?.storage.withLock { $0.subscribers.remove(id) } })
    }

    /// Replaces the value and publishes it. Publishing happens inside the lock so that every
    /// subscriber sees changes in the same order as they were made.
    public func send(_ value: Value) {
        storage.withLock { storage in
            storage.value = value
            storage.subscribers.yield(value)
        }
    }

    /// Publishes `value` unless a value with a later `revision` was already sent this way: lets an
    /// owner number its changes under its own lock and publish them after unlocking, without a
    /// late publication of an older change overwriting a newer one. Revisions start above 0.
    public func send(_ value: Value, revision: UInt64) {
        storage.withLock { storage in
            guard revision > storage.revision else { return }
            storage.revision = revision
            storage.value = value
            storage.subscribers.yield(value)
        }
    }

    /// Applies `change` to the current value atomically, publishes the result, and returns what
    /// `change` returned.
    @discardableResult
    public func update<Result>(_ change: (inout Value) throws -> Result) rethrows -> Result {
        try storage.withLock { storage in
            let result = try change(&storage.value)
            storage.subscribers.yield(storage.value)
            return result
        }
    }

    /// Ends every stream; later subscribers get the last value and an immediate end.
    public func finish() {
        for continuation in storage.withLock({ $0.subscribers.finish() }) { continuation.finish() }
    }
}

extension StateBroadcaster where Value: Equatable {
    /// Like `update`, but publishes only when the value really changed.
    @discardableResult
    public func mutate<Result>(_ change: (inout Value) throws -> Result) rethrows -> Result {
        try storage.withLock { storage in
            let before = storage.value
            let result = try change(&storage.value)
            if storage.value != before { storage.subscribers.yield(storage.value) }
            return result
        }
    }
}
