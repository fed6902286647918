/// The subscribers of an `AsyncStream` publisher: the one piece of code that hands values to any
/// number of readers, used by every publisher in the package (a session's outcomes, `StateBroadcaster`,
/// the sync engine's events).
///
/// It lives inside its owner's lock: the owner adds, removes and yields while holding it, so every
/// subscriber sees values in one order. Streams buffer without limit, so a slow reader never makes a
/// writer wait; a reader that stops iterating is removed when its stream terminates. Once finished,
/// the list keeps no subscriber, and a new one gets a stream that ends at once (after whatever the
/// owner replays to it).
public struct SubscriberList<Element: Sendable>: Sendable {
    private var continuations: [Int: AsyncStream<Element>.Continuation] = [:]
    private var nextId = 0
    /// Whether `finish()` was called: no subscriber is kept from then on.
    public private(set) var isFinished = false

    /// An empty list.
    public init() {}

    /// How many subscribers are listening.
    public var count: Int { continuations.count }

    /// Keeps `continuation` and returns its id, or nil once finished (the caller then ends the stream).
    public mutating func add(_ continuation: AsyncStream<Element>.Continuation) -> Int? {
        guard !isFinished else { return nil }
        let id = nextId
        nextId += 1
        continuations[id] = continuation
        return id
    }

    /// Forgets the subscriber `id` (its stream terminated).
    public mutating func remove(_ id: Int) { continuations.removeValue(forKey: id) }

    /// Hands `element` to every subscriber.
    public func yield(_ element: Element) {
        for continuation in continuations.values { continuation.yield(element) }
    }

    /// The subscribers now, for an owner that yields after unlocking (in an order it keeps itself).
    public var current: [AsyncStream<Element>.Continuation] { Array(continuations.values) }

    /// Removes every subscriber and returns them, to end outside the lock; the list stays open, and its
    /// ids stay unique, so a stream that terminates later can never remove a newer subscriber.
    public mutating func takeAll() -> [AsyncStream<Element>.Continuation] {
        defer { continuations.removeAll() }
        return Array(continuations.values)
    }

    /// Marks the list finished and returns the subscribers to end, outside the lock.
    public mutating func finish() -> [AsyncStream<Element>.Continuation] {
        isFinished = true
        return takeAll()
    }

    /// A new subscriber's stream. `register` runs the owner's locked part with the stream's
    /// continuation (replaying what a late subscriber must see first, then `add`), returning the id
    /// or nil; `unregister` removes an id under the owner's lock when the reader stops.
    public static func stream(register: (AsyncStream<Element>.Continuation) -> Int?,
                              unregister: @escaping @Sendable (Int) -> Void) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: .unbounded)
        guard let id = register(continuation) else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { _ in unregister(id) }
        return stream
    }
}
