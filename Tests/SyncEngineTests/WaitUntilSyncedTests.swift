import CheckoutCore
import CheckoutCoreTesting
import CheckoutTestSupport
@testable import CheckoutVault
import CheckoutVaultTesting
import Synchronization
import Testing

/// `SyncEngine.waitUntilSynced(scope:timeout:)`: write-checkpoint semantics, typed timeout, and
/// `lastSyncedAt` per scope.
@Suite("SyncEngine.waitUntilSynced", .timeLimit(.minutes(5)))
struct WaitUntilSyncedTests {
    let scope = Fixture.scope("cus_wait")

    @Test("returns once the local queue is pushed and the other device's change is pulled; lastSyncedAt per scope",
          arguments: RemoteKind.doubleAndServer)
    func caughtUp(kind: RemoteKind) async throws {
        let devices = try TwoDevices(kind, scope: scope)
        let (harness, phone, laptop, phoneEngine, laptopEngine) = (devices.harness, devices.phone, devices.laptop,
                                                                   devices.phoneEngine, devices.laptopEngine)
        let other = Fixture.scope("cus_other")
        try await laptop.upsert(Fixture.card("tok_laptop"), scope: scope)
        try await laptopEngine.syncNow(scope: scope)
        try await phone.upsert([Fixture.card("tok_p1"), Fixture.card("tok_p2")], scope: scope)
        #expect(phoneEngine.currentStatus.lastSyncedAt(scope: scope) == nil)

        try await phoneEngine.waitUntilSynced(scope: scope, timeout: TestWait.timeout)

        #expect(try await phone.pendingCount(scope: scope) == 0)
        #expect(Set(try await phone.instruments(scope: scope).map(\.id)) == ["tok_laptop", "tok_p1", "tok_p2"])
        #expect(Set(try await harness.serverInstruments(scope).map(\.id)) == ["tok_laptop", "tok_p1", "tok_p2"])
        let status = phoneEngine.currentStatus
        #expect(status.lastSyncedAt(scope: scope) != nil)
        #expect(status.lastSyncedAt(scope: other) == nil)
        #expect(status.lastSyncedAtByScope.keys.sorted { $0.customerId < $1.customerId } == [scope])
        #expect(laptopEngine.currentStatus.lastSyncedAt(scope: scope) != nil)
    }

    @Test("a round that pulled before the call does not count: a change committed before the call is pulled")
    func roundInFlightDoesNotCount() async throws {
        let memory = InMemoryRemoteVault(merchantId: Fixture.merchant)
        let directory = try TestDirectory()
        let phone = try directory.store("phone")
        let laptop = try directory.store("laptop")
        let phoneEngine = SyncEngine.testing(phone, memory, scope: scope)
        let laptopEngine = SyncEngine.testing(laptop, memory, scope: scope)
        // The phone's round has pulled (an empty feed) and is stuck in its push.
        try await phone.upsert(Fixture.card("tok_phone"), scope: scope)
        let hold = memory.hold(.push)
        let early = Task { try await phoneEngine.syncNow(scope: scope) }
        await hold.waitUntilReached()
        // Meanwhile the laptop saves a card: it is on the server before the phone's call below.
        try await laptop.upsert(Fixture.card("tok_laptop"), scope: scope)
        try await laptopEngine.syncNow(scope: scope)

        let waiting = Task { try await phoneEngine.waitUntilSynced(scope: scope, timeout: TestWait.timeout) }
        hold.release()
        let earlyReport = try await early.value
        #expect(earlyReport.pulled == 0)  // the running round alone would have missed the laptop's card
        try await waiting.value
        #expect(Set(try await phone.instruments(scope: scope).map(\.id)) == ["tok_laptop", "tok_phone"])
        #expect(try await phone.pendingCount(scope: scope) == 0)
    }

    @Test("a server that never answers: a typed timed-out error after the timeout, pending ops kept")
    func timesOut() async throws {
        let memory = InMemoryRemoteVault(merchantId: Fixture.merchant)
        memory.failNext(100_000, with: .unreachable(reason: "test: offline"))
        let directory = try TestDirectory()
        let phone = try directory.store("phone")
        let clock = TestClock()
        let engine = SyncEngine.testing(phone, memory, scope: scope, clock: clock)
        try await phone.upsert(Fixture.card("tok_a"), scope: scope)
        let done = Atomic<Bool>(false)
        let waiting = Task {
            defer { done.store(true, ordering: .sequentiallyConsistent) }
            try await engine.waitUntilSynced(scope: scope, timeout: .seconds(30))
        }
        let finished = await eventually {
            if done.load(ordering: .sequentiallyConsistent) { return true }
            if !clock.pendingSleeps.isEmpty { clock.advanceToNextDeadline() }
            return false
        }
        #expect(finished)
        let error = await #expect(throws: SyncError.self) { try await waiting.value }
        #expect(error?.code == .timedOut)
        #expect(error?.message.contains("was not caught up within") == true)
        #expect(try await phone.pendingCount(scope: scope) == 1)
    }

    @Test("a failure waiting cannot mend (unauthorized) is thrown at once, not waited out")
    func nonRetryableIsThrown() async throws {
        let memory = InMemoryRemoteVault(merchantId: Fixture.merchant)
        memory.failNext(100, with: .unauthorized)
        let directory = try TestDirectory()
        let phone = try directory.store("phone")
        let engine = SyncEngine.testing(phone, memory, scope: scope)
        try await phone.upsert(Fixture.card("tok_a"), scope: scope)
        let error = await #expect(throws: SyncError.self) {
            try await engine.waitUntilSynced(scope: scope, timeout: .seconds(3600))
        }
        #expect(error?.code == .unauthorized)
    }

    @Test("cancelling the waiting task ends the wait at once")
    func cancellationEndsTheWait() async throws {
        let memory = InMemoryRemoteVault(merchantId: Fixture.merchant)
        let hold = memory.hold(.changes)
        let directory = try TestDirectory()
        let phone = try directory.store("phone")
        let engine = SyncEngine.testing(phone, memory, scope: scope)
        let waiting = Task { try await engine.waitUntilSynced(scope: scope, timeout: .seconds(3600)) }
        await hold.waitUntilReached()
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        hold.release()
        await engine.stop()
    }
}

@Suite("SyncEngine.open")
struct SyncEngineOpenTests {
    @Test("the first status counts the store's queued operations, as the synchronous initializer does")
    func firstStatusCountsPending() async throws {
        let directory = try TestDirectory()
        let store = try directory.store("phone")
        let scope = Fixture.scope()
        try await store.upsert(Fixture.card("tok_1"), scope: scope)
        try await store.upsert(Fixture.card("tok_2"), scope: scope)
        let memory = InMemoryRemoteVault(merchantId: Fixture.merchant)
        let engine = await SyncEngine.open(store: store, remote: memory)
        #expect(engine.currentStatus == SyncStatus(phase: .idle, pendingCount: 2, lastSyncedAt: nil))
        #expect(SyncEngine(store: store, remote: memory).currentStatus == engine.currentStatus)
        #expect(memory.requestCount() == 0, "nothing talks to the remote before start() or syncNow()")
    }
}
