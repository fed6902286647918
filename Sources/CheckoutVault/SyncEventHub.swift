import CheckoutLocking

/// Delivers events (not state) to any number of `AsyncStream` subscribers.
///
/// Unlike `StateBroadcaster` there is no current value: a subscriber receives the events sent
/// after it subscribed, in order. Streams buffer without limit so the engine never waits for a reader.
final class SyncEventHub<Event: Sendable>: Sendable {
    private struct State {
        var subscribers: [Int: AsyncStream<Event>.Continuation] = [:]
        var nextId = 0
        var finished = false
    }

    private let state = Locked(State())

    /// A stream of the events sent from now on.
    func stream() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .unbounded)
        let id = state.withLock { state -> Int? in
            guard !state.finished else { return nil }
            let id = state.nextId
            state.nextId += 1
            state.subscribers[id] = continuation
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Sends `event` to every subscriber (inside the lock, so every subscriber sees one order).
    func send(_ event: Event) {
        state.withLock { state in
            for continuation in state.subscribers.values { continuation.yield(event) }
        }
    }

    /// Ends every stream; later subscribers get an empty stream.
    func finish() {
        let continuations = state.withLock { state -> [AsyncStream<Event>.Continuation] in
            state.finished = true
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        for continuation in continuations { continuation.finish() }
    }
}
