import CheckoutTestSupport
import CheckoutLocking
import Dispatch
import Foundation
import SQLiteKit
import Testing

@Suite("DatabasePool")
struct DatabasePoolTests {
    @Test("concurrent writers from many tasks never lose a write")
    func concurrentWrites() async throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.path("db.sqlite"))
        try pool.writeWithoutTransaction { try $0.execute("CREATE TABLE counter (n INTEGER); INSERT INTO counter VALUES (0)") }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    for _ in 0..<20 {
                        try pool.write { try $0.run("UPDATE counter SET n = n + 1") }
                    }
                }
            }
            try await group.waitForAll()
        }
        let count = try pool.read { database in
            try database.withStatement("SELECT n FROM counter") { try $0.step() ? $0.int(at: 0) : -1 }
        }
        #expect(count == 2_000)
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
}
