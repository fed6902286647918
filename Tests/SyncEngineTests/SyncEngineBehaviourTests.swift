import CheckoutCore
import CheckoutCoreTesting
import CheckoutTestSupport
@testable import CheckoutVault
import CheckoutVaultTesting
import Testing

/// Deterministic engine behaviour on a manual clock, against the in-memory double and the real
/// server (on SQLite, and on PostgreSQL where configured), both behind the same fault switches
/// (`FaultInjectingRemote`): the contract the double must keep, seen from the engine.
// A hang guard (the watchdog is the last one): generous, as the sanitized CI run on two loaded cores is slow.
@Suite("SyncEngine behaviour (double and server, manual clock)", .timeLimit(.minutes(5)))
struct SyncEngineBehaviourTests {
    let scope = Fixture.scope("cus_engine")

    struct World {
        let directory: TestDirectory
        let store: VaultStore
        let harness: RemoteHarness
        /// The remote the engine talks to: the harness's, behind the fault switches.
        let remote: FaultInjectingRemote
        let clock: TestClock
        let engine: SyncEngine
        let scope: VaultScope

        /// The fault switches and the log of the engine's calls.
        var faults: RemoteFaults { remote.faults }

        /// The customer's live instruments as the vault holds them (not through the switches).
        func serverInstruments() async throws -> [RemoteInstrument] { try await harness.serverInstruments(scope) }

        /// Deletes an instrument as another device would (not through the switches).
        func deleteOnServer(_ id: String) async throws -> Bool {
            let results = try await harness.remote.push(scope: scope, ops: [Fixture.delete("other-device-\(id)", id)])
            return results.map(\.status) == [.applied]
        }
    }

    func makeWorld(_ kind: RemoteKind, interval: Duration? = nil, retry: RetryPolicy = .standard, pushBatchSize: Int = 100,
                   limits: RemoteLimits = RemoteLimits()) throws -> World {
        let directory = try TestDirectory()
        let store = try directory.store("device")
        let harness = try RemoteHarness(kind, limits: limits)
        let remote = FaultInjectingRemote(harness.remote)
        let clock = TestClock()
        let engine = SyncEngine.testing(store, remote, scope: scope, clock: clock, pushBatchSize: pushBatchSize,
                                        interval: interval, retry: retry)
        return World(directory: directory, store: store, harness: harness, remote: remote, clock: clock, engine: engine, scope: scope)
    }

    @Test("status snapshots: idle, pending count on a local write, syncing while a round runs, idle with the sync time",
          arguments: RemoteKind.contract)
    func statusSnapshots(kind: RemoteKind) async throws {
        let world = try makeWorld(kind)
        let statuses = StreamRecorder(world.engine.status())
        #expect(world.engine.currentStatus == SyncStatus(phase: .idle, pendingCount: 0, lastSyncedAt: nil))

        try await world.store.upsert(Fixture.card("tok_a"), scope: scope)
        world.engine.notifyLocalWrite()
        #expect(world.engine.currentStatus == SyncStatus(phase: .idle, pendingCount: 1, lastSyncedAt: nil))

        let hold = world.faults.hold(.changes)
        let round = Task { try await world.engine.syncNow(scope: scope) }
        await hold.waitUntilReached()
        #expect(world.engine.currentStatus == SyncStatus(phase: .syncing, pendingCount: 1, lastSyncedAt: nil))
        hold.release()
        let report = try await round.cancellableValue
        #expect(report == SyncReport(pulled: 0, pushed: 1, rejected: 0, pending: 0, cursor: try await world.store.cursor(scope: scope)))
        #expect(report.cursor != nil)

        let syncedAt = world.clock.nowMillis()
        let final = SyncStatus(phase: .idle, pendingCount: 0, lastSyncedAt: syncedAt, lastSyncedAtByScope: [scope: syncedAt])
        #expect(world.engine.currentStatus == final)
        #expect(await statuses.waitUntil { $0.last == final })
        #expect(statuses.all == [
            SyncStatus(phase: .idle, pendingCount: 0, lastSyncedAt: nil),
            SyncStatus(phase: .idle, pendingCount: 1, lastSyncedAt: nil),
            SyncStatus(phase: .syncing, pendingCount: 1, lastSyncedAt: nil),
            final,
        ])
    }

    @Test("a 500 on push keeps the op (attempt counted), backs off with jitter, then succeeds",
          arguments: RemoteKind.contract)
    func serverErrorThenSuccess(kind: RemoteKind) async throws {
        let world = try makeWorld(kind)
        let opId = try await world.store.upsert(Fixture.card("tok_a"), scope: scope)
        world.faults.failNext(1, .push, with: .httpStatus(status: 500, code: "internal", message: "internal server error",
                                                          retryAfterSeconds: nil))
        let round = Task { try await world.engine.syncNow(scope: scope) }
        await world.clock.waitForSleepers(1)

        let waiting = try await world.store.pendingOps(scope: scope)
        #expect(waiting.map(\.id) == [opId])
        #expect(waiting.map(\.attempts) == [1])
        #expect(waiting.first?.lastError == "vault server answered HTTP 500 internal: internal server error")
        let sleep = try #require(world.clock.pendingSleeps.first)
        #expect(sleep >= .zero && sleep <= .milliseconds(500))  // full jitter under the first ceiling

        world.clock.advanceToNextDeadline()
        let report = try await round.cancellableValue
        #expect(report.pushed == 1)
        #expect(report.pending == 0)
        #expect(world.faults.requestCount(.push) == 2)
        let wire = SyncEngine.wireOpId(opId)
        #expect(world.faults.requests.filter { $0.endpoint == .push }.map(\.opIds) == [[wire], [wire]])
        #expect((try await world.serverInstruments()).map(\.version) == [1])
    }

    @Test("a 429 with Retry-After: the engine waits exactly what the server asked, not less",
          arguments: RemoteKind.contract)
    func retryAfterHonoured(kind: RemoteKind) async throws {
        let world = try makeWorld(kind)
        try await world.store.upsert(Fixture.card("tok_a"), scope: scope)
        world.faults.failNext(1, .push, with: .httpStatus(status: 429, code: "rate-limited", message: "too many requests",
                                                          retryAfterSeconds: 7))
        let round = Task { try await world.engine.syncNow(scope: scope) }
        await world.clock.waitForSleepers(1)
        #expect(world.clock.pendingSleeps == [.seconds(7)])

        world.clock.advance(by: .milliseconds(6_999))
        #expect(world.clock.pendingSleeps == [.seconds(7)])  // still waiting
        #expect(world.faults.requestCount(.push) == 1)
        world.clock.advance(by: .milliseconds(1))
        let report = try await round.cancellableValue
        #expect(report.pushed == 1)
        #expect(world.clock.sleepHistory == [.seconds(7)])
        #expect(world.faults.requestCount(.push) == 2)
    }

    @Test("an auth failure ends the round at once as a typed offline status; nothing is lost",
          arguments: RemoteKind.contract)
    func authFailure(kind: RemoteKind) async throws {
        let world = try makeWorld(kind)
        try await world.store.upsert([Fixture.card("tok_a"), Fixture.card("tok_b")], scope: scope)
        world.engine.notifyLocalWrite()
        world.faults.failNext(1, .changes, with: .unauthorized)

        await #expect(throws: SyncError(.unauthorized)) { try await world.engine.syncNow(scope: scope) }
        #expect(world.engine.currentStatus == SyncStatus(phase: .offline(lastError: SyncError(.unauthorized)),
                                                         pendingCount: 2, lastSyncedAt: nil))
        #expect(world.clock.sleepHistory.isEmpty)  // not retryable: no backoff inside the round
        #expect(world.faults.requestCount() == 1)
        #expect(try await world.store.pendingOps(scope: scope).map(\.attempts) == [0, 0])

        // The key is fixed: the next round pushes everything and the status recovers.
        let report = try await world.engine.syncNow(scope: scope)
        #expect(report.pushed == 2)
        #expect(world.engine.currentStatus == SyncStatus(phase: .idle, pendingCount: 0,
                                                         lastSyncedAt: world.clock.nowMillis(),
                                                         lastSyncedAtByScope: [scope: world.clock.nowMillis()]))
    }

    @Test("a malformed answer is a typed error and nothing is applied (no rows, no cursor move)",
          arguments: RemoteKind.contract)
    func malformedAnswer(kind: RemoteKind) async throws {
        let world = try makeWorld(kind)
        _ = try await world.harness.remote.push(scope: scope, ops: [Fixture.upsert("op-1", Fixture.card("tok_a"))])
        world.faults.failNext(1, .changes, with: .malformedResponse(reason: "not valid JSON"))
        await #expect(throws: SyncError(.malformedResponse(reason: "not valid JSON"))) {
            try await world.engine.syncNow(scope: scope)
        }
        #expect(try await world.store.storedInstruments(scope: scope, includeDeleted: true).isEmpty)
        #expect(try await world.store.cursor(scope: scope) == nil)
        #expect(world.clock.sleepHistory.isEmpty)
    }

    @Test("concurrent triggers coalesce: one running round plus one shared follow-up round",
          arguments: RemoteKind.contract)
    func coalescing(kind: RemoteKind) async throws {
        let world = try makeWorld(kind)
        try await world.store.upsert(Fixture.card("tok_a"), scope: scope)
        let firstHold = world.faults.hold(.changes)
        let secondHold = world.faults.hold(.changes)
        let first = Task { try await world.engine.syncNow(scope: scope) }
        await firstHold.waitUntilReached()

        let joiners = (0..<5).map { _ in Task { try await world.engine.syncNow(scope: scope) } }
        #expect(await eventually { world.engine.roundRequestCount == 6 })
        firstHold.release()
        #expect(try await first.cancellableValue.pushed == 1)
        await secondHold.waitUntilReached()
        #expect(world.faults.requestCount(.changes) == 2)
        secondHold.release()
        var reports: [SyncReport] = []
        for joiner in joiners { reports.append(try await joiner.cancellableValue) }

        #expect(reports.allSatisfy { $0 == reports[0] })  // they shared one round
        #expect(reports[0].pushed == 0)                    // round 1 had pushed everything
        #expect(world.faults.requestCount(.changes) == 2)
        #expect(world.faults.requestCount(.push) == 1)
    }

    @Test("an answer lost after the server applied the batch: the retry sends the same op ids, applied once",
          arguments: RemoteKind.contract)
    func lostResponse(kind: RemoteKind) async throws {
        let world = try makeWorld(kind)
        let opIds = try await world.store.upsert([Fixture.card("tok_a"), Fixture.card("tok_b")], scope: scope)
        world.faults.loseNextResponse()
        let round = Task { try await world.engine.syncNow(scope: scope) }
        await world.clock.waitForSleepers(1)
        world.clock.advanceToNextDeadline()
        let report = try await round.cancellableValue

        #expect(report.pushed == 2)
        let wire = opIds.map(SyncEngine.wireOpId)
        #expect(world.faults.requests.filter { $0.endpoint == .push }.map(\.opIds) == [wire, wire])
        let server = (try await world.serverInstruments())
        #expect(server.map(\.id) == ["tok_a", "tok_b"])
        #expect(server.map(\.version) == [1, 1])
        #expect(try await world.store.storedInstruments(scope: scope).map(\.version) == [1, 1])
    }

    @Test("a conflicting op is dropped and reported; the ops behind it still go through",
          arguments: RemoteKind.contract)
    func rejectionDoesNotBlock(kind: RemoteKind) async throws {
        let world = try makeWorld(kind)
        try await world.store.upsert([Fixture.card("tok_x"), Fixture.card("tok_y")], scope: scope)
        try await world.engine.syncNow(scope: scope)
        #expect(try await world.deleteOnServer("tok_x"))
        let rejections = StreamRecorder(world.engine.rejections())

        // This device has not seen the delete yet and makes tok_x its default.
        try await world.store.setDefault(token: "tok_x", scope: scope)
        let upsertId = try await world.store.upsert(Fixture.card("tok_z"), scope: scope)
        let report = try await world.engine.syncNow(scope: scope)

        #expect(report.pushed == 1)
        #expect(report.rejected == 1)
        let rejection = try #require(report.rejections.first)
        #expect(rejection.kind == .setDefault)
        #expect(rejection.token == "tok_x")
        #expect(rejection.verdict == .conflict)
        #expect(rejection.reason == "deleted")
        #expect(await rejections.waitUntil { $0 == [rejection] })
        #expect(try await world.store.pendingCount(scope: scope) == 0)
        #expect(try await world.store.instruments(scope: scope).map(\.id).sorted() == ["tok_y", "tok_z"])
        #expect((try await world.serverInstruments()).map(\.id) == ["tok_y", "tok_z"])
        #expect(world.faults.requests.last?.opIds.last == SyncEngine.wireOpId(upsertId))
    }

    @Test("a batch refused as a whole (422) is split until the one offending op is found and dropped",
          arguments: RemoteKind.contract)
    func contentRefusalIsolatesTheOp(kind: RemoteKind) async throws {
        let world = try makeWorld(kind)
        let ids = try await world.store.upsert([Fixture.card("tok_a"), Fixture.card("tok_b"), Fixture.card("tok_c")], scope: scope)
        let refusal = RemoteVaultError.httpStatus(status: 422, code: "idempotency-key-reused",
                                                  message: "an op id was reused with a different body", retryAfterSeconds: nil)
        world.faults.failNext(2, .push, with: refusal)  // the batch of 3, then the first half (tok_a alone)
        let report = try await world.engine.syncNow(scope: scope)

        #expect(report.pushed == 2)
        #expect(report.rejected == 1)
        #expect(report.rejections.map(\.opId) == [ids[0]])
        #expect(report.rejections.map(\.reason) == ["idempotency-key-reused"])
        let wire = ids.map(SyncEngine.wireOpId)
        #expect(world.faults.requests.filter { $0.endpoint == .push }.map(\.opIds)
                == [wire, [wire[0]], [wire[1], wire[2]]])
        #expect(world.clock.sleepHistory.isEmpty)
        // The never-accepted creation is gone locally too, so the cache matches the server.
        #expect(try await world.store.instruments(scope: scope).map(\.id).sorted() == ["tok_b", "tok_c"])
    }

    @Test("listing reads the local cache at once while the remote hangs; writes wake the engine",
          arguments: RemoteKind.contract)
    func checkoutNeverWaits(kind: RemoteKind) async throws {
        let world = try makeWorld(kind)
        try await world.store.upsert(Fixture.card("tok_a", isDefault: true), scope: scope)
        let provider = SyncingVaultProvider(store: world.store, engine: world.engine)
        let hold = world.faults.hold(.changes)
        let round = Task { try await world.engine.syncNow(scope: scope) }
        await hold.waitUntilReached()

        #expect(try await provider.paymentMethods(for: scope).map(\.id) == ["tok_a"])
        try await provider.save(Fixture.card("tok_b"), for: scope)
        #expect(try await provider.paymentMethods(for: scope).map(\.id) == ["tok_a", "tok_b"])
        #expect(world.engine.currentStatus == SyncStatus(phase: .syncing, pendingCount: 2, lastSyncedAt: nil))
        hold.release()
        _ = try await round.cancellableValue
    }

    @Test("one call syncs every scope with queued ops",
          arguments: RemoteKind.contract)
    func allPendingScopes(kind: RemoteKind) async throws {
        let world = try makeWorld(kind)
        let other = Fixture.scope("cus_other")
        try await world.store.upsert(Fixture.card("tok_a"), scope: scope)
        try await world.store.upsert([Fixture.card("tok_b"), Fixture.card("tok_c")], scope: other)
        world.engine.notifyLocalWrite()
        #expect(world.engine.currentStatus.pendingCount == 3)
        let report = try await world.engine.syncNow()
        #expect(report == SyncReport(pulled: 0, pushed: 3, rejected: 0, pending: 0, cursor: nil))
        #expect(try await world.harness.serverInstruments(Fixture.scope("cus_other")).map(\.id) == ["tok_b", "tok_c"])
        #expect(world.engine.currentStatus.pendingCount == 0)
    }

    @Test("background loop: first round at start, then a local write, the timer, backoff that only a reconnect cuts, clean stop",
          arguments: RemoteKind.contract)
    func backgroundLoop(kind: RemoteKind) async throws {
        let world = try makeWorld(kind, interval: .seconds(30), retry: RetryPolicy(maxAttempts: 1))
        let remote = world.faults
        let clock = world.clock
        world.engine.start()
        await clock.waitForSleepers(1)  // round 1 done, the loop waits on its timer
        #expect(remote.requestCount(.changes) == 1)
        #expect(clock.pendingSleeps == [.seconds(30)])

        // A local write wakes the loop before the timer.
        try await world.store.upsert(Fixture.card("tok_a"), scope: scope)
        world.engine.notifyLocalWrite()
        await clock.waitForSleepsStarted(2)
        await clock.waitForSleepers(1)
        #expect(remote.requestCount(.changes) == 2)
        #expect(remote.requestCount(.push) == 1)
        #expect(world.engine.currentStatus.phase == .idle)

        // The timer.
        clock.advance(by: .seconds(30))
        await clock.waitForSleepsStarted(3)
        await clock.waitForSleepers(1)
        #expect(remote.requestCount(.changes) == 3)

        // The server fails: the loop backs off, and a local write does not cut the backoff short.
        remote.failNext(1, .changes, with: .httpStatus(status: 500, code: "internal", message: "boom", retryAfterSeconds: 30))
        clock.advance(by: .seconds(30))
        await clock.waitForSleepsStarted(4)
        await clock.waitForSleepers(1)
        #expect(clock.pendingSleeps == [.seconds(30)])  // Retry-After honoured by the loop's backoff
        #expect(remote.requestCount(.changes) == 4)
        let failure = SyncError(.httpStatus(status: 500, code: "internal", message: "boom", retryAfterSeconds: 30))
        #expect(world.engine.currentStatus.phase == .offline(lastError: failure))
        try await world.store.upsert(Fixture.card("tok_b"), scope: scope)
        world.engine.notifyLocalWrite()
        #expect(clock.pendingSleeps == [.seconds(30)])
        #expect(remote.requestCount(.changes) == 4)

        // A reconnect does: one round, which also pushes the write made during the backoff.
        world.engine.reconnected()
        await clock.waitForSleepsStarted(5)
        await clock.waitForSleepers(1)
        #expect(remote.requestCount(.changes) == 5)
        #expect(remote.requestCount(.push) == 2)
        #expect(world.engine.currentStatus == SyncStatus(phase: .idle, pendingCount: 0, lastSyncedAt: clock.nowMillis(),
                                                         lastSyncedAtByScope: [scope: clock.nowMillis()]))

        await world.engine.stop()
        #expect(!world.engine.isRunning)
        #expect(clock.pendingSleeps.isEmpty)
        #expect(remote.requestCount() == 7)
    }

    @Test("stop cancels a round parked on a backoff; the op stays queued",
          arguments: RemoteKind.contract)
    func stopDuringBackoff(kind: RemoteKind) async throws {
        let world = try makeWorld(kind, interval: nil)
        try await world.store.upsert(Fixture.card("tok_a"), scope: scope)
        world.faults.failNext(10, .push, with: .unreachable(reason: "connection refused"))
        world.engine.start()
        await world.clock.waitForSleepers(1)
        await world.engine.stop()
        #expect(world.clock.pendingSleeps.isEmpty)
        #expect(try await world.store.pendingCount(scope: scope) == 1)
        #expect(try await world.store.pendingOps(scope: scope).map(\.attempts) == [1])
    }

    @Test("cancelled callers stop waiting at once; the rounds they waited for go on for everyone else",
          arguments: RemoteKind.contract)
    func cancelledCallersStopWaiting(kind: RemoteKind) async throws {
        let world = try makeWorld(kind)
        try await world.store.upsert(Fixture.card("tok_a"), scope: scope)
        world.faults.failNext(1, .push, with: .unreachable(reason: "connection refused"))
        let first = Task { try await world.engine.syncNow(scope: scope) }  // the running round
        await world.clock.waitForSleepers(1)
        let second = Task { try await world.engine.syncNow(scope: scope) }  // both join the follow-up round
        let third = Task { try await world.engine.syncNow(scope: scope) }

        first.cancel()
        second.cancel()
        await #expect(throws: CancellationError.self) { try await first.value }
        await #expect(throws: CancellationError.self) { try await second.value }
        #expect(world.clock.pendingSleeps.count == 1)  // the running round is still parked on its backoff
        #expect(world.faults.requestCount(.push) == 1)

        world.clock.advanceToNextDeadline()
        let report = try await third.cancellableValue
        #expect(report.pending == 0)
        #expect(world.faults.requestCount(.push) == 2)  // the first round's retry went out after its caller left
        #expect(try await world.store.pendingCount(scope: scope) == 0)
        #expect((try await world.serverInstruments()).map(\.id) == ["tok_a"])
    }

    @Test("a caller cancelled before it asks gets CancellationError without starting a round",
          arguments: RemoteKind.contract)
    func cancelledBeforeAsking(kind: RemoteKind) async throws {
        let world = try makeWorld(kind)
        try await world.store.upsert(Fixture.card("tok_a"), scope: scope)
        let started = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await world.engine.syncNow(scope: scope)
        }
        await #expect(throws: CancellationError.self) { try await started.value }
        #expect(world.faults.requestCount() == 0)
        #expect(try await world.store.pendingCount(scope: scope) == 1)
    }

    @Test("an empty merchant or customer id is refused before any request",
          arguments: RemoteKind.contract)
    func invalidScope(kind: RemoteKind) async throws {
        let world = try makeWorld(kind)
        let error = await #expect(throws: SyncError.self) {
            try await world.engine.syncNow(scope: VaultScope(merchantId: "", customerId: "cus_1"))
        }
        #expect(error?.code == .invalidScope)
        #expect(world.faults.requestCount() == 0)
    }

    /// A remote that announces more changes forever without sending any.
    struct StuckFeed: RemoteVault {
        func identity(scope: VaultScope) async throws -> VaultIdentity { VaultIdentity(merchant: scope.merchantId) }
        func changes(scope: VaultScope, cursor: String?, limit: Int) async throws -> ChangePage {
            ChangePage(changes: [], cursor: "v1.0", hasMore: true)
        }
        func push(scope: VaultScope, ops: [OutboundOp]) async throws -> [OpResult] { [] }
        func instruments(scope: VaultScope) async throws -> [RemoteInstrument] { [] }
    }

    @Test("a feed that announces more without progressing is a malformed answer, not an endless loop")
    func stuckFeed() async throws {
        let directory = try TestDirectory()
        let store = try directory.store("device")
        let engine = SyncEngine.testing(store, StuckFeed(), scope: scope)
        let error = await #expect(throws: SyncError.self) { try await engine.syncNow(scope: scope) }
        #expect(error?.code == .malformedResponse)
    }

    @Test("a 413 for too many ops halves the batch and later batches start at the size that worked",
          arguments: RemoteKind.contract)
    func learnsTheBatchLimit(kind: RemoteKind) async throws {
        let world = try makeWorld(kind, pushBatchSize: 8, limits: RemoteLimits(maxOpsPerBatch: 2))
        let (store, remote, engine) = (world.store, world.faults, world.engine)
        try await store.upsert((1...8).map { Fixture.card("tok_\($0)") }, scope: scope)
        let report = try await engine.syncNow(scope: scope)
        #expect(report.pushed == 8)
        #expect(report.rejected == 0)
        // 8 (413), 4 (413), 2, 2, then the learned size: 2, 2.
        #expect(remote.requests.filter { $0.endpoint == .push }.map(\.opIds.count) == [8, 4, 2, 2, 2, 2])

        remote.resetRequestLog()
        try await store.upsert((9...12).map { Fixture.card("tok_\($0)") }, scope: scope)
        #expect(try await engine.syncNow(scope: scope).pushed == 4)
        #expect(remote.requests.filter { $0.endpoint == .push }.map(\.opIds.count) == [2, 2])
    }

    @Test("start after stop runs a fresh loop; start twice is one loop",
          arguments: RemoteKind.contract)
    func restartable(kind: RemoteKind) async throws {
        let world = try makeWorld(kind, interval: .seconds(60))
        world.engine.start()
        world.engine.start()
        await world.clock.waitForSleepers(1)
        #expect(world.clock.pendingSleeps == [.seconds(60)])
        await world.engine.stop()
        #expect(world.clock.pendingSleeps.isEmpty)
        #expect(world.faults.requestCount(.changes) == 1)

        world.engine.start()
        #expect(world.engine.isRunning)
        await world.clock.waitForSleepers(1)
        #expect(world.faults.requestCount(.changes) == 2)
        await world.engine.stop()
    }

    @Test("start while stop is still waiting for a round: a live loop once stop returns, not a dead one",
          arguments: RemoteKind.contract)
    func startDuringStop(kind: RemoteKind) async throws {
        let world = try makeWorld(kind, interval: .seconds(60))
        let hold = world.faults.hold(.changes)  // a call that finishes only when released, cancelled or not
        world.engine.start()
        await hold.waitUntilReached()
        let stopping = Task { await world.engine.stop() }
        #expect(await eventually { !world.engine.isRunning })  // stop has begun and waits for the round
        world.engine.start()
        hold.release()
        await stopping.value

        #expect(world.engine.isRunning)
        await world.clock.waitForSleepers(1)  // the new loop ran its first round and waits for its timer
        #expect(world.clock.pendingSleeps == [.seconds(60)])
        #expect(world.faults.requestCount(.changes) == 2)
        try await world.store.upsert(Fixture.card("tok_a"), scope: scope)
        world.engine.notifyLocalWrite()
        #expect(await eventually { world.faults.requestCount(.push) == 1 })
        await world.engine.stop()
        #expect(!world.engine.isRunning)
    }
}
