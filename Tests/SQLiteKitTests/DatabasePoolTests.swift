import CheckoutTestSupport
import CheckoutLocking
import Dispatch
import Foundation
import SQLiteKit
import Testing

@Suite("DatabasePool")
struct DatabasePoolTests {
    @Test("concurrent async writers from many tasks never lose a write")
    func concurrentWrites() async throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.path("db.sqlite"))
        try await pool.writeWithoutTransaction { try $0.execute("CREATE TABLE counter (n INTEGER); INSERT INTO counter VALUES (0)") }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    for _ in 0..<20 {
                        try await pool.write { try $0.run("UPDATE counter SET n = n + 1") }
                    }
                }
            }
            try await group.waitForAll()
        }
        let count = try await pool.read { database in
            try database.withStatement("SELECT n FROM counter") { try $0.step() ? $0.int(at: 0) : -1 }
        }
        #expect(count == 2_000)
    }

    @Test("a write cancelled while it waits its turn ends at once with CancellationError and never runs")
    func cancelledWriteNeverRuns() async throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.path("db.sqlite"))
        try await pool.writeWithoutTransaction { try $0.execute("CREATE TABLE t (n INTEGER)") }
        // A write that holds the writer until the test lets it go.
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holding = Task {
            try await pool.write { database in
                entered.signal()
                release.wait()
                try database.run("INSERT INTO t VALUES (1)")
            }
        }
        #expect(await onOwnThread { entered.wait(timeout: .now() + 60) == .success }, "the holding write never started")
        let queued = Task { try await pool.write { try $0.run("INSERT INTO t VALUES (2)") } }
        queued.cancel()
        // It ends while the writer is still held: the wait itself was cancelled.
        await #expect(throws: CancellationError.self) { try await queued.value }
        release.signal()
        try await holding.value
        let rows = try await pool.read { database in
            try database.withStatement("SELECT n FROM t ORDER BY n") { statement -> [Int] in
                var rows: [Int] = []
                while try statement.step() { rows.append(statement.int(at: 0)) }
                return rows
            }
        }
        #expect(rows == [1], "the cancelled write ran")
        // The writer is free again: the next write runs.
        try await pool.write { try $0.run("INSERT INTO t VALUES (3)") }
        let cancelledFirst = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await pool.write { try $0.run("INSERT INTO t VALUES (4)") }
        }
        await #expect(throws: CancellationError.self) { try await cancelledFirst.value }
        let count = try await pool.read { database in
            try database.withStatement("SELECT count(*) FROM t") { try $0.step() ? $0.int(at: 0) : -1 }
        }
        #expect(count == 2)
    }

    @Test("a read does not wait for an open write and sees the last committed state")
    func readsDoNotWaitForWrites() throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.path("db.sqlite"))
        try pool.write { try $0.execute("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1)") }
        let writeOpen = DispatchSemaphore(value: 0)
        let readDone = DispatchSemaphore(value: 0)
        let observed = Locked<(readValue: Int?, readFinishedInsideWrite: Bool)>((nil, false))
        let writer = Thread {
            try? pool.write { database in
                try database.run("INSERT INTO t VALUES (2)")
                writeOpen.signal()
                // The write stays open until the read finished (or a generous deadlock guard expires).
                let finished = readDone.waitBounded()
                observed.withLock { $0.readFinishedInsideWrite = finished }
            }
        }
        writer.start()
        try #require(writeOpen.waitBounded(), "the write never opened")
        let sum = try pool.read { database in
            try database.withStatement("SELECT sum(x) FROM t") { try $0.step() ? $0.int(at: 0) : -1 }
        }
        observed.withLock { $0.readValue = sum }
        readDone.signal()
        // Wait for the writer to commit.
        while try pool.read({ db in try db.withStatement("SELECT count(*) FROM t") { try $0.step() ? $0.int(at: 0) : 0 } }) < 2 {
            Thread.sleep(forTimeInterval: 0.01)
        }
        let result = observed.withLock { $0 }
        #expect(result.readValue == 1)
        #expect(result.readFinishedInsideWrite)
    }

    @Test("readers cannot write")
    func readersAreReadOnly() throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.path("db.sqlite"))
        try pool.write { try $0.execute("CREATE TABLE t (x INTEGER)") }
        let error = try #require(throws: SQLiteError.self) {
            try pool.read { try $0.execute("INSERT INTO t VALUES (1)") }
        }
        #expect(error.code == .readOnly)
    }

    @Test("async and blocking readers beyond the reader count all finish, never more than the count at once")
    func readersWaitInLine() async throws {
        let directory = try TemporaryDirectory()
        var configuration = DatabaseConfiguration()
        configuration.maximumReaderCount = 2
        let pool = try DatabasePool(path: directory.path("db.sqlite"), configuration: configuration)
        try await pool.write { try $0.execute("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (7)") }
        let occupancy = Occupancy()
        let body: @Sendable (Database) throws -> Int = { database in
            occupancy.enter()
            defer { occupancy.leave() }
            // Long enough for the others to pile up behind the two readers.
            Thread.sleep(forTimeInterval: 0.005)
            return try database.withStatement("SELECT x FROM t") { try $0.step() ? $0.int(at: 0) : -1 }
        }
        let blockingDone = DispatchGroup()
        let blockingValues = Locked<[Int]>([])
        for _ in 0..<6 {
            blockingDone.enter()
            Thread {
                if let value = try? pool.read(body) { blockingValues.withLock { $0.append(value) } }
                blockingDone.leave()
            }.start()
        }
        let values = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<30 { group.addTask { try await pool.read(body) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(blockingDone.waitBounded(), "a blocking reader never got a reader")
        #expect(values == Array(repeating: 7, count: 30))
        #expect(blockingValues.withLock { $0 } == Array(repeating: 7, count: 6))
        #expect((1...2).contains(occupancy.most))
    }

    /// How many reader closures run at once, and the most there ever were.
    final class Occupancy: Sendable {
        private let state = Locked<(now: Int, most: Int)>((0, 0))
        var most: Int { state.withLock { $0.most } }
        func enter() { state.withLock { $0.now += 1; $0.most = max($0.most, $0.now) } }
        func leave() { state.withLock { $0.now -= 1 } }
    }
}
