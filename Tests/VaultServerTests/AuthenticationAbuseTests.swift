import CheckoutCoreTesting
import CheckoutLocking
import Foundation
import HTTPTransport
import TLSTestSupport
import Testing
@testable import VaultServer

/// A wrong credential costs the server no body memory, closes its
/// connection, is logged without the key, and an address that keeps guessing is throttled.
@Suite(.timeLimit(.minutes(2))) struct AuthenticationAbuseTests {
    /// The log lines a server wrote.
    final class LogLines: Sendable {
        private let lines = Locked<[String]>([])
        var log: VaultServerLog { VaultServerLog { [self] line in lines.withLock { $0.append(line) } } }
        var all: [String] { lines.withLock { $0 } }
    }

    @Test("a wrong key with a declared 1 MiB body gets 401 at once, the body unread and the connection closed")
    func refusedBeforeTheBody() throws {
        let server = try TestServer(.memory)
        // Only the head is sent: an answer proves the server decided without waiting for the body.
        let head = Array("POST /v1/customers/c1/ops HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer wrong-key\r\n".utf8)
            + Array("Content-Type: application/json\r\nContent-Length: 1048576\r\n\r\n".utf8)
        let exchange = try RawExchange.run(port: server.port, head, wait: 5)
        #expect(exchange.closed, "the connection stayed open")
        #expect(exchange.elapsed < .seconds(4))
        expectJSONError(exchange.responses.first, status: 401, code: "unauthorized")
        #expect(exchange.responses.first?.header("connection")?.lowercased() == "close")
    }

    @Test("an ephemeral key judged from the head by the storage: a revoked key's declared 1 MiB upload gets 401 key-revoked at once, a read key's write 403, and a valid key's body is read and applied", arguments: StorageKind.available)
    func ephemeralKeysJudgedFromTheHead(_ kind: StorageKind) async throws {
        let server = try TestServer(kind)
        let revoked = try await server.mintKey(customer: "c1")
        #expect(try await server.send("DELETE", "/v1/ephemeral-keys/\(revoked.id)").status == 200)
        let reader = try await server.mintKey(customer: "c1", scope: "read")
        let writer = try await server.mintKey(customer: "c1")
        func head(_ secret: String) -> [UInt8] {
            Array("POST /v1/customers/c1/ops HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(secret)\r\n".utf8)
                + Array("Content-Type: application/json\r\nContent-Length: 1048576\r\n\r\n".utf8)
        }
        let refused = try RawExchange.run(port: server.port, head(revoked.secret), wait: 5)
        #expect(refused.closed)
        expectJSONError(refused.responses.first, status: 401, code: "key-revoked")
        let readOnly = try RawExchange.run(port: server.port, head(reader.secret), wait: 5)
        #expect(readOnly.closed)
        expectJSONError(readOnly.responses.first, status: 403, code: "read-only-key")
        let op = Array(#"{"ops":[{"opId":"o1","kind":"delete","instrumentId":"tok-1"}]}"#.utf8)
        let applied = try RawHTTP.exchange(port: server.port, RawHTTP.request(
            "POST", path: Array("/v1/customers/c1/ops".utf8), headers: [("Authorization", "Bearer \(writer.secret)")], body: op))
        #expect(applied.status == 200, "\(applied.text)")
    }

    /// The body is far larger than the socket buffers, so a client that streamed it into the
    /// refusal would see its connection reset and lose the answer; the transport asks
    /// `Expect: 100-continue` for large bodies, and the server's head refusal comes first.
    @Test("over HTTPS (libcurl): a wrong key's 8 MiB upload is answered 401, not cut off, and the next request is served")
    func refusedBeforeTheBodyOverHTTPS() async throws {
        let pki = try await TestPKI.shared()
        let pair = pki.pair("server")
        let server = VaultServer(configuration: VaultServerConfiguration(
            listen: .init(host: "127.0.0.1", port: 0), apiKeys: [TestServer.keyA: "merchant_a"],
            limits: .init(maxBodyBytes: 16 << 20),
            tls: .init(certificate: pair.certificate, privateKey: pair.privateKey)), storage: InMemoryVaultServerStorage())
        let port = try server.start()
        defer { server.stop() }
        let transport = HTTPTransport(baseURL: try #require(URL(string: "https://127.0.0.1:\(port)")),
                                      configuration: HTTPTransportConfiguration(tls: TLSOptions(caBundle: pki.caBundle)))
        let upload = HTTPRequest(method: "POST", path: "/v1/customers/c1/ops",
                                 headers: [HTTPHeaderField(name: "Authorization", value: "Bearer not-a-key"),
                                           HTTPHeaderField(name: "Content-Type", value: "application/json")],
                                 body: [UInt8](repeating: UInt8(ascii: "1"), count: 8 << 20))
        for _ in 0..<3 {
            let refused = try await transport.send(upload)
            #expect(refused.status == 401)
            #expect(String(decoding: refused.body, as: UTF8.self).contains(#""code":"unauthorized""#))
        }
        let served = try await transport.send(HTTPRequest(method: "GET", path: "/v1/customers/c1/instruments",
                                                          headers: [HTTPHeaderField(name: "Authorization",
                                                                                    value: "Bearer \(TestServer.keyA)")]))
        #expect(served.status == 200)
    }

    @Test("every failed authentication closes its connection: no guessing on one kept-alive connection")
    func failureClosesTheConnection() throws {
        let server = try TestServer(.memory)
        var pipelined: [UInt8] = []
        for index in 0..<5 {
            pipelined += RawHTTP.request("GET", path: Array("/v1/customers/c1/instruments".utf8),
                                         headers: [("Authorization", "Bearer guess-\(index)")], close: false)
        }
        let exchange = try RawExchange.run(port: server.port, pipelined, wait: 5)
        #expect(exchange.closed)
        #expect(exchange.responses.count == 1, "\(exchange.responses.map(\.startLine))")
        expectJSONError(exchange.responses.first, status: 401, code: "unauthorized")
    }

    @Test("an address over its failed-authentication budget gets 429 auth-throttled with Retry-After, even with the right key; another address is not affected; every refusal is one log line without the key")
    func failedAuthBudget() throws {
        let clock = TestClock()
        let lines = LogLines()
        let server = try TestServer(.memory, limits: .init(failedAuthBurst: 3, failedAuthRefillSeconds: 10), clock: clock.wallClock,
                                    log: lines.log)
        let guess = "guess-\(UUID().uuidString)"
        for _ in 0..<3 {
            let refused = try RawHTTP.call(port: server.port, "GET", "/v1/customers/c1/instruments", key: guess)
            expectJSONError(refused, status: 401, code: "unauthorized")
        }
        let throttled = try RawHTTP.call(port: server.port, "GET", "/v1/customers/c1/instruments", key: TestServer.keyA)
        expectJSONError(throttled, status: 429, code: "auth-throttled")
        #expect(throttled.header("retry-after") == "10")
        // Another client address still authenticates.
        let other = try RawExchange.run(port: server.port, RawHTTP.request(
            "GET", path: Array("/v1/customers/c1/instruments".utf8), headers: [("Authorization", "Bearer \(TestServer.keyA)")]),
            from: "127.0.0.2")
        #expect(other.responses.first?.status == 200)
        // One failure is forgiven per refill period.
        clock.advance(by: .seconds(10))
        #expect(try RawHTTP.call(port: server.port, "GET", "/v1/customers/c1/instruments", key: TestServer.keyA).status == 200)

        let logged = lines.all
        #expect(logged.count == 4, "\(logged)")
        for line in logged {
            #expect(!line.contains(guess) && !line.contains(TestServer.keyA), "\(line)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["address"] as? String == "127.0.0.1")
            #expect(object["route"] as? String == "instruments")
        }
        #expect(logged.filter { $0.contains(#""event":"auth-refused""#) && $0.contains(#""status":401"#) }.count == 3)
        #expect(logged.filter { $0.contains(#""event":"auth-throttled""#) && $0.contains(#""retryAfter":10"#) }.count == 1)
    }

    /// One request `GET /v1/customers/c1/instruments` with `key`, from `source`, with extra header fields.
    static func call(_ server: TestServer, key: String, from source: String = "127.0.0.1",
                     headers: [(String, String)] = []) throws -> RawHTTP.Message? {
        try RawExchange.run(port: server.port, RawHTTP.request(
            "GET", path: Array("/v1/customers/c1/instruments".utf8), headers: [("Authorization", "Bearer \(key)")] + headers),
            from: source).responses.first
    }

    @Test("guesses from a shared address never lock out a key that authenticated there before: 28 of 28 served over 30 s while one wrong key a second arrives from the same address")
    func sharedAddressLockout() throws {
        let clock = TestClock()
        let server = try TestServer(.memory, clock: clock.wallClock)
        #expect(try Self.call(server, key: TestServer.keyA)?.status == 200, "the valid client authenticates first")
        // The attacker spends the address's whole budget at once, then keeps guessing.
        for index in 0...VaultServerConfiguration.Limits.defaultFailedAuthBurst {
            _ = try Self.call(server, key: "guess-\(index)-\(UUID().uuidString)")
        }
        var served = 0
        var attackerThrottled = 0
        for second in 0..<30 {
            clock.advance(by: .seconds(1))
            if try Self.call(server, key: "guess-late-\(second)-\(UUID().uuidString)")?.errorCode == "auth-throttled" {
                attackerThrottled += 1
            }
            if second < 28, try Self.call(server, key: TestServer.keyA)?.status == 200 { served += 1 }
        }
        #expect(served == 28, "the valid key was served \(served) of 28 times")
        // The guessing itself stays throttled: the budget refills one guess per 5 s.
        #expect(attackerThrottled >= 23, "only \(attackerThrottled) of 30 guesses were throttled")
        // A key never seen from this address waits like any guess (it cannot be told from one unchecked).
        expectJSONError(try Self.call(server, key: TestServer.keyB), status: 429, code: "auth-throttled")
    }

    @Test("a credential that keeps failing is throttled wherever it comes from, and only it: another key from the same addresses is served")
    func failuresPerCredential() throws {
        let clock = TestClock()
        let server = try TestServer(.memory, limits: .init(failedAuthBurst: 3, failedAuthRefillSeconds: 10), clock: clock.wallClock)
        let revokedLike = "stale-key-\(UUID().uuidString)"
        for index in 0..<3 {
            expectJSONError(try Self.call(server, key: revokedLike, from: "127.0.0.\(index + 2)"), status: 401, code: "unauthorized")
        }
        // A fresh address, with budget left: the credential itself has none.
        expectJSONError(try Self.call(server, key: revokedLike, from: "127.0.0.9"), status: 429, code: "auth-throttled")
        // Another key from one of the addresses that failed once is served.
        #expect(try Self.call(server, key: TestServer.keyA, from: "127.0.0.2")?.status == 200)
    }

    @Test("--trusted-proxy: a listed proxy's X-Forwarded-For and Forwarded name the client the budget counts; an unlisted peer's are ignored")
    func trustedProxy() throws {
        let clock = TestClock()
        let lines = LogLines()
        let limits = VaultServerConfiguration.Limits(failedAuthBurst: 3, failedAuthRefillSeconds: 10)
        // Behind the proxy (127.0.0.1): the attacker's guesses count against its own address only.
        let proxied = try TestServer(.memory, limits: limits, clock: clock.wallClock, trustedProxies: ["127.0.0.1/32", "10.0.0.0/8"],
                                     log: lines.log)
        for index in 0..<3 {
            let guess = try Self.call(proxied, key: "guess-\(index)", headers: [("X-Forwarded-For", "198.51.100.7, 10.1.2.3")])
            expectJSONError(guess, status: 401, code: "unauthorized")
        }
        expectJSONError(try Self.call(proxied, key: "guess-9", headers: [("X-Forwarded-For", "198.51.100.7")]),
                        status: 429, code: "auth-throttled")
        // Another client through the same proxy, with a key never seen before, is served.
        #expect(try Self.call(proxied, key: TestServer.keyB, headers: [("Forwarded", #"for="[2001:db8:cafe::17]:4711";proto=https"#)])?
            .status == 200)
        #expect(try Self.call(proxied, key: TestServer.keyA, headers: [("Forwarded", "for=198.51.100.8")])?.status == 200)
        #expect(lines.all.allSatisfy { $0.contains(#""address":"198.51.100.7""#) }, "\(lines.all)")
        // A peer outside the list cannot choose its address: its headers are ignored.
        for index in 0..<3 {
            _ = try Self.call(proxied, key: "spoof-\(index)", from: "127.0.0.5", headers: [("X-Forwarded-For", "203.0.113.\(index)")])
        }
        expectJSONError(try Self.call(proxied, key: "spoof-9", from: "127.0.0.5", headers: [("X-Forwarded-For", "203.0.113.99")]),
                        status: 429, code: "auth-throttled")

        // Without --trusted-proxy, rotating the header changes nothing: the peer's address counts.
        let direct = try TestServer(.memory, limits: limits, clock: clock.wallClock)
        for index in 0..<3 {
            _ = try Self.call(direct, key: "spoof-\(index)", headers: [("X-Forwarded-For", "203.0.113.\(index)")])
        }
        expectJSONError(try Self.call(direct, key: "spoof-9", headers: [("X-Forwarded-For", "203.0.113.50")]),
                        status: 429, code: "auth-throttled")
    }

    @Test("trusted-proxy networks: CIDR parsing, the rightmost untrusted hop, IPv6 by /64")
    func clientAddressResolution() throws {
        let resolver = try ClientAddressResolver(cidrs: ["10.0.0.0/8", "2001:db8::/32", "192.0.2.1"])
        func resolve(_ peer: String, _ fields: [String: [String]]) -> String { resolver.resolve(peer: peer) { fields[$0] ?? [] } }
        #expect(resolve("10.1.1.1", ["X-Forwarded-For": ["198.51.100.1, 10.9.9.9"]]) == "198.51.100.1")
        #expect(resolve("10.1.1.1", ["X-Forwarded-For": ["203.0.113.5, 198.51.100.1"]]) == "198.51.100.1")
        #expect(resolve("10.1.1.1", ["X-Forwarded-For": ["198.51.100.1"], "Forwarded": ["for=198.51.100.2"]]) == "198.51.100.2")
        #expect(resolve("2001:db8::1", ["Forwarded": [#"for="[2a00:1450:4001:81a::200e]:443""#]]) == "2a00:1450:4001:81a::")
        #expect(resolve("192.0.2.1", ["X-Forwarded-For": ["not-an-address"]]) == "192.0.2.1")
        #expect(resolve("192.0.2.2", ["X-Forwarded-For": ["198.51.100.1"]]) == "192.0.2.2")
        #expect(resolve("10.1.1.1", [:]) == "10.1.1.1")
        for bad in ["10.0.0.0/33", "10.0.0/8", "::/129", "host.example", "10.0.0.0/", "10.0.0.0/-1"] {
            #expect(throws: VaultServerConfigurationError.self, "\(bad)") { try ClientAddressResolver(cidrs: [bad]) }
        }
    }

    @Test("rate limits are on by default: per customer, per merchant and per address")
    func defaultRateLimits() throws {
        let limits = VaultServerConfiguration.Limits()
        #expect(limits.rateLimitPerSecond > 0 && limits.effectiveCustomerRateLimitPerSecond > 0)
        #expect(limits.effectiveAddressRateLimitPerSecond > 0 && limits.effectiveFailedAuthBurst > 0)
        // With time standing still, one customer gets its burst and then 429.
        let clock = TestClock()
        let server = try TestServer(.memory, clock: clock.wallClock)
        let fd = try RawHTTP.connect(port: server.port)
        defer { close(fd) }
        let reader = HTTPStreamReader(fd: fd)
        let request = RawHTTP.request("GET", path: Array("/v1/customers/c1/instruments".utf8),
                                      headers: [("Authorization", "Bearer \(TestServer.keyA)")], close: false)
        var statuses: [Int: Int] = [:]
        for _ in 0..<(limits.effectiveCustomerRateLimitBurst + 1) {
            guard RawHTTP.writeAll(fd, request), let answer = reader.next() else { break }
            statuses[answer.message.status, default: 0] += 1
            if answer.message.status == 429 {
                #expect(answer.message.errorCode == "rate-limited")
                #expect(answer.message.header("retry-after") != nil)
            }
        }
        #expect(statuses == [200: limits.effectiveCustomerRateLimitBurst, 429: 1])
        // Another customer of the merchant has its own budget.
        #expect(try RawHTTP.call(port: server.port, "GET", "/v1/customers/c2/instruments", key: TestServer.keyA).status == 200)
    }

    @Test("the per-address limit applies before the credential is checked, the per-merchant one across customers")
    func addressAndMerchantLimits() throws {
        let clock = TestClock()
        let byAddress = try TestServer(.memory, limits: .init(addressRateLimitBurst: 2), clock: clock.wallClock)
        #expect(try RawHTTP.call(port: byAddress.port, "GET", "/health", key: nil).status == 200)
        #expect(try RawHTTP.call(port: byAddress.port, "GET", "/v1/customers/c1/instruments", key: "wrong").status == 401)
        let limited = try RawHTTP.call(port: byAddress.port, "GET", "/v1/customers/c1/instruments", key: TestServer.keyA)
        expectJSONError(limited, status: 429, code: "rate-limited")
        #expect(limited.header("retry-after") != nil)

        let byMerchant = try TestServer(.memory, limits: .init(rateLimitBurst: 2), clock: clock.wallClock)
        for customer in ["c1", "c2"] {
            #expect(try RawHTTP.call(port: byMerchant.port, "GET", "/v1/customers/\(customer)/instruments", key: TestServer.keyA).status == 200)
        }
        expectJSONError(try RawHTTP.call(port: byMerchant.port, "GET", "/v1/customers/c3/instruments", key: TestServer.keyA),
                        status: 429, code: "rate-limited")
        // The other merchant has its own budget.
        #expect(try RawHTTP.call(port: byMerchant.port, "GET", "/v1/customers/c3/instruments", key: TestServer.keyB).status == 200)
    }

    @Test("the limiters' tables stay bounded under a flood of new keys")
    func limiterTableBounded() {
        let limiter = RateLimiter(perSecond: 1, burst: 2, maxKeys: 100)
        for index in 0..<10_000 { _ = limiter.acquire("address-\(index)", now: 0) }
        #expect(limiter.trackedKeys <= 100)
        // A key still over its limit survives a prune of full buckets.
        let budget = RateLimiter(perSecond: 0.001, burst: 1, maxKeys: 4)
        budget.consume("attacker", now: 0)
        for index in 0..<3 { budget.consume("other-\(index)", now: 0) }
        #expect(budget.wait("attacker", now: 0) != nil)
    }
}
