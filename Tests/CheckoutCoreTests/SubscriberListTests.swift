import CheckoutCore
import CheckoutLocking
import Testing

/// The one subscriber list every publisher uses: order, removal of a reader that stopped, ids never
/// reused across `takeAll()`, and streams that end at once after `finish()`.
@Suite struct SubscriberListTests {
    final class Publisher: Sendable {
        let list = Locked(SubscriberList<Int>())
        func stream() -> AsyncStream<Int> {
            SubscriberList.stream(register: { continuation in list.withLock { $0.add(continuation) } },
                                  unregister: { [weak self] id in self?.list.withLock { $0.remove(id) } })
        }
        func send(_ value: Int) { list.withLock { $0.yield(value) } }
        var count: Int { list.withLock { $0.count } }
    }

    @Test func everySubscriberGetsEveryValueInOrderUntilFinished() async {
        let publisher = Publisher()
        let first = publisher.stream(), second = publisher.stream()
        #expect(publisher.count == 2)
        for value in 1...3 { publisher.send(value) }
        for continuation in publisher.list.withLock({ $0.finish() }) { continuation.finish() }
        var a: [Int] = [], b: [Int] = []
        for await value in first { a.append(value) }
        for await value in second { b.append(value) }
        #expect(a == [1, 2, 3] && b == [1, 2, 3])
        // After finish a new subscriber's stream ends at once, and nothing is kept.
        var late: [Int] = []
        for await value in publisher.stream() { late.append(value) }
        #expect(late.isEmpty && publisher.count == 0)
    }

    @Test func aReaderThatStopsIsRemovedAndIdsAreNotReused() async {
        let publisher = Publisher()
        var stopped: AsyncStream<Int>? = publisher.stream()
        #expect(publisher.count == 1)
        stopped = nil  // the stream is released: its termination removes its subscriber
        #expect(stopped == nil && publisher.count == 0)

        // takeAll empties the list but keeps it open; an old stream ending later removes nobody new.
        let old = publisher.stream()
        let taken = publisher.list.withLock { $0.takeAll() }
        #expect(taken.count == 1 && publisher.count == 0)
        let fresh = publisher.stream()
        for continuation in taken { continuation.finish() }
        for await _ in old {}
        #expect(publisher.count == 1, "the old stream's end removed the new subscriber")
        publisher.send(7)
        for continuation in publisher.list.withLock({ $0.finish() }) { continuation.finish() }
        var received: [Int] = []
        for await value in fresh { received.append(value) }
        #expect(received == [7])
    }
}
