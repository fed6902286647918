import CheckoutLocking
import Testing

/// Actions performed outside a lock keep the order they were queued in, and nobody waits.
@Suite struct ActionQueueTests {
    /// Records what was performed; only touched by the one drainer at a time.
    final class Log: @unchecked Sendable { // mutated only inside `drain`, which runs one drainer at a time
        var performed: [Int] = []
    }

    /// Hands out consecutive numbers and queues each atomically, as an owner queues inside its lock.
    final class Producer: Sendable {
        let queue = ActionQueue<Int>()
        private let next = Locked(0)

        func produce() {
            next.withLock { next in
                queue.enqueue([next])
                next += 1
            }
        }
    }

    @Test func drainPerformsEveryQueuedActionInOrderOnce() {
        let queue = ActionQueue<Int>()
        let log = Log()
        queue.enqueue([1, 2])
        queue.enqueue([])
        queue.enqueue([3])
        queue.drain { log.performed.append($0) }
        queue.drain { log.performed.append($0 * 100) }
        #expect(log.performed == [1, 2, 3])
    }

    @Test func aDrainWhileAnotherIsDrainingLeavesTheWorkToIt() {
        let queue = ActionQueue<Int>()
        let log = Log()
        var innerReturned = false
        queue.enqueue([1])
        queue.drain { action in
            log.performed.append(action)
            if action == 1 {
                // What another thread does meanwhile: queue more and try to drain.
                queue.enqueue([2, 3])
                queue.drain { log.performed.append($0 * 100) }
                innerReturned = true
                #expect(log.performed == [1], "the second drain performs nothing and returns at once")
            }
        }
        #expect(innerReturned)
        #expect(log.performed == [1, 2, 3], "the first drainer performs what was queued meanwhile, in order")
        queue.enqueue([4])
        queue.drain { log.performed.append($0) }
        #expect(log.performed == [1, 2, 3, 4], "draining is free again afterwards")
    }

    @Test func concurrentProducersNeverLoseOrReorderTheirActions() async {
        let producer = Producer()
        let log = Log()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<200 {
                        producer.produce()
                        producer.queue.drain { log.performed.append($0) }
                    }
                }
            }
        }
        producer.queue.drain { log.performed.append($0) }
        #expect(log.performed == Array(0..<1600))
    }
}
