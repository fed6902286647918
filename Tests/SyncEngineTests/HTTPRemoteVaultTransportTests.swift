import CheckoutCore
import CheckoutCoreTesting
import CheckoutTestSupport
import CheckoutVault
import CheckoutVaultTesting
import Foundation
import HTTPTransport
import Testing

/// `HTTPRemoteVault` over the libcurl transport: what transport failures become, settings that
/// cannot work, credentials never printed, and the whole stack against the real vault server.
/// The transport's own behaviour is `HTTPTransportTests`, in its own target.
@Suite("HTTPRemoteVault over HTTP")
struct HTTPRemoteVaultTransportTests {
    /// What `HTTPRemoteVault` makes of transport failures: a connection that fails or ends early
    /// is unreachable (retryable), an answer that breaks HTTP or a bound is malformed (not retried).
    @Test("transport failures map to RemoteVaultError")
    func mapping() async throws {
        let cut = try RawHTTPStub { _ in .reply(Array("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123".utf8), close: true) }
        let cutError = await #expect(throws: RemoteVaultError.self) {
            try await HTTPRemoteVault(baseURL: cut.baseURL, apiKey: "k").instruments(scope: Fixture.scope())
        }
        #expect(cutError?.isRetryable == true)
        guard case .unreachable(let reason)? = cutError else { Issue.record("\(String(describing: cutError))"); return }
        #expect(reason.contains("inside the response body"))

        let garbage = try RawHTTPStub { _ in .reply(Array("HELLO\r\n\r\n".utf8), close: true) }
        let garbageError = await #expect(throws: RemoteVaultError.self) {
            try await HTTPRemoteVault(baseURL: garbage.baseURL, apiKey: "k").instruments(scope: Fixture.scope())
        }
        #expect(garbageError?.isRetryable == false)
        guard case .malformedResponse? = garbageError else { Issue.record("\(String(describing: garbageError))"); return }
    }

    @Test("settings that cannot work are misconfigured, not retried: a round fails once, with invalid-configuration",
          arguments: ["http://vault.example.com", "ftp://127.0.0.1/"])
    func misconfigured(_ text: String) async throws {
        let remote = HTTPRemoteVault(baseURL: try #require(URL(string: text)), apiKey: "k")
        let directory = try TestDirectory()
        let store = try directory.store("device")
        let clock = TestClock()
        let engine = SyncEngine.testing(store, remote, scope: Fixture.scope(), clock: clock, retry: RetryPolicy(maxAttempts: 5))
        let error = await #expect(throws: SyncError.self) { try await engine.syncNow(scope: Fixture.scope()) }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.isRetryable == false)
        #expect(clock.sleepHistory.isEmpty)
        #expect(remote.transportStatistics.requests == 0)
    }

    @Test("printing a remote, an ephemeral key or an issued key never shows a credential")
    func credentialsNeverPrinted() throws {
        let secret = "eks_abcdefghijklmnopabcdefghijklmnopabcdefghijklmnopabcdefghijklmnop"
        let remote = HTTPRemoteVault(baseURL: try #require(URL(string: "https://vault.example.com:8443")), apiKey: "merchant-secret-key")
        let key = EphemeralVaultKey(secret: secret, expiresAt: Date(timeIntervalSince1970: 2_000_000_000), id: "ek_a")
        let issued = IssuedEphemeralKey(id: "ek_a", secret: secret, customer: "c1", expiresAt: key.expiresAt, scope: "read")
        for value in [remote as Any, key, issued, [key]] {
            var dumped = ""
            dump(value, to: &dumped)
            for text in [dumped, String(describing: value), String(reflecting: value)] {
                #expect(!text.contains(secret) && !text.contains("merchant-secret-key"), "\(text)")
            }
        }
        #expect(String(describing: remote) == "HTTPRemoteVault(https://vault.example.com:8443)")
    }

    // MARK: Against the real vault server

    @Test("HTTPRemoteVault on the real server: pushes, pages and lists over one kept-alive connection")
    func realServer() async throws {
        // Both ends keep an idle connection for an hour: a test starved of CPU by the rest of the
        // suite can pause longer than the default 30 s between two requests.
        let server = try LoopbackVaultServer(limits: .init(idleConnectionTimeoutSeconds: 3600))
        let remote = server.remote(idleTimeout: 3600)
        let scope = Fixture.scope("cus:http.1")  // ":" is percent-encoded in the path
        let ops = (0..<30).map { Fixture.upsert("op-\($0)", Fixture.card("tok_\($0)")) }
        let results = try await remote.push(scope: scope, ops: ops)
        #expect(results.map(\.status) == Array(repeating: .applied, count: 30))
        // The same batch again is answered from the op log (what a resent POST gets).
        #expect(try await remote.push(scope: scope, ops: ops) == results)
        var cursor: String?
        var received: [String] = []
        repeat {
            let page = try await remote.changes(scope: scope, cursor: cursor, limit: 7)
            received += page.changes.map(\.token)
            cursor = page.cursor
            if !page.hasMore { break }
        } while true
        #expect(Set(received) == Set((0..<30).map { "tok_\($0)" }))
        #expect(try await remote.instruments(scope: scope).count == 30)
        #expect(remote.transportStatistics.connectionsOpened == 1)
        #expect(remote.transportStatistics.reusedConnections == remote.transportStatistics.requests - 1)
    }

    @Test("HTTPRemoteVault on the real server: a restart between requests costs no error (stale connection resent)")
    func realServerRestart() async throws {
        let server = try LoopbackVaultServer()
        let remote = server.remote()
        let scope = Fixture.scope()
        _ = try await remote.push(scope: scope, ops: [Fixture.upsert("op-a", Fixture.card("tok_a"))])
        try server.restart()
        // The pooled connection died with the old server; libcurl notices or resends.
        #expect(try await remote.push(scope: scope, ops: [Fixture.upsert("op-b", Fixture.card("tok_b"))]).map(\.status) == [.applied])
        #expect(try await remote.instruments(scope: scope).map(\.id) == ["tok_a", "tok_b"])
        #expect(remote.transportStatistics.connectionsOpened == 2)
    }

    @Test("HTTPRemoteVault: an API key with a line break is refused locally, never sent")
    func apiKeyInjection() async throws {
        let stub = try RawHTTPStub { _ in .reply(RawHTTPStub.keepAlive(body: "{}"), close: false) }
        let remote = HTTPRemoteVault(baseURL: stub.baseURL, apiKey: "key\r\nX-Injected: 1", timeout: 5)
        let error = await #expect(throws: RemoteVaultError.self) { try await remote.instruments(scope: Fixture.scope()) }
        guard case .misconfigured(let reason)? = error else {
            Issue.record("expected misconfigured, got \(String(describing: error))")
            return
        }
        #expect(error?.isRetryable == false)
        #expect(reason.contains("control character"))
        #expect(!reason.contains("key\r"))
        #expect(stub.acceptedConnections == 0)
    }
}
