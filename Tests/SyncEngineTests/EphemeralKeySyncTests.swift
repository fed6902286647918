import CheckoutCore
import CheckoutCoreTesting
import CheckoutLocking
@testable import CheckoutVault
import CheckoutVaultTesting
import Foundation
import HTTPTransport
import Synchronization
import Testing
import VaultServer

/// A device syncing with ephemeral customer keys against the real server: when the key is asked
/// for, what a refused key costs, and that no refresh loses or repeats a queued change.
@Suite("Ephemeral keys: a device syncing without the merchant key", .timeLimit(.minutes(5)))
struct EphemeralKeySyncTests {
    let scope = Fixture.scope("cus_device")

    /// A backend (merchant key) that mints keys for the device, counting them.
    final class Backend: Sendable {
        let remote: HTTPRemoteVault
        private let minted = Locked<[IssuedEphemeralKey]>([])
        private let failing = Atomic<Bool>(false)

        init(_ server: LoopbackVaultServer) {
            remote = server.remote()
        }

        var keys: [IssuedEphemeralKey] { minted.withLock { $0 } }

        func failFromNowOn() { failing.store(true, ordering: .sequentiallyConsistent) }

        func mint(_ scope: VaultScope, ttl: Int = 600, readOnly: Bool = false) async throws -> EphemeralVaultKey {
            struct BackendDown: Error {}
            if failing.load(ordering: .sequentiallyConsistent) { throw BackendDown() }
            let key = try await remote.createEphemeralKey(customerId: scope.customerId, ttlSeconds: ttl, readOnly: readOnly)
            minted.withLock { $0.append(key) }
            return key.vaultKey
        }
    }

    /// A device remote whose key provider is `backend`, judging expiry by `clock`.
    func device(_ server: LoopbackVaultServer, _ backend: Backend, clock: TestClock = TestClock(),
                ttl: Int = 600) -> HTTPRemoteVault {
        HTTPRemoteVault(baseURL: server.baseURL, credentials: .ephemeral { scope in try await backend.mint(scope, ttl: ttl) },
                        timeout: 120, resourceTimeout: 240, clock: clock.wallClock)
    }

    @Test("the provider is asked when there is no key, not again while the key is good, and again shortly before expiry")
    func askedWhenNeeded() async throws {
        let server = try LoopbackVaultServer()
        let backend = Backend(server)
        // Device and server clocks start at the same instant.
        let clock = TestClock(startMillis: server.time.now)
        let remote = device(server, backend, clock: clock, ttl: 600)
        let directory = try TestDirectory()
        let store = try directory.store("device")
        let engine = SyncEngine.testing(store, remote, scope: scope, clock: clock)
        _ = try await engine.syncNow(scope: scope)
        _ = try await engine.syncNow(scope: scope)
        #expect(remote.keyProviderCalls == 1)
        clock.advance(by: .seconds(500))  // 100 s left: still outside the 60 s margin
        server.time.advance(seconds: 500)
        _ = try await engine.syncNow(scope: scope)
        #expect(remote.keyProviderCalls == 1)
        clock.advance(by: .seconds(50))  // 50 s left: replaced before use
        server.time.advance(seconds: 50)
        _ = try await engine.syncNow(scope: scope)
        #expect(remote.keyProviderCalls == 2)
        #expect(backend.keys.count == 2)
    }

    @Test("a refresh in the middle of a sync of 100 queued ops: nothing lost, nothing applied twice")
    func refreshMidSync() async throws {
        let server = try LoopbackVaultServer()
        let backend = Backend(server)
        let inner = device(server, backend, ttl: 600)  // the device's clock never moves: it learns of expiry from the server
        let remote = HookedRemote(inner, afterPush: { index in
            if index == 3 { server.time.advance(seconds: 601) }  // the key expires between two batches
        })
        let directory = try TestDirectory()
        let store = try directory.store("device")
        try await store.upsert((1...100).map { Fixture.card("tok_\($0)") }, scope: scope)
        let engine = SyncEngine.testing(store, remote, scope: scope, pushBatchSize: 10)
        let report = try await engine.syncNow(scope: scope)
        #expect(report.pushed == 100)
        #expect(report.pending == 0)
        #expect(inner.keyProviderCalls == 2)
        let stored = try await backend.remote.instruments(scope: scope)
        #expect(stored.map(\.id).sorted() == (1...100).map { "tok_\($0)" }.sorted())
        #expect(stored.allSatisfy { $0.version == 1 })  // each op applied exactly once
        #expect(try await store.storedInstruments(scope: scope).count == 100)
    }

    @Test("a revoked key is replaced once; a provider that hands out the revoked key again ends the round with key-revoked")
    func neverLoops() async throws {
        let server = try LoopbackVaultServer()
        let backend = Backend(server)
        let issued = try await backend.remote.createEphemeralKey(customerId: scope.customerId)
        try await backend.remote.revokeEphemeralKey(id: issued.id)
        let remote = HTTPRemoteVault(baseURL: server.baseURL, credentials: .ephemeral { _ in issued.vaultKey },
                                     timeout: 120, resourceTimeout: 240)
        let directory = try TestDirectory()
        let store = try directory.store("device")
        try await store.upsert(Fixture.card("tok_a"), scope: scope)
        let engine = SyncEngine.testing(store, remote, scope: scope, retry: RetryPolicy(maxAttempts: 5))
        let error = await #expect(throws: SyncError.self) { try await engine.syncNow(scope: scope) }
        #expect(error?.code == .keyRevoked)
        #expect(remote.keyProviderCalls == 2)
        #expect(remote.transportStatistics.requests == 2)
        #expect(try await store.pendingCount(scope: scope) == 1)
    }

    @Test("a failing key provider shows as an offline status with credentials-unavailable; the queue is kept")
    func providerFailure() async throws {
        let server = try LoopbackVaultServer()
        let backend = Backend(server)
        backend.failFromNowOn()
        let remote = device(server, backend)
        let directory = try TestDirectory()
        let store = try directory.store("device")
        try await store.upsert(Fixture.card("tok_a"), scope: scope)
        let clock = TestClock()
        let engine = SyncEngine.testing(store, remote, scope: scope, clock: clock, retry: RetryPolicy(maxAttempts: 1))
        let error = await #expect(throws: SyncError.self) { try await engine.syncNow(scope: scope) }
        #expect(error?.code == .credentialsUnavailable)
        #expect(error?.isRetryable == true)
        #expect(engine.currentStatus.phase == .offline(lastError: try #require(error)))
        #expect(engine.currentStatus.pendingCount == 1)
        #expect(server.requestCount == 0)  // nothing was sent without a key
    }

    @Test("whatever the provider throws, its own CancellationError included, is credentials-unavailable; background sync goes on")
    func providerErrorsAreCredentialsUnavailable() async throws {
        let server = try LoopbackVaultServer()
        let remote = HTTPRemoteVault(baseURL: server.baseURL, credentials: .ephemeral { _ in throw CancellationError() },
                                     timeout: 120, resourceTimeout: 240)
        await #expect(throws: RemoteVaultError.credentialsUnavailable(reason: "the key provider failed: CancellationError()")) {
            try await remote.instruments(scope: scope)
        }
        let backendDown = HTTPRemoteVault(baseURL: server.baseURL,
                                          credentials: .ephemeral { _ in throw RemoteVaultError.unauthorized },
                                          timeout: 120, resourceTimeout: 240)
        let error = await #expect(throws: RemoteVaultError.self) { try await backendDown.instruments(scope: scope) }
        guard case .credentialsUnavailable? = error else { Issue.record("\(String(describing: error))"); return }
    }

    @Test("a key the server does not know (401 unauthorized) is dropped: the next round asks for a new one")
    func unknownKeyDropped() async throws {
        let server = try LoopbackVaultServer()
        let backend = Backend(server)
        let calls = Locked(0)
        let remote = HTTPRemoteVault(baseURL: server.baseURL, credentials: .ephemeral { scope in
            let call = calls.withLock { value -> Int in
                value += 1
                return value
            }
            // First an unknown secret, then a real key.
            if call == 1 { return EphemeralVaultKey(secret: "eks_unknown", expiresAt: Date().addingTimeInterval(600)) }
            return try await backend.mint(scope)
        }, timeout: 120, resourceTimeout: 240)
        await #expect(throws: RemoteVaultError.unauthorized) { try await remote.instruments(scope: scope) }
        #expect(try await remote.instruments(scope: scope).isEmpty)
        #expect(remote.keyProviderCalls == 2)
    }

    @Test("a key for one customer: another customer's scope is refused before sending; a read-only key reads but cannot push")
    func scopeAndReadOnly() async throws {
        let server = try LoopbackVaultServer()
        let backend = Backend(server)
        _ = try await backend.remote.push(scope: scope, ops: [Fixture.upsert("op-1", Fixture.card("tok_a"))])
        let mine = try await backend.remote.createEphemeralKey(customerId: scope.customerId, readOnly: true)
        let remote = HTTPRemoteVault(baseURL: server.baseURL, credentials: .ephemeral { _ in mine.vaultKey },
                                     timeout: 120, resourceTimeout: 240)
        #expect(try await remote.instruments(scope: scope).map(\.id) == ["tok_a"])
        // whoami names the key's customer, so the client refuses another customer's scope itself
        // (the server would answer 404: EphemeralKeyTests checks that over raw HTTP).
        let other = Fixture.scope("cus_other")
        let identity = VaultIdentity(merchant: Fixture.merchant, customer: scope.customerId)
        await #expect(throws: RemoteVaultError.merchantMismatch(credential: identity, scope: other)) {
            try await remote.instruments(scope: other)
        }
        await #expect(throws: RemoteVaultError.merchantMismatch(credential: identity, scope: other)) {
            try await remote.changes(scope: other, cursor: nil, limit: 10)
        }
        do {
            _ = try await remote.push(scope: scope, ops: [Fixture.upsert("op-2", Fixture.card("tok_b"))])
            Issue.record("a read-only key pushed")
        } catch let error as RemoteVaultError {
            guard case .httpStatus(403, _, _, _) = error else { Issue.record("\(error)"); return }
        }
    }
}
