import CheckoutLocking
import CheckoutTestSupport
import Foundation
@testable import SQLiteKit
import Testing

/// A task waiting for a reader permit stops waiting when it is cancelled, holds no permit
/// afterwards, and keeps no place in line.
@Suite struct ReaderSlotsCancellationTests {
    struct NeverWaiting: Error { let count: Int }

    /// Waits (bounded) until `count` callers wait in line.
    static func waitUntil(_ slots: ReaderSlots, hasWaiting count: Int) async throws {
        let deadline = ContinuousClock.now + TestWait.timeout
        while slots.waitingCount != count {
            guard ContinuousClock.now < deadline else { throw NeverWaiting(count: count) }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    @Test func aCancelledWaiterThrowsAndTheNextInLineIsServed() async throws {
        let slots = ReaderSlots(count: 1)
        _ = try await slots.acquire()  // the only permit
        let first = Task { try await slots.acquire() }
        try await Self.waitUntil(slots, hasWaiting: 1)
        let cancelled = Task { try await slots.acquire() }
        try await Self.waitUntil(slots, hasWaiting: 2)
        let third = Task { try await slots.acquire() }
        try await Self.waitUntil(slots, hasWaiting: 3)

        cancelled.cancel()
        // Bounded: a waiter the cancellation missed would wait for a release that comes later.
        try await Self.waitUntil(slots, hasWaiting: 2)
        await #expect(throws: CancellationError.self) { try await cancelled.value }

        slots.release(nil)  // to the first in line
        _ = try await first.value
        slots.release(nil)  // past the cancelled place, to the third
        _ = try await third.value
        slots.release(nil)
        #expect(slots.waitingCount == 0)
        // One permit, free again: taken at once, and the next caller waits.
        _ = try await slots.acquire()
        let late = Task { try await slots.acquire() }
        try await Self.waitUntil(slots, hasWaiting: 1)
        late.cancel()
        try await Self.waitUntil(slots, hasWaiting: 0)
        await #expect(throws: CancellationError.self) { try await late.value }
    }

    @Test func aTaskCancelledBeforeItWaitsThrowsOnlyWhenNoPermitIsFree() async throws {
        let slots = ReaderSlots(count: 1)
        let free = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await slots.acquire()
        }
        _ = try await free.value  // a free permit is still handed out
        let cancelledBusy = Locked<Bool?>(nil)
        Task {
            withUnsafeCurrentTask { $0?.cancel() }
            do {
                _ = try await slots.acquire()
                cancelledBusy.withLock { $0 = false }
            } catch {
                cancelledBusy.withLock { $0 = error is CancellationError }
            }
        }
        // Bounded: a task the cancellation missed would wait in line for good.
        let deadline = ContinuousClock.now + TestWait.timeout
        while cancelledBusy.withLock({ $0 }) == nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        #expect(cancelledBusy.withLock { $0 } == true, "a task cancelled before it waited got in line or a permit")
        #expect(slots.waitingCount == 0)
    }

    @Test func aCancelledPoolReadNeverRunsItsBodyAndThePoolStillServes() async throws {
        let directory = try TemporaryDirectory()
        var configuration = DatabaseConfiguration()
        configuration.maximumReaderCount = 1
        let pool = try DatabasePool(path: directory.path("db.sqlite"), configuration: configuration)
        try await pool.write { try $0.execute("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (7)") }
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let held = DispatchGroup()
        held.enter()
        Thread {
            _ = try? pool.read { _ in holding.signal(); _ = release.waitBounded() }
            held.leave()
        }.start()
        #expect(holding.waitBounded())
        let ran = Locked(false)
        let ended = Locked<(any Error)??>(nil)
        let waiting = Task {
            do {
                try await pool.read { _ in ran.withLock { $0 = true } }
                ended.withLock { $0 = .some(nil) }
            } catch {
                ended.withLock { $0 = .some(error) }
            }
        }
        try await Task.sleep(for: .milliseconds(20))  // most likely in line by now; cancelled earlier works too
        waiting.cancel()
        // The read ends while the reader is still held (bounded: without the cancellation it
        // would wait for the release below).
        let deadline = ContinuousClock.now + TestWait.timeout
        while ended.withLock({ $0 }) == nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        let error = ended.withLock { $0 }
        #expect(error.map { $0 is CancellationError } == true, "the cancelled read did not end with CancellationError while waiting")
        release.signal()
        await waiting.value
        #expect(held.waitBounded())
        #expect(!ran.withLock { $0 })
        #expect(try await pool.read { try $0.withStatement("SELECT x FROM t") { try $0.step() ? $0.int(at: 0) : -1 } } == 7)
    }
}
