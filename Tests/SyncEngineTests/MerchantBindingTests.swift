import CheckoutCore
import CheckoutCoreTesting
import CheckoutLocking
import CheckoutTestSupport
import CheckoutVault
import CheckoutVaultTesting
import Foundation
import HTTPTransport
import Testing
import TLSTestSupport

/// The engine syncs a scope only with credentials of the scope's merchant,
/// checked with the server's `GET /v1/whoami` once per connection epoch. Over HTTPS, against
/// the real server.
@Suite(.timeLimit(.minutes(5))) struct MerchantBindingTests {
    static let merchantX = VaultScope(merchantId: "merchant_x", customerId: "cus_1")
    static let merchantA = Fixture.scope("cus_1")
    static let merchantB = VaultScope(merchantId: "merchant_b", customerId: "cus_1")

    static func httpsServer() async throws -> (LoopbackVaultServer, TLSOptions) {
        let pki = try await TestPKI.shared()
        let server = try LoopbackVaultServer(tls: pki.tls("server"))
        return (server, TLSOptions(caBundle: pki.caBundle))
    }

    @Test("merchant_a's key and a merchant_x scope: a typed refusal, nothing pushed, the outbox kept")
    func pushOfAnotherMerchantIsRefused() async throws {
        let (server, tls) = try await Self.httpsServer()
        let directory = try TestDirectory()
        let store = try directory.store("device")
        try await store.upsert(Fixture.card("tok_x"), scope: Self.merchantX)
        let engine = SyncEngine.testing(store, server.remote(tls: tls), scope: Self.merchantX, retry: .noRetry)

        let error = await #expect(throws: SyncError.self) { try await engine.syncNow(scope: Self.merchantX) }
        #expect(error?.code == .merchantMismatch)
        #expect(error?.remote == .merchantMismatch(credential: VaultIdentity(merchant: "merchant_a"), scope: Self.merchantX))
        #expect(try await store.pendingCount(scope: Self.merchantX) == 1)
        // The server's merchant_a holds nothing: the card was not stored under the key's merchant.
        #expect(try await server.remote(tls: tls).instruments(scope: Self.merchantA).isEmpty)
        #expect(engine.currentStatus.phase == .offline(lastError: try #require(error)))
    }

    @Test("pulls in reverse: merchant_a's cards never land in a merchant_x scope")
    func pullIntoAnotherMerchantIsRefused() async throws {
        let (server, tls) = try await Self.httpsServer()
        _ = try await server.remote(tls: tls).push(scope: Self.merchantA, ops: [Fixture.upsert("op-a", Fixture.card("tok_a"))])
        let directory = try TestDirectory()
        let store = try directory.store("device")
        let engine = SyncEngine.testing(store, server.remote(tls: tls), scope: Self.merchantX, retry: .noRetry)

        await #expect(throws: SyncError.self) { try await engine.syncNow(scope: Self.merchantX) }
        #expect(try await store.storedInstruments(scope: Self.merchantX, includeDeleted: true).isEmpty)
        #expect(try await store.cursor(scope: Self.merchantX) == nil)
    }

    @Test("a direct push through HTTPRemoteVault for another merchant is refused before the request is sent")
    func remoteRefusesBeforeSending() async throws {
        let (server, tls) = try await Self.httpsServer()
        let remote = server.remote(tls: tls)
        await #expect(throws: RemoteVaultError.merchantMismatch(credential: VaultIdentity(merchant: "merchant_a"),
                                                                scope: Self.merchantX)) {
            try await remote.push(scope: Self.merchantX, ops: [Fixture.upsert("op-x", Fixture.card("tok_x"))])
        }
        #expect(remote.transportStatistics.requests == 1, "only whoami went out")
        #expect(try await remote.instruments(scope: Self.merchantA).isEmpty)
    }

    @Test("a store with two merchants' outboxes: the default engine (includePendingScopes) syncs only its key's merchant")
    func pendingScopesOfAnotherMerchantStayQueued() async throws {
        let (server, tls) = try await Self.httpsServer()
        let directory = try TestDirectory()
        let store = try directory.store("device")
        try await store.upsert(Fixture.card("tok_a"), scope: Self.merchantA)
        try await store.upsert(Fixture.card("tok_b", last4: "4444"), scope: Self.merchantB)

        let engineA = SyncEngine(store: store, remote: server.remote(tls: tls),
                                 configuration: .init(interval: nil, retry: .noRetry), clock: TestClock())
        let reportA = try await engineA.syncNow()
        #expect(reportA.pushed == 1)
        #expect(reportA.foreignScopes == [Self.merchantB])
        #expect(try await store.pendingCount(scope: Self.merchantA) == 0)
        #expect(try await store.pendingCount(scope: Self.merchantB) == 1, "merchant_b's op waits for merchant_b's key")
        #expect(engineA.currentStatus.phase == .idle, "a foreign scope is not a failure")
        #expect(engineA.currentStatus.pendingCount == 0, "merchant_b's op is not this engine's to push")

        let engineB = SyncEngine(store: store, remote: server.remote(apiKey: LoopbackVaultServer.keyB, tls: tls),
                                 configuration: .init(interval: nil, retry: .noRetry), clock: TestClock())
        let reportB = try await engineB.syncNow()
        #expect(reportB.pushed == 1)
        #expect(reportB.foreignScopes.isEmpty, "merchant_a's scope has nothing queued any more")
        #expect(try await store.pendingCount(scope: Self.merchantB) == 0)

        #expect(try await server.remote(tls: tls).instruments(scope: Self.merchantA).map(\.id) == ["tok_a"])
        let remoteB = server.remote(apiKey: LoopbackVaultServer.keyB, tls: tls)
        #expect(try await remoteB.instruments(scope: Self.merchantB).map(\.id) == ["tok_b"])
    }

    @Test("a server without whoami (older than the client): misconfigured, nothing sent, the outbox kept")
    func serverWithoutWhoami() async throws {
        let stub = try RawHTTPStub(responses: [
            "whoami": RawHTTPStub.response(status: 404, body: #"{"error":{"code":"not-found","message":"no such resource"}}"#),
        ])
        let directory = try TestDirectory()
        let store = try directory.store("device")
        try await store.upsert(Fixture.card("tok_a"), scope: Self.merchantA)
        let engine = SyncEngine.testing(store, HTTPRemoteVault(baseURL: stub.baseURL, apiKey: "key", timeout: 10),
                                        scope: Self.merchantA, retry: .noRetry)
        let error = await #expect(throws: SyncError.self) { try await engine.syncNow(scope: Self.merchantA) }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.contains("does not answer GET /v1/whoami") == true)
        #expect(try await store.pendingCount(scope: Self.merchantA) == 1)
        #expect(stub.requests.map(\.target) == ["/v1/whoami"])
    }

    @Test("the in-memory double answers identity as its merchant: the engine refuses another merchant's scope there too")
    func inMemoryRefusesToo() async throws {
        let directory = try TestDirectory()
        let store = try directory.store("device")
        try await store.upsert(Fixture.card("tok_x"), scope: Self.merchantX)
        let remote = InMemoryRemoteVault(merchantId: "merchant_a")
        let engine = SyncEngine.testing(store, remote, scope: Self.merchantX, retry: .noRetry)
        let error = await #expect(throws: SyncError.self) { try await engine.syncNow(scope: Self.merchantX) }
        #expect(error?.code == .merchantMismatch)
        #expect(remote.requests.isEmpty)
    }

    @Test("whoami once per epoch: not again for later rounds; again after a new ephemeral key and after a lost connection")
    func oncePerEpoch() async throws {
        let (server, tls) = try await Self.httpsServer()
        let backendRemote = server.remote(tls: tls)
        let minted = Locked<[IssuedEphemeralKey]>([])
        let device = HTTPRemoteVault(baseURL: server.baseURL, credentials: .ephemeral { scope in
            let key = try await backendRemote.createEphemeralKey(customerId: scope.customerId)
            minted.withLock { $0.append(key) }
            return key.vaultKey
        }, timeout: 120, resourceTimeout: 240, tls: tls)
        let directory = try TestDirectory()
        let store = try directory.store("device")
        let engine = SyncEngine.testing(store, device, scope: Self.merchantA, retry: .noRetry)

        try await store.upsert(Fixture.card("tok_1"), scope: Self.merchantA)
        #expect(try await engine.syncNow(scope: Self.merchantA).pushed == 1)
        try await store.upsert(Fixture.card("tok_2"), scope: Self.merchantA)
        #expect(try await engine.syncNow(scope: Self.merchantA).pushed == 1)
        #expect(device.identityChecks == 1, "two rounds, one epoch")

        // A revoked key: the provider hands a new one, which is a new epoch.
        try await backendRemote.revokeEphemeralKey(id: try #require(minted.withLock { $0.first?.id }))
        _ = try await engine.syncNow(scope: Self.merchantA)
        #expect(minted.withLock { $0.count } == 2)
        #expect(device.identityChecks == 2)

        // The server goes away and comes back: the connection epoch ended with the failure.
        server.stop()
        await #expect(throws: SyncError.self) { try await engine.syncNow(scope: Self.merchantA) }
        try server.restart()
        _ = try await engine.syncNow(scope: Self.merchantA)
        #expect(device.identityChecks == 3)
    }
}
