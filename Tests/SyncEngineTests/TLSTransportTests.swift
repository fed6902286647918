import CheckoutCore
import CheckoutCoreTesting
import CheckoutTestSupport
@testable import CheckoutVault
import CheckoutVaultTesting
import Foundation
import HTTPTransport
import TLSTestSupport
import Testing
import VaultServer

/// HTTPS end to end: the real vault server on libmicrohttpd with GnuTLS, the real libcurl client,
/// real certificates made at test time (`TestPKI`). No mock of the crypto or the transport.
@Suite("TLS: real server, real client, real certificates", .timeLimit(.minutes(5)))
struct TLSTransportTests {
    /// A client configuration that is not about timeouts (the suite may starve a test).
    static func configuration(_ tls: TLSOptions) -> HTTPTransportConfiguration {
        HTTPTransportConfiguration(timeout: 60, exchangeTimeout: 120, idleTimeout: 3600, tls: tls)
    }

    static func outcome(_ transport: HTTPTransport) async -> Result<HTTPResponse, HTTPTransportError> {
        do {
            return .success(try await transport.send(HTTPRequest(method: "GET", path: "/health")))
        } catch {
            return .failure(error)
        }
    }

    @Test("a full sync over HTTPS with a private CA: one TLS handshake, every later request on the kept-alive connection")
    func syncOverHTTPS() async throws {
        let pki = try await TestPKI.shared()
        let server = try LoopbackVaultServer(limits: .init(idleConnectionTimeoutSeconds: 3600), tls: pki.tls("server"))
        #expect(server.baseURL.scheme == "https")
        let remote = server.remote(idleTimeout: 3600, tls: TLSOptions(caBundle: pki.caBundle))
        let directory = try TestDirectory()
        let device = try directory.store("device")
        let scope = Fixture.scope("cus_tls")
        try await device.upsert((0..<30).map { Fixture.card("tok_\($0)") }, scope: scope)
        let engine = SyncEngine.testing(device, remote, scope: scope, pageSize: 7, pushBatchSize: 7)
        let first = try await engine.syncNow(scope: scope)
        #expect(first.pushed == 30)
        let other = try directory.store("other")
        let second = try await SyncEngine.testing(other, remote, scope: scope, pageSize: 7).syncNow(scope: scope)
        #expect(second.pulled == 30)
        #expect(try await other.storedInstruments(scope: scope).count == 30)
        let statistics = remote.transportStatistics
        #expect(statistics.requests >= 10)
        #expect(statistics.tlsHandshakes == 1)
        #expect(statistics.connectionsOpened == 1)
        #expect(statistics.reusedConnections == statistics.requests - 1)
    }

    /// A server certificate, the client's TLS options, and what must come of them.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let certificate: String
        let options: @Sendable (TestPKI) throws -> TLSOptions
        let expected: HTTPTransportError.Code?
        let message: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "trusted through the CA bundle", certificate: "server", options: { TLSOptions(caBundle: $0.caBundle) },
             expected: nil, message: ""),
        Case(name: "private CA unknown to the system store", certificate: "server", options: { _ in TLSOptions() },
             expected: .certificateUntrusted, message: "certificate not trusted"),
        Case(name: "self-signed certificate", certificate: "self-signed", options: { TLSOptions(caBundle: $0.caBundle) },
             expected: .certificateUntrusted, message: "certificate not trusted"),
        Case(name: "certificate for another host name", certificate: "wrong-host", options: { TLSOptions(caBundle: $0.caBundle) },
             expected: .certificateHostMismatch, message: "host name mismatch"),
        Case(name: "expired certificate", certificate: "expired", options: { TLSOptions(caBundle: $0.caBundle) },
             expected: .certificateExpired, message: "certificate expired"),
        Case(name: "pinned to the server's key", certificate: "server",
             options: { TLSOptions(caBundle: $0.caBundle, pinnedPublicKeys: [try $0.pin("other"), "sha256//" + (try $0.pin("server"))]) },
             expected: nil, message: ""),
        Case(name: "pinned to another key", certificate: "server",
             options: { TLSOptions(caBundle: $0.caBundle, pinnedPublicKeys: [try $0.pin("other")]) },
             expected: .pinMismatch, message: "does not match a pin"),
        Case(name: "a malformed pin", certificate: "server", options: { TLSOptions(caBundle: $0.caBundle, pinnedPublicKeys: ["abc"]) },
             expected: .invalidConfiguration, message: "pinned public key"),
        Case(name: "a CA bundle that does not exist", certificate: "server",
             options: { TLSOptions(caBundle: $0.path("missing.pem")) }, expected: .invalidConfiguration, message: "TLS settings"),
        Case(name: "verification off for this host by name", certificate: "self-signed",
             options: { _ in TLSOptions(unverifiedHosts: ["127.0.0.1"]) }, expected: nil, message: ""),
        Case(name: "verification off for another host only", certificate: "self-signed",
             options: { _ in TLSOptions(unverifiedHosts: ["localhost"]) }, expected: .certificateUntrusted,
             message: "certificate not trusted"),
    ]

    @Test("certificates: each problem is a typed error whose message names the cause", arguments: cases)
    func certificate(_ testCase: Case) async throws {
        let pki = try await TestPKI.shared()
        let server = try LoopbackVaultServer(tls: pki.tls(testCase.certificate))
        let transport = HTTPTransport(baseURL: server.baseURL, configuration: Self.configuration(try testCase.options(pki)))
        switch await Self.outcome(transport) {
        case .success(let response):
            #expect(testCase.expected == nil, "answered \(response.status)")
            #expect(response.status == 200)
        case .failure(let error):
            #expect(error.code == testCase.expected, "\(error)")
            #expect(error.message.contains(testCase.message), "\(error.message)")
        }
    }

    @Test("HTTPRemoteVault: a refused certificate is untrustedServer, not retried within the round")
    func remoteMapping() async throws {
        let pki = try await TestPKI.shared()
        let server = try LoopbackVaultServer(tls: pki.tls("wrong-host"))
        let remote = server.remote(tls: TLSOptions(caBundle: pki.caBundle))
        let directory = try TestDirectory()
        let store = try directory.store("device")
        let scope = Fixture.scope()
        try await store.upsert(Fixture.card("tok_a"), scope: scope)
        let clock = TestClock()
        let engine = SyncEngine.testing(store, remote, scope: scope, clock: clock, retry: RetryPolicy(maxAttempts: 5))
        let error = await #expect(throws: SyncError.self) { try await engine.syncNow(scope: scope) }
        #expect(error?.code == .untrustedServer)
        #expect(error?.message.contains("host name mismatch") == true)
        #expect(error?.isRetryable == false)
        #expect(clock.sleepHistory.isEmpty)
        #expect(remote.transportStatistics.requests == 1)
        #expect(try await store.pendingCount(scope: scope) == 1)  // nothing lost
    }

    @Test("a permanently refused certificate: the background loop makes a bounded number of attempts a minute")
    func backoffIsBounded() async throws {
        let pki = try await TestPKI.shared()
        let server = try LoopbackVaultServer(tls: pki.tls("expired"))
        let remote = server.remote(tls: TLSOptions(caBundle: pki.caBundle))
        let directory = try TestDirectory()
        let store = try directory.store("device")
        let scope = Fixture.scope()
        let clock = TestClock()
        let engine = SyncEngine.testing(store, remote, scope: scope, clock: clock, interval: .seconds(300))
        engine.start()
        var attemptsPerMinute = Array(repeating: 0, count: 10)
        var elapsed = Duration.zero
        var seen = 0
        while elapsed < .seconds(600) {
            await clock.waitForSleepers(1)
            let requests = remote.transportStatistics.requests
            attemptsPerMinute[Int(elapsed.components.seconds / 60)] += requests - seen
            seen = requests
            guard let step = clock.advanceToNextDeadline() else { break }
            elapsed += step
        }
        await engine.stop()
        #expect(seen >= 5)  // it did keep trying
        #expect(attemptsPerMinute[0] <= 10, "first minute: \(attemptsPerMinute)")
        #expect(attemptsPerMinute.dropFirst(2).allSatisfy { $0 <= 2 }, "per minute: \(attemptsPerMinute)")
        guard case .offline(let lastError) = engine.currentStatus.phase else {
            Issue.record("status: \(engine.currentStatus)")
            return
        }
        #expect(lastError.code == .untrustedServer)
    }

    /// What a broken TLS peer does after reading the ClientHello.
    @Test("a TLS handshake cut mid-way, or garbage instead of TLS: a typed handshake failure, never a hang or a crash",
          arguments: [("cut after the ClientHello", RawHTTPStub.Action.close),
                      ("plain HTTP instead of TLS", .reply(Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8), close: true)),
                      ("random bytes", .reply((0..<512).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }, close: true))])
    func brokenHandshake(_ name: String, _ action: RawHTTPStub.Action) async throws {
        let stub = try RawHTTPStub(raw: true) { _ in action }
        let url = try #require(URL(string: "https://127.0.0.1:\(stub.port)"))
        let pki = try await TestPKI.shared()
        let transport = HTTPTransport(baseURL: url, configuration: Self.configuration(TLSOptions(caBundle: pki.caBundle)))
        switch await Self.outcome(transport) {
        case .success(let response): Issue.record("\(name): answered \(response.status)")
        case .failure(let error): #expect(error.code == .tlsHandshakeFailed, "\(name): \(error)")
        }
        let hello = try #require(stub.requests.first?.body)
        #expect(hello.first == 0x16)  // a TLS handshake record reached the peer
    }
}
