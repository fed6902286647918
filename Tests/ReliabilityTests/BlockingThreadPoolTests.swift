import CheckoutLocking
import Dispatch
import Foundation
import Testing

/// Blocking work runs on one bounded pool: threads are reused, never more than the limit run at
/// once, and work beyond the limit waits in line (suspended) until a thread is free.
@Suite(.timeLimit(.minutes(2)))
struct BlockingThreadPoolTests {
    /// The threads that ran a job.
    final class Threads: Sendable {
        let seen = Locked<Set<ObjectIdentifier>>([])
    }

    @Test("60 blocking jobs on a pool of 3: every job runs, on at most 3 threads, never more than 3 at once")
    func boundedAndReused() async {
        let pool = BlockingThreadPool(limit: 3)
        let threads = Threads()
        let results = await withTaskGroup(of: Int.self) { group -> [Int] in
            for index in 0..<60 {
                group.addTask {
                    await pool.run { () -> Int in
                        threads.seen.withLock { _ = $0.insert(ObjectIdentifier(Thread.current)) }
                        usleep(2_000)  // blocking work
                        return index
                    }
                }
            }
            var results: [Int] = []
            for await value in group { results.append(value) }
            return results
        }
        #expect(results.sorted() == Array(0..<60))
        #expect(pool.threadCount <= 3)
        #expect(pool.mostBusy <= 3)
        #expect(pool.mostBusy >= 2, "the jobs never overlapped: the pool ran them one at a time")
        #expect(threads.seen.withLock { $0.count } <= 3)
    }

    @Test("a job waiting for a later job finishes once a free thread runs the later one")
    func waitsAcrossJobs() async {
        let pool = BlockingThreadPool(limit: 2)
        let gate = DispatchSemaphore(value: 0)
        async let waiter = pool.run { gate.wait(timeout: .now() + 60) == .success }
        async let opener: Void = pool.run { gate.signal() }
        _ = await opener
        #expect(await waiter, "the waiting job never saw the later one run")
        #expect(pool.threadCount == 2)
    }
}
