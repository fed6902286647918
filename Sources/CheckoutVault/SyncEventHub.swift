import CheckoutLocking
import CheckoutPlatform

/// Delivers events (not state) to any number of `AsyncStream` subscribers.
///
/// Unlike `StateBroadcaster` there is no current value: a subscriber receives the events sent
/// after it subscribed, in order. Streams buffer without limit so the engine never waits for a reader.
final class SyncEventHub<Event: Sendable>: Sendable {
    private let subscribers = Locked(SubscriberList<Event>())

    /// A stream of the events sent from now on.
    func stream() -> AsyncStream<Event> {
        SubscriberList.stream(register: { continuation in subscribers.withLock { $0.add(continuation) } },
                              unregister: { [weak self] id in self?.subscribers.withLock { $0.remove(id) } })
    }

    /// Sends `event` to every subscriber (inside the lock, so every subscriber sees one order).
    func send(_ event: Event) {
        subscribers.withLock { $0.yield(event) }
    }

    /// Ends every stream; later subscribers get an empty stream.
    func finish() {
        for continuation in subscribers.withLock({ $0.finish() }) { continuation.finish() }
    }
}
