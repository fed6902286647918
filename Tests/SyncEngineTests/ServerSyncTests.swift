import CheckoutCore
import CheckoutCoreTesting
import CheckoutTestSupport
@testable import CheckoutVault
import CheckoutVaultTesting
import Foundation
import Synchronization
import Testing
import VaultServer

/// The engine against the real `VaultServer` on loopback (and a raw listener for broken answers).
@Suite("SyncEngine against the real server", .timeLimit(.minutes(5)))
struct ServerSyncTests {
    let scope = Fixture.scope("cus_server")

    /// Runs `body` while advancing `clock` past every backoff until `body` finishes.
    func driving<T: Sendable>(_ clock: TestClock, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let done = Atomic<Bool>(false)
        let task = Task {
            defer { done.store(true, ordering: .sequentiallyConsistent) }
            return try await body()
        }
        let finished = await eventually {
            if done.load(ordering: .sequentiallyConsistent) { return true }
            if !clock.pendingSleeps.isEmpty { clock.advanceToNextDeadline() }
            return false
        }
        if !finished {
            task.cancel()
            Issue.record("the driven work did not finish within \(TestWait.timeout)")
        }
        return try await task.cancellableValue
    }

    @Test("the server restarts in the middle of a push: the lost batch is resent under the same op ids, applied once")
    func serverRestartMidPush() async throws {
        let server = try LoopbackVaultServer()
        let directory = try TestDirectory()
        let store = try directory.store("device")
        let ids = try await store.upsert((1...20).map { Fixture.card("tok_\($0)") }, scope: scope)
        let remote = HookedRemote(server.remote(), action: { $0 == 2 ? .forwardThenLoseAnswer : .forward },
                                  afterPush: { if $0 == 2 { server.stop() } })
        let clock = TestClock()
        let engine = SyncEngine.testing(store, remote, scope: scope, clock: clock, pushBatchSize: 5,
                                        retry: RetryPolicy(maxAttempts: 10))
        let round = Task { try await engine.syncNow(scope: scope) }
        await clock.waitForSleepers(1)
        // Batch 2 was committed by the server, then the server went away before answering.
        let waiting = try await store.pendingOps(scope: scope, limit: 100)
        #expect(waiting.count == 15)
        #expect(waiting.prefix(5).map(\.attempts) == [1, 1, 1, 1, 1])
        try server.restart()
        let report = try await driving(clock) { try await round.value }

        #expect(report.pushed == 20)
        #expect(report.pending == 0)
        #expect(remote.pushes >= 5)  // 4 batches plus at least one resend of batch 2
        let changes = try await allChanges(server.remote(), scope)
        #expect(changes.map(\.token).sorted() == (1...20).map { "tok_\($0)" }.sorted())
        #expect(changes.allSatisfy { $0.version == 1 })
        #expect(Set(ids).count == 20)
        #expect(try await store.storedInstruments(scope: scope).allSatisfy { $0.version == 1 })
    }

    /// A broken answer and the error it must become.
    struct BrokenAnswer: Sendable, CustomTestStringConvertible {
        let name: String
        let responses: [String: [UInt8]]
        let expected: SyncError.Code
        /// The cursor after the round: nil when the pull failed, the empty page's when the push did.
        var cursor: String?
        var testDescription: String { name }
    }

    static let emptyPage = RawHTTPStub.response(body: #"{"changes":[],"cursor":"v1.0","hasMore":false}"#)
    static let brokenAnswerCases: [BrokenAnswer] = [
        BrokenAnswer(name: "garbage page", responses: ["GET": RawHTTPStub.response(body: "<html>502 Bad Gateway</html>")],
                     expected: .malformedResponse),
        BrokenAnswer(name: "truncated page JSON",
                     responses: ["GET": RawHTTPStub.response(body: #"{"changes":[{"sequence":1,"id":"tok_a","version":1,"#)],
                     expected: .malformedResponse),
        BrokenAnswer(name: "page of the wrong shape",
                     responses: ["GET": RawHTTPStub.response(body: #"{"changes":"none","cursor":7}"#)],
                     expected: .malformedResponse),
        BrokenAnswer(name: "tombstone carrying a method",
                     responses: ["GET": RawHTTPStub.response(body: #"{"changes":[{"sequence":1,"id":"tok_a","version":2,"deleted":true,"method":{"id":"tok_a","paymentMethodType":"PAYMENT_CARD","paymentInstrumentType":"PAYMENT_CARD","paymentInstrumentData":{},"analyticsId":"x","isDefault":false}}],"cursor":"v1.1","hasMore":false}"#)],
                     expected: .malformedResponse),
        BrokenAnswer(name: "connection cut mid-body",
                     responses: ["GET": RawHTTPStub.response(body: #"{"changes":[{"sequence":1,"#, announcedLength: 400)],
                     expected: .unreachable),
        BrokenAnswer(name: "garbage push answer",
                     responses: ["GET": emptyPage, "POST": RawHTTPStub.response(body: "{\"results\": [")],
                     expected: .malformedResponse, cursor: "v1.0"),
        BrokenAnswer(name: "push answer for other ops",
                     responses: ["GET": emptyPage,
                                 "POST": RawHTTPStub.response(body: #"{"results":[{"opId":"someone-else","status":"applied","version":1}]}"#)],
                     expected: .malformedResponse, cursor: "v1.0"),
    ]

    @Test("garbage, truncated or mis-shaped answers are typed errors and nothing is applied", arguments: brokenAnswerCases)
    func brokenAnswers(answer: BrokenAnswer) async throws {
        let stub = try RawHTTPStub(responses: answer.responses)
        let directory = try TestDirectory()
        let store = try directory.store("device")
        let opId = try await store.upsert(Fixture.card("tok_local"), scope: scope)
        let engine = SyncEngine.testing(store, HTTPRemoteVault(baseURL: stub.baseURL, apiKey: "key", timeout: 10), scope: scope,
                                        retry: .noRetry)
        let error = await #expect(throws: SyncError.self) { try await engine.syncNow(scope: scope) }
        #expect(error?.code == answer.expected)
        #expect(try await store.cursor(scope: scope) == answer.cursor)
        #expect(try await store.storedInstruments(scope: scope, includeDeleted: true).map(\.method.id) == ["tok_local"])
        #expect(try await store.instrument(token: "tok_local", scope: scope)?.version == 0)
        #expect(try await store.pendingOps(scope: scope).map(\.id) == [opId])
        #expect(engine.currentStatus.phase == .offline(lastError: try #require(error)))
    }

    @Test("a wrong API key: typed offline status (401), no retry storm, every op kept")
    func authFailure() async throws {
        let server = try LoopbackVaultServer()
        let directory = try TestDirectory()
        let store = try directory.store("device")
        try await store.upsert([Fixture.card("tok_a"), Fixture.card("tok_b")], scope: scope)
        let clock = TestClock()
        let engine = SyncEngine.testing(store, server.remote(apiKey: "not-a-key"), scope: scope, clock: clock)
        engine.notifyLocalWrite()
        await #expect(throws: SyncError(.unauthorized)) { try await engine.syncNow(scope: scope) }
        #expect(engine.currentStatus == SyncStatus(phase: .offline(lastError: SyncError(.unauthorized)),
                                                   pendingCount: 2, lastSyncedAt: nil))
        #expect(clock.sleepHistory.isEmpty)
        #expect(try await store.pendingCount(scope: scope) == 2)
        #expect(try await server.remote().instruments(scope: scope).isEmpty)
    }

    @Test("a real 429 from the server's rate limiter: the engine waits Retry-After on its clock, then succeeds")
    func rateLimited() async throws {
        let time = ServerTime()
        let server = try LoopbackVaultServer(limits: .init(rateLimitPerSecond: 1, rateLimitBurst: 2), time: time)
        let directory = try TestDirectory()
        let store = try directory.store("device")
        try await store.upsert(Fixture.card("tok_a"), scope: scope)
        let clock = TestClock()
        let engine = SyncEngine.testing(store, server.remote(), scope: scope, clock: clock)
        let round = Task { try await engine.syncNow(scope: scope) }
        await clock.waitForSleepers(1)  // whoami and the pull took both tokens; the push got 429
        #expect(clock.pendingSleeps == [.seconds(1)])
        #expect(try await store.pendingOps(scope: scope).map(\.lastError)
                == ["vault server answered HTTP 429 rate-limited: too many requests (retry after 1s)"])
        time.advance(seconds: 1)
        clock.advance(by: .seconds(1))
        let report = try await round.cancellableValue
        #expect(report.pushed == 1)
        #expect(clock.sleepHistory == [.seconds(1)])
    }

    @Test("after a full sync of 1,000 instruments, a delta of 10 changes is one request of under 10 KB")
    func smallDelta() async throws {
        let server = try LoopbackVaultServer()
        let directory = try TestDirectory()
        let writer = try directory.store("writer")
        let reader = try directory.store("reader")
        // The clocks are driven so that a retry forced by a loaded machine shows up as a wrong
        // request count below, never as a round parked on a backoff nobody ends.
        let writerClock = TestClock()
        let readerClock = TestClock()
        let writerEngine = SyncEngine.testing(writer, server.remote(), scope: scope, clock: writerClock, pushBatchSize: 500)
        let readerEngine = SyncEngine.testing(reader, server.remote(), scope: scope, clock: readerClock, pageSize: 200)
        try await writer.upsert((1...1000).map { Fixture.card("tok_\($0)", name: "Holder \($0)") }, scope: scope)
        #expect(try await driving(writerClock) { try await writerEngine.syncNow(scope: scope) }.pushed == 1000)
        let full = try await driving(readerClock) { try await readerEngine.syncNow(scope: scope) }
        #expect(full.pulled == 1000)
        #expect(try await reader.instruments(scope: scope).count == 1000)

        try await writer.upsert((1...10).map { Fixture.card("tok_\($0 * 7)", last4: "0007", name: "Holder \($0 * 7)") }, scope: scope)
        #expect(try await driving(writerClock) { try await writerEngine.syncNow(scope: scope) }.pushed == 10)

        let cursor = try #require(try await reader.cursor(scope: scope))
        let bytes = try await server.rawGet("/v1/customers/\(scope.customerId)/changes?cursor=\(cursor)&limit=200").count
        // The round is one feed read; counted as reads, because the server's background purge
        // (a transaction every minute) can land inside a slow run's window.
        let before = server.readCount
        let delta = try await driving(readerClock) { try await readerEngine.syncNow(scope: scope) }
        #expect(server.readCount - before == 1)
        #expect(delta.pulled == 10)
        #expect(bytes < 10 * 1024)
        #expect(try await reader.instruments(scope: scope).filter { $0.paymentInstrumentData.last4Digits == "0007" }.count == 10)
        print("delta of 10 changes after a full sync of 1,000: \(bytes) response bytes in 1 request")
    }

    @Test("many customers sync concurrently against one server: nothing lost, nothing duplicated")
    func manyCustomersConcurrently() async throws {
        let customers = 1000
        let devices = 10
        let setupStart = ContinuousClock.now
        // Ten devices with up to 8 pooled connections each, all from 127.0.0.1: more than the
        // default per-address cap of 64, as many clients behind one proxy would be.
        let server = try LoopbackVaultServer(limits: .init(maxConnectionsPerIP: VaultServerConfiguration.maxConnections))
        let directory = try TestDirectory()
        var engines: [SyncEngine] = []
        var scopesByDevice: [[VaultScope]] = []
        for device in 0..<devices {
            let store = try directory.store("device-\(device)")
            var scopes: [VaultScope] = []
            for index in stride(from: device, to: customers, by: devices) {
                let scope = Fixture.scope("cus_\(index)")
                scopes.append(scope)
                try await store.upsert([Fixture.card("tok_\(index)_a"), Fixture.card("tok_\(index)_b"),
                                  Fixture.card("tok_\(index)_c")], scope: scope)
                try await store.setDefault(token: "tok_\(index)_b", scope: scope)
                try await store.delete(token: "tok_\(index)_c", scope: scope)
            }
            engines.append(SyncEngine(store: store, remote: server.remote(),
                                      configuration: .init(scopes: [], interval: nil, retry: RetryPolicy(maxAttempts: 5),
                                                           randomSeed: UInt64(device))))
            scopesByDevice.append(scopes)
        }

        let start = ContinuousClock.now
        let reports = try await withThrowingTaskGroup(of: SyncReport.self) { group in
            for (engine, scopes) in zip(engines, scopesByDevice) {
                for scope in scopes { group.addTask { try await engine.syncNow(scope: scope) } }
            }
            var reports: [SyncReport] = []
            for try await report in group { reports.append(report) }
            return reports
        }
        let elapsed = ContinuousClock.now - start
        print("\(customers) customers synced concurrently (5 ops each) in \(elapsed)")

        #expect(reports.count == customers)
        #expect(reports.map(\.pushed).reduce(0, +) == customers * 5)
        #expect(reports.allSatisfy { $0.rejected == 0 && $0.pending == 0 })

        // Every customer, read back from the server by a fresh device: exactly a and b, b default.
        let checker = try directory.store("checker")
        let checkerEngine = SyncEngine(store: checker, remote: server.remote(), configuration: .init(interval: nil))
        let pulled = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<customers {
                group.addTask { try await checkerEngine.syncNow(scope: Fixture.scope("cus_\(index)")).pulled }
            }
            return try await group.reduce(0, +)
        }
        #expect(pulled == customers * 3)  // a, b and the tombstone of c
        print("\(customers) customers set up, synced and checked in \(ContinuousClock.now - setupStart)")
        var wrong: [String] = []
        for index in 0..<customers {
            let scope = Fixture.scope("cus_\(index)")
            let rows = try await checker.storedInstruments(scope: scope, includeDeleted: true)
            let summary = rows.map { "\($0.method.id)\($0.isDeleted ? "-deleted" : "")\($0.method.isDefault ? "-default" : "")" }
            let expected = ["tok_\(index)_b-default", "tok_\(index)_a"]  // the checker never had c: its tombstone is skipped
            if summary != expected { wrong.append("cus_\(index): \(summary)") }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(5))")
    }
}
