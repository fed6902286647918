import CheckoutTestSupport
import CheckoutLocking
import CheckoutVault
import Dispatch
import Foundation
import Testing
import VaultServer
@testable import VaultServerPostgres

/// The PostgreSQL storage below HTTP: migrations, isolation, the feed's ordering guarantee,
/// retries, the pool and the error contract.
@Suite(.enabled(if: PostgresTestEnvironment.isConfigured,
                "PostgreSQL tests skipped: CHECKOUTKIT_POSTGRES_URL not set (run: scripts/with-postgres.sh swift test)"))
struct PostgresStorageTests {
    private static let key = CustomerKey(merchant: "merchant_a", customer: "c1")

    private static func row(_ id: String, sequence: Int64, version: Int64 = 1) -> InstrumentRecord {
        InstrumentRecord(id: id, version: version, sequence: sequence, deleted: false, isDefault: false,
                         methodJSON: #"{"id":"\#(id)"}"#, deletedAt: nil)
    }

    @Test("instances starting at once apply each migration once, recorded by name")
    func concurrentMigrations() async throws {
        let schema = try PostgresTestSchema()
        defer { withExtendedLifetime(schema) {} }
        let instances = await withTaskGroup(of: PostgresVaultServerStorage?.self) { group in
            for _ in 0..<4 {
                group.addTask { try? PostgresVaultServerStorage(url: schema.url, options: .init(poolSize: 1)) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(instances.count == 4 && instances.allSatisfy { $0 != nil })
        let connection = try schema.connect()
        let recorded = try connection.execute("SELECT name FROM vault_schema_migrations ORDER BY name")
        #expect((0..<recorded.rowCount).map { recorded.string($0, 0) } == PostgresMigrations.all.map(\.name))
        // With the four instances still open, a later start takes the migration lock (the lock is
        // the cluster's: other tests' schemas hold it for a moment while they start, hence a wait
        // rather than a look at pg_locks) and finds nothing to do.
        _ = try connection.execute("SET lock_timeout = '30s'")
        #expect(try PostgresMigrations.migrate(connection) == [])
        // And it releases the lock after use: this session holds no migration lock.
        let held = try connection.execute("""
            SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 1 AND pid = pg_backend_pid()
              AND objid = \(PostgresMigrations.lockKey & 0xFFFF_FFFF)
            """)
        #expect(try held.int64(0, 0) == 0)
        withExtendedLifetime(instances) {}
    }

    @Test("a second writer of the same customer waits for the first to commit before taking a sequence")
    func sequencesFollowCommitOrder() throws {
        let schema = try PostgresTestSchema()
        defer { withExtendedLifetime(schema) {} }
        let storage = try schema.storage()
        let observer = try schema.connect()
        // Advisory locks are the cluster's, not the schema's: a customer of this test alone, so
        // that another test's writer waiting on its own customer cannot pass for this one's.
        let key = CustomerKey(merchant: "merchant_a", customer: "commit-order-\(UUID().uuidString)")
        let firstHolds = DispatchSemaphore(value: 0)
        let releaseFirst = DispatchSemaphore(value: 0)
        let sequences = Locked<[String: Int64]>([:])
        let group = DispatchGroup()

        DispatchQueue.global().async(group: group) {
            _ = try? storage.transaction { tx in
                _ = try tx.instrument(key, id: "first")
                let sequence = try tx.nextSequence()
                try tx.put(key, Self.row("first", sequence: sequence))
                sequences.withLock { $0["first"] = sequence }
                firstHolds.signal()
                _ = releaseFirst.waitBounded()
            }
        }
        try #require(firstHolds.waitBounded(), "the first writer never started")
        DispatchQueue.global().async(group: group) {
            _ = try? storage.transaction { tx in
                _ = try tx.instrument(key, id: "second")
                let sequence = try tx.nextSequence()
                try tx.put(key, Self.row("second", sequence: sequence))
                sequences.withLock { $0["second"] = sequence }
            }
        }
        // Wait until the server shows the second writer blocked on the customer's advisory lock.
        let waiting = try eventuallyBlocking(timeout: TestWait.timeout) {
            let result = try observer.execute("""
                SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objsubid = 2
                  AND classid = (hashtext('\(key.merchant)')::bigint & 4294967295)::oid
                  AND objid = (hashtext('\(key.customer)')::bigint & 4294967295)::oid
                """)
            return try result.int64(0, 0) >= 1
        }
        #expect(waiting, "the second writer should wait on the customer lock")
        #expect(sequences.withLock { $0["second"] } == nil, "no sequence is taken while the first writer is open")
        // A reader meanwhile sees neither change (nothing is committed) and is not blocked.
        #expect(try storage.read { tx in try tx.changes(key, after: 0, limit: 10) }.isEmpty)

        releaseFirst.signal()
        #expect(group.waitBounded(), "the writers did not finish")
        let taken = sequences.withLock { $0 }
        let first = try #require(taken["first"])
        let second = try #require(taken["second"])
        #expect(first < second)
        let feed = try storage.read { tx in try tx.changes(key, after: 0, limit: 10) }
        #expect(feed.map(\.id) == ["first", "second"])
    }

    @Test("a feed reader racing writers on two storages (two instances) misses nothing", arguments: 0..<8)
    func feedRace(_ round: Int) async throws {
        let schema = try PostgresTestSchema()
        defer { withExtendedLifetime(schema) {} }
        let storages = [try schema.storage(poolSize: 4), try schema.storage(poolSize: 4)]
        let key = CustomerKey(merchant: "merchant_a", customer: "race-\(round)")
        let writers = 6
        let transactionsPerWriter = 15
        let rowsPerTransaction = 4
        let finished = SharedCounter()
        let failures = Locked<[String]>([])
        let group = DispatchGroup()
        for writer in 0..<writers {
            DispatchQueue.global().async(group: group) {
                defer { finished.increment() }
                for transaction in 0..<transactionsPerWriter {
                    do {
                        try storages[writer % 2].transaction { tx in
                            _ = try tx.opRecord(key, opId: "w\(writer)-t\(transaction)")
                            // Several rows per transaction, each followed by a read (a round trip),
                            // hold sequences open for a while before the commit: the window in which
                            // a bare sequence lets a reader jump over a change.
                            for row in 0..<rowsPerTransaction {
                                try tx.put(key, Self.row("w\(writer)-t\(transaction)-r\(row)", sequence: try tx.nextSequence()))
                                _ = try tx.opRecord(key, opId: "probe")
                            }
                        }
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
            }
        }
        // The reader pages with a small limit, alternating storages, until the writers are done
        // and one more pass finds nothing new. It blocks on PostgreSQL for as long as the writers
        // run, so it runs on a thread of its own: eight cases on the cooperative threads would
        // stall every other test of the process for that long.
        let reader = try await onOwnThread { () throws -> FeedRaceReader in
            var reader = FeedRaceReader()
            var cursor: Int64 = 0
            var lastPass = false
            // Bounded by progress (see `eventually(progressing:)`): a loaded machine slows the writers.
            reader.caughtUp = try eventuallyBlocking(progressing: {
                let page = try storages[reader.reads % 2].read { tx in try tx.changes(key, after: cursor, limit: 8) }
                reader.reads += 1
                for row in page {
                    if row.sequence <= cursor { reader.wentBackwards = true }
                    reader.seen.insert(row.id)
                }
                cursor = page.last?.sequence ?? cursor
                if !page.isEmpty { return .progressed }
                if lastPass { return .done }
                lastPass = finished.current == writers
                return .idle
            })
            reader.writersFinished = group.waitBounded()
            return reader
        }
        let seen = reader.seen
        #expect(!reader.wentBackwards, "the feed went backwards")
        #expect(reader.caughtUp, "the reader saw nothing new for \(TestWait.timeout) before the writers finished")
        #expect(reader.writersFinished, "the writers did not finish")
        #expect(failures.withLock { $0 } == [])
        let expected = writers * transactionsPerWriter * rowsPerTransaction
        let all = try storages[0].read { tx in try tx.changes(key, after: 0, limit: expected + 1) }
        #expect(all.count == expected)
        let missed = Set(all.map(\.id)).subtracting(seen)
        #expect(missed.isEmpty, "the reader missed \(missed.count) committed changes, e.g. \(missed.sorted().prefix(3))")
    }

    /// What the feed-race reader saw (it runs on a thread of its own; the test checks it after).
    struct FeedRaceReader: Sendable {
        var seen = Set<String>()
        var reads = 0
        var wentBackwards = false
        var caughtUp = false
        var writersFinished = false
    }

    @Test("writers of different customers do not wait for each other")
    func customersAreIndependent() throws {
        let schema = try PostgresTestSchema()
        defer { withExtendedLifetime(schema) {} }
        let storage = try schema.storage()
        let otherKey = CustomerKey(merchant: "merchant_a", customer: "c2")
        let firstHolds = DispatchSemaphore(value: 0)
        let releaseFirst = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            _ = try? storage.transaction { tx in
                _ = try tx.instrument(Self.key, id: "a")
                firstHolds.signal()
                _ = releaseFirst.waitBounded()
            }
        }
        try #require(firstHolds.waitBounded(), "the first writer never started")
        // Runs to completion on this thread while c1's writer is open: it would hang if it waited.
        try storage.transaction { tx in
            _ = try tx.instrument(otherKey, id: "b")
            try tx.put(otherKey, Self.row("b", sequence: try tx.nextSequence()))
        }
        releaseFirst.signal()
        #expect(group.waitBounded(), "the writers did not finish")
        #expect(try storage.read { tx in try tx.changes(otherKey, after: 0, limit: 10) }.map(\.id) == ["b"])
    }

    @Test("a throw rolls back every write of the transaction")
    func rollback() throws {
        struct Abort: Error {}
        let schema = try PostgresTestSchema()
        defer { withExtendedLifetime(schema) {} }
        let storage = try schema.storage()
        #expect(throws: Abort.self) {
            try storage.transaction { tx in
                _ = try tx.instrument(Self.key, id: "x")
                try tx.put(Self.key, Self.row("x", sequence: try tx.nextSequence()))
                try tx.putOpRecord(Self.key, StoredOpRecord(opId: "op", bodyHash: "h", resultJSON: "{}", createdAt: 1))
                throw Abort()
            }
        }
        let state = try storage.read { tx in
            (try tx.instrument(Self.key, id: "x"), try tx.opRecord(Self.key, opId: "op"))
        }
        #expect(state.0 == nil)
        #expect(state.1 == nil)
    }

    @Test("a transient failure re-runs the whole body; the failed attempt leaves nothing behind", arguments: ["40001", "40P01"])
    func transientRetry(_ sqlState: String) throws {
        let schema = try PostgresTestSchema()
        defer { withExtendedLifetime(schema) {} }
        let storage = try schema.storage()
        let attempts = Locked(0)
        let version = try storage.transaction { tx -> Int64 in
            let attempt = attempts.withLock { $0 += 1; return $0 }
            let existing = try tx.instrument(Self.key, id: "x")
            try tx.put(Self.key, Self.row("x", sequence: try tx.nextSequence(), version: (existing?.version ?? 0) + 1))
            if attempt == 1 { throw PostgresError(.statementFailed, sqlState: sqlState, message: "simulated") }
            return (existing?.version ?? 0) + 1
        }
        #expect(attempts.withLock { $0 } == 2)
        #expect(version == 1)
        #expect(try storage.read { tx in try tx.instrument(Self.key, id: "x")?.version } == 1)
    }

    @Test("a non-transient failure is not retried")
    func noRetryOnOtherErrors() throws {
        let schema = try PostgresTestSchema()
        defer { withExtendedLifetime(schema) {} }
        let storage = try schema.storage()
        let attempts = Locked(0)
        #expect(throws: PostgresError.self) {
            try storage.transaction { tx in
                attempts.withLock { $0 += 1 }
                _ = try tx.instrument(Self.key, id: "x")
                throw PostgresError(.statementFailed, sqlState: "23505", message: "simulated")
            }
        }
        #expect(attempts.withLock { $0 } == 1)
    }

    @Test("a queued write that fails makes the transaction fail as a whole, and the connection stays usable")
    func deferredWriteFailure() throws {
        let schema = try PostgresTestSchema()
        defer { withExtendedLifetime(schema) {} }
        let storage = try PostgresVaultServerStorage(url: schema.url, options: .init(poolSize: 1))
        let record = StoredOpRecord(opId: "op", bodyHash: "h", resultJSON: "{}", createdAt: 1)
        let atCommit = #expect(throws: PostgresError.self) {
            try storage.transaction { tx in
                _ = try tx.instrument(Self.key, id: "x")
                try tx.put(Self.key, Self.row("x", sequence: try tx.nextSequence()))
                try tx.putOpRecord(Self.key, record)
                try tx.putOpRecord(Self.key, record)
            }
        }
        #expect(atCommit?.sqlState == "23505")
        // The failure also surfaces at the next read inside the transaction, not later.
        let reads = Locked(0)
        let atRead = #expect(throws: PostgresError.self) {
            try storage.transaction { tx in
                try tx.putOpRecord(Self.key, record)
                try tx.putOpRecord(Self.key, record)
                _ = try tx.instrument(Self.key, id: "x")
                reads.withLock { $0 += 1 }
            }
        }
        #expect(atRead?.sqlState == "23505")
        #expect(reads.withLock { $0 } == 0)
        // Nothing of either transaction is stored, and the single pooled connection still works.
        let state = try storage.read { tx in (try tx.instrument(Self.key, id: "x"), try tx.opRecord(Self.key, opId: "op")) }
        #expect(state.0 == nil)
        #expect(state.1 == nil)
        try storage.transaction { tx in try tx.putOpRecord(Self.key, record) }
        #expect(try storage.read { tx in try tx.opRecord(Self.key, opId: "op") } == record)
    }

    @Test("sequences fetched ahead are handed out in increasing order, across fetches")
    func sequenceFetchAhead() throws {
        let schema = try PostgresTestSchema()
        defer { withExtendedLifetime(schema) {} }
        let storage = try schema.storage()
        let first = try storage.transaction { tx in
            _ = try tx.instrument(Self.key, id: "x")
            return try (0..<100).map { _ in try tx.nextSequence() }
        }
        #expect(first == Array(first[0]...(first[0] + 99)))
        let second = try storage.transaction { tx in
            _ = try tx.instrument(Self.key, id: "x")
            return try tx.nextSequence()
        }
        #expect(second > first[99])
    }

    @Test("a batch's op records read at once answer as one-by-one lookups do, the batch's own records and awkward ids included")
    func prefetchedOpRecords() throws {
        let schema = try PostgresTestSchema()
        defer { withExtendedLifetime(schema) {} }
        let storage = try schema.storage()
        // Ids that an array literal must quote and escape to keep whole.
        let ids = ["op-plain", #"op "quoted""#, #"op\back"#, "op,comma", "op{brace}", "op NULL", "op-é"]
        func record(_ id: String, _ hash: String) -> StoredOpRecord {
            StoredOpRecord(opId: id, bodyHash: hash, resultJSON: #"{"opId":"x"}"#, createdAt: 7)
        }
        try storage.transaction { tx in
            for id in ids.prefix(4) { try tx.putOpRecord(Self.key, record(id, "first")) }
        }
        let other = CustomerKey(merchant: "merchant_a", customer: "c2")
        try storage.transaction { tx in try tx.putOpRecord(other, record("op-plain", "other")) }
        let seen = try storage.transaction { tx -> [StoredOpRecord?] in
            try tx.prefetchOpRecords(Self.key, opIds: ids + ["op-new"])
            var seen = try ids.map { try tx.opRecord(Self.key, opId: $0) }
            // The batch's own record is seen by a later lookup of the same id.
            try tx.putOpRecord(Self.key, record("op-new", "second"))
            seen.append(try tx.opRecord(Self.key, opId: "op-new"))
            // An id that was not prefetched is still looked up.
            seen.append(try tx.opRecord(Self.key, opId: "op-later"))
            return seen
        }
        let expected: [StoredOpRecord?] = ids.prefix(4).map { record($0, "first") } + [nil, nil, nil]
            + [record("op-new", "second"), nil]
        #expect(seen == expected)
        #expect(try storage.read { tx in try tx.opRecord(Self.key, opId: "op-new") } == record("op-new", "second"))
        #expect(PostgresStorageTransaction.textArray(["a\"b", "c\\d"]) == #"{"a\"b","c\\d"}"#)
    }

    @Test("a customer over the cache's size: a batch's rows read at once answer as one-by-one lookups do")
    func prefetchedInstrumentsOfALargeCustomer() throws {
        let schema = try PostgresTestSchema()
        defer { withExtendedLifetime(schema) {} }
        let storage = try schema.storage()
        let count = PostgresStorageTransaction.cacheLimit + 20
        try storage.transaction { tx in
            _ = try tx.instrument(Self.key, id: "x")
            for index in 0..<count { try tx.put(Self.key, Self.row("r\(index)", sequence: try tx.nextSequence())) }
        }
        let ids = ["r0", "r7", "r\(count - 1)", "absent", #"r "q" \"#]
        let direct = try storage.transaction { tx in try ids.map { try tx.instrument(Self.key, id: $0) } }
        #expect(direct.compactMap { $0 }.count == 3)
        let (prefetched, afterPut) = try storage.transaction { tx -> ([InstrumentRecord?], InstrumentRecord?) in
            try tx.prefetchInstruments(Self.key, ids: ids)
            let seen = try ids.map { try tx.instrument(Self.key, id: $0) }
            try tx.put(Self.key, Self.row("absent", sequence: try tx.nextSequence(), version: 1))
            return (seen, try tx.instrument(Self.key, id: "absent"))
        }
        #expect(prefetched == direct)
        #expect(afterPut?.id == "absent")
        #expect(try storage.read { tx in try tx.instrument(Self.key, id: "absent") } == afterPut)
    }

    @Test("a read transaction refuses writes and sequences")
    func readIsReadOnly() throws {
        let schema = try PostgresTestSchema()
        defer { withExtendedLifetime(schema) {} }
        let storage = try schema.storage()
        let put = #expect(throws: PostgresError.self) {
            try storage.read { tx in try tx.put(Self.key, Self.row("x", sequence: 1)) }
        }
        #expect(put?.sqlState == "25006")
        let sequence = #expect(throws: PostgresError.self) {
            try storage.read { tx in _ = try tx.nextSequence() }
        }
        #expect(sequence?.code == .misuse)
    }

    @Test("a sequence before any customer-scoped call is refused")
    func sequenceNeedsLock() throws {
        let schema = try PostgresTestSchema()
        defer { withExtendedLifetime(schema) {} }
        let storage = try schema.storage()
        let error = #expect(throws: PostgresError.self) {
            try storage.transaction { tx in _ = try tx.nextSequence() }
        }
        #expect(error?.code == .misuse)
    }

    @Test("a row stored with a sequence drawn before its customer's lock is refused")
    func sequenceBeforeOtherCustomersLock() throws {
        let schema = try PostgresTestSchema()
        defer { withExtendedLifetime(schema) {} }
        let storage = try schema.storage()
        let other = CustomerKey(merchant: "merchant_a", customer: "c2")
        let error = #expect(throws: PostgresError.self) {
            try storage.transaction { tx in
                _ = try tx.instrument(Self.key, id: "x")
                let early = try tx.nextSequence()
                try tx.put(other, Self.row("y", sequence: early))
            }
        }
        #expect(error?.code == .misuse)
        // Drawn after both locks, the same write is fine.
        try storage.transaction { tx in
            _ = try tx.instrument(Self.key, id: "x")
            _ = try tx.instrument(other, id: "y")
            try tx.put(other, Self.row("y", sequence: try tx.nextSequence()))
        }
        #expect(try storage.read { tx in try tx.instrument(other, id: "y") }?.id == "y")
    }

    @Test("a write transaction answers from its copy of the customer's rows exactly as the database does",
          arguments: [5, PostgresStorageTransaction.cacheLimit + 10])
    func cachedReadsMatchDatabase(_ rowCount: Int) throws {
        let schema = try PostgresTestSchema()
        defer { withExtendedLifetime(schema) {} }
        let storage = try schema.storage()
        // Ids whose byte order differs from a locale's order; some defaults, some tombstones.
        let ids = (0..<rowCount).map { ["Zeta-\($0)", "alpha-\($0)", "Äpfel-\($0)", "_x-\($0)"][$0 % 4] }
        try storage.transaction { tx in
            _ = try tx.instrument(Self.key, id: "none")
            for (index, id) in ids.enumerated() {
                try tx.put(Self.key, InstrumentRecord(id: id, version: 1, sequence: try tx.nextSequence(), deleted: index % 5 == 4,
                                                      isDefault: index % 7 == 0, methodJSON: index % 5 == 4 ? nil : "{}",
                                                      deletedAt: index % 5 == 4 ? 100 : nil))
            }
        }
        let fromDatabase = try storage.read { tx in
            (try tx.liveInstruments(Self.key), try ids.map { try tx.instrument(Self.key, id: $0) })
        }
        let inWrite = try storage.transaction { tx in
            (try tx.liveInstruments(Self.key), try ids.map { try tx.instrument(Self.key, id: $0) })
        }
        #expect(inWrite.0 == fromDatabase.0)
        #expect(inWrite.1 == fromDatabase.1)
        // The copy follows the transaction's own writes and purges.
        let afterWrites = try storage.transaction { tx -> ([InstrumentRecord], InstrumentRecord?, InstrumentRecord?) in
            _ = try tx.liveInstruments(Self.key)
            var changed = try #require(try tx.instrument(Self.key, id: ids[0]))
            changed.isDefault = false
            changed.version += 1
            changed.sequence = try tx.nextSequence()
            try tx.put(Self.key, changed)
            try tx.purgeTombstones(Self.key, deletedAtOrBefore: 100)
            return (try tx.liveInstruments(Self.key), try tx.instrument(Self.key, id: ids[0]), try tx.instrument(Self.key, id: ids[4]))
        }
        let committed = try storage.read { tx in
            (try tx.liveInstruments(Self.key), try tx.instrument(Self.key, id: ids[0]), try tx.instrument(Self.key, id: ids[4]))
        }
        #expect(afterWrites.0 == committed.0)
        #expect(afterWrites.1 == committed.1)
        #expect(afterWrites.1?.version == 2)
        #expect(afterWrites.2 == nil)
        #expect(committed.2 == nil)
    }

    @Test("primitives round-trip every field, NULLs and non-ASCII text included")
    func roundTrip() throws {
        let schema = try PostgresTestSchema()
        defer { withExtendedLifetime(schema) {} }
        let storage = try schema.storage()
        let tombstone = InstrumentRecord(id: "tök-1 ✓", version: 7, sequence: 0, deleted: true, isDefault: false,
                                         methodJSON: nil, deletedAt: 1_800_000_000_123)
        let live = InstrumentRecord(id: "tok-2", version: 3, sequence: 0, deleted: false, isDefault: true,
                                    methodJSON: #"{"name":"Zoë \"Q\" O'Brien; DROP TABLE x"}"#, deletedAt: nil)
        let stored = try storage.transaction { tx -> [InstrumentRecord] in
            _ = try tx.instrument(Self.key, id: "any")
            var rows: [InstrumentRecord] = []
            for var row in [tombstone, live] {
                row.sequence = try tx.nextSequence()
                try tx.put(Self.key, row)
                rows.append(row)
            }
            try tx.putOpRecord(Self.key, StoredOpRecord(opId: "op-1", bodyHash: "abc", resultJSON: #"{"ok":true}"#, createdAt: 42))
            return rows
        }
        let read = try storage.read { tx in
            (try tx.changes(Self.key, after: 0, limit: 10), try tx.liveInstruments(Self.key),
             try tx.instrument(Self.key, id: "tök-1 ✓"), try tx.opRecord(Self.key, opId: "op-1"),
             try tx.hasTombstones(Self.key, deletedAtOrBefore: 1_800_000_000_123),
             try tx.hasTombstones(Self.key, deletedAtOrBefore: 1_800_000_000_122))
        }
        #expect(read.0 == stored)
        #expect(read.1 == [stored[1]])
        #expect(read.2 == stored[0])
        #expect(read.3 == StoredOpRecord(opId: "op-1", bodyHash: "abc", resultJSON: #"{"ok":true}"#, createdAt: 42))
        #expect(read.4)
        #expect(!read.5)
        // Another customer and another merchant see nothing of it.
        for other in [CustomerKey(merchant: "merchant_a", customer: "c2"), CustomerKey(merchant: "merchant_b", customer: "c1")] {
            let seen = try storage.read { tx in
                (try tx.changes(other, after: 0, limit: 10), try tx.instrument(other, id: "tok-2"), try tx.opRecord(other, opId: "op-1"))
            }
            #expect(seen.0.isEmpty)
            #expect(seen.1 == nil)
            #expect(seen.2 == nil)
        }
    }

    @Test("purging raises the horizon to the highest purged sequence and never lowers it")
    func purge() throws {
        let schema = try PostgresTestSchema()
        defer { withExtendedLifetime(schema) {} }
        let storage = try schema.storage()
        let sequences = try storage.transaction { tx -> [Int64] in
            _ = try tx.instrument(Self.key, id: "any")
            var sequences: [Int64] = []
            for (id, deletedAt) in [("a", Int64(100)), ("b", 200), ("c", 300)] {
                let sequence = try tx.nextSequence()
                try tx.put(Self.key, InstrumentRecord(id: id, version: 2, sequence: sequence, deleted: true, isDefault: false,
                                                      methodJSON: nil, deletedAt: deletedAt))
                sequences.append(sequence)
            }
            return sequences
        }
        try storage.transaction { tx in try tx.purgeTombstones(Self.key, deletedAtOrBefore: 250) }
        #expect(try storage.read { tx in try tx.purgeHorizon(Self.key) } == sequences[1])
        try storage.transaction { tx in try tx.purgeTombstones(Self.key, deletedAtOrBefore: 250) }
        #expect(try storage.read { tx in try tx.purgeHorizon(Self.key) } == sequences[1])
        #expect(try storage.read { tx in try tx.changes(Self.key, after: 0, limit: 10) }.map(\.id) == ["c"])
        try storage.transaction { tx in try tx.purgeTombstones(Self.key, deletedAtOrBefore: 1000) }
        #expect(try storage.read { tx in try tx.purgeHorizon(Self.key) } == sequences[2])
        #expect(try storage.read { tx in try tx.purgeHorizon(CustomerKey(merchant: "merchant_a", customer: "c2")) } == 0)
    }

    @Test("a pooled connection the server closed is replaced, and the call still succeeds", arguments: [false, true])
    func killedConnection(_ writes: Bool) throws {
        let schema = try PostgresTestSchema()
        defer { withExtendedLifetime(schema) {} }
        let name = "ck_victim_\(UUID().uuidString.prefix(8).lowercased())"
        let storage = try PostgresVaultServerStorage(url: schema.url + "&application_name=" + name, options: .init(poolSize: 1))
        try storage.transaction { tx in
            _ = try tx.instrument(Self.key, id: "x")
            try tx.put(Self.key, Self.row("x", sequence: try tx.nextSequence()))
        }
        // A read leaves its COMMIT's answer unread on the pooled connection: the kill lands there.
        #expect(try storage.read { tx in try tx.instrument(Self.key, id: "x")?.version } == 1)
        let observer = try schema.connect()
        let killed = try observer.execute("""
            SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '\(name)') AS t
            """)
        #expect(try killed.int64(0, 0) == 1)
        if writes {
            let version = try storage.transaction { tx -> Int64 in
                var row = try #require(try tx.instrument(Self.key, id: "x"))
                row.version += 1
                row.sequence = try tx.nextSequence()
                try tx.put(Self.key, row)
                return row.version
            }
            #expect(version == 2)
        }
        #expect(try storage.read { tx in try tx.instrument(Self.key, id: "x")?.version } == (writes ? 2 : 1))
    }

    @Test("a parameter holding a NUL character is refused, not truncated")
    func nulParameter() throws {
        let schema = try PostgresTestSchema()
        defer { withExtendedLifetime(schema) {} }
        let storage = try schema.storage()
        let error = #expect(throws: PostgresError.self) {
            try storage.transaction { tx in _ = try tx.opRecord(Self.key, opId: "op\u{0}-1") }
        }
        #expect(error?.code == .invalidParameter)
    }

    @Test("the pool is bounded: a caller waits, then gets poolExhausted")
    func poolExhausted() throws {
        let schema = try PostgresTestSchema()
        defer { withExtendedLifetime(schema) {} }
        let storage = try PostgresVaultServerStorage(url: schema.url, options: .init(poolSize: 1, acquireTimeout: .milliseconds(200)))
        let hold = ConnectionHold(storage)
        defer { hold.release() }
        try #require(hold.taken, "the hold never got the pool's one connection")
        let error = #expect(throws: PostgresError.self) { try storage.read { _ in 0 } }
        #expect(error?.code == .poolExhausted)
        hold.release()
        #expect(try storage.read { _ in 1 } == 1)
    }

    @Test("bad URLs and unreachable servers are typed errors that never echo the URL", arguments: [
        ("mysql://user:s3cret@127.0.0.1/db", PostgresError.Code.invalidURL),
        ("/var/lib/vault.db", .invalidURL),
        ("postgres://user:s3cret@127.0.0.1:1/db?connect_timeout=2", .connectionFailed),
    ])
    func badURL(_ url: String, _ code: PostgresError.Code) throws {
        let error = #expect(throws: PostgresError.self) { try PostgresVaultServerStorage(url: url) }
        #expect(error?.code == code)
        #expect(error.map { !$0.description.contains("s3cret") } == true)
    }
}

/// The pool seen from HTTP: a request that finds every connection busy for the whole acquire
/// timeout gets 503 with Retry-After (not 500), and the next one succeeds once a connection is free.
@Suite(.enabled(if: PostgresTestEnvironment.isConfigured,
                "PostgreSQL tests skipped: CHECKOUTKIT_POSTGRES_URL not set (run: scripts/with-postgres.sh swift test)"))
struct PostgresPoolExhaustionTests {
    @Test("an exhausted pool answers 503 storage-unavailable with Retry-After, then recovers")
    func exhaustedPoolIs503() async throws {
        let schema = try PostgresTestSchema()
        defer { withExtendedLifetime(schema) {} }
        let storage = try PostgresVaultServerStorage(url: schema.url, options: .init(poolSize: 1, acquireTimeout: .milliseconds(200)))
        let server = VaultServer(configuration: VaultServerConfiguration(listen: .init(host: "127.0.0.1", port: 0),
                                                                         apiKeys: [TestServer.keyA: "merchant_a"], threads: 2),
                                 storage: storage)
        let port = try server.start()
        defer { server.stop() }
        let remote = HTTPRemoteVault(baseURL: try #require(URL(string: "http://127.0.0.1:\(port)")), apiKey: TestServer.keyA)
        let scope = Fixture.scope("c1")

        let hold = ConnectionHold(storage)
        defer { hold.release() }
        try #require(hold.taken, "the hold never got the pool's one connection")
        let error = await #expect(throws: RemoteVaultError.self) {
            try await remote.push(scope: scope, ops: [Fixture.upsert("op-1", Fixture.card("vt_1"))])
        }
        #expect(error == .httpStatus(status: 503, code: "storage-unavailable",
                                     message: "the storage is busy or unreachable; retry later", retryAfterSeconds: 1))
        hold.release()

        let results = try await remote.push(scope: scope, ops: [Fixture.upsert("op-1", Fixture.card("vt_1"))])
        #expect(results.map(\.status) == [.applied])
        #expect(try await remote.instruments(scope: scope).map(\.id) == ["vt_1"])
    }

    @Test("temporary PostgreSQL failures are the pool, the connection and transient SQLSTATEs", arguments: [
        (PostgresError(.poolExhausted, message: "m"), true),
        (PostgresError(.connectionFailed, message: "m"), true),
        (PostgresError(.connectionLost, message: "m"), true),
        (PostgresError(.statementFailed, sqlState: "40001", message: "m"), true),
        (PostgresError(.statementFailed, sqlState: "40P01", message: "m"), true),
        (PostgresError(.statementFailed, sqlState: "23505", message: "m"), false),
        (PostgresError(.unexpectedResult, message: "m"), false),
        (PostgresError(.invalidParameter, message: "m"), false),
        (PostgresError(.misuse, message: "m"), false),
    ])
    func temporaryClassification(error: PostgresError, temporary: Bool) {
        #expect(error.isTemporary == temporary)
    }
}

/// Holds one pooled connection of a storage in an open read on another thread until `release()`.
///
/// The hold lasts until `release()` however long the test takes to get there (a loaded run can
/// starve a test's task for a minute; a hold that gave up on its own would let the very request
/// that must find the pool exhausted through). Tests release it on every path (`defer`).
final class ConnectionHold: Sendable {
    private let released = DispatchSemaphore(value: 0)
    private let finished = DispatchGroup()
    /// Whether the read took the connection; false when it did not start within the test timeout.
    let taken: Bool

    /// Returns once the connection is taken, or the test timeout passed (`taken` is false then).
    init(_ storage: PostgresVaultServerStorage) {
        let holding = DispatchSemaphore(value: 0)
        DispatchQueue.global().async(group: finished) { [released] in
            _ = try? storage.read { _ in holding.signal(); _ = released.waitBounded(timeout: .seconds(3600)) }
        }
        taken = holding.waitBounded()
    }

    /// Gives the connection back and waits until the read has ended. Calling it again does nothing more.
    func release() {
        released.signal()
        _ = finished.waitBounded()
    }
}
