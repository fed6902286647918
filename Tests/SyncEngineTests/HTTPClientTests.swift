import CheckoutCore
import CheckoutVault
import Foundation
import Synchronization
import Testing

/// The HTTP/1.1 client under `HTTPRemoteVault`: framing, strict parsing, limits, keep-alive
/// reuse, the stale-connection retry rule, timeouts and cancellation, against a scripted
/// raw-socket server; and the whole stack against the real vault server.
@Suite("HTTP client")
struct HTTPClientTests {
    /// Small limits, so that the limit cases need small answers.
    /// Generous time limits and idle timeout: the whole suite runs beside these tests on two cores
    /// and can starve one for tens of seconds, which must not turn into a timeout or an expired
    /// connection. The tests about deadlines set short limits of their own.
    static let limits = HTTPClientLimits(timeout: 60, exchangeTimeout: 120, maxHeaderBytes: 1024, maxHeaderCount: 10,
                                         maxBodyBytes: 4096)
    static let idleTimeout: Double = 3600

    static func get(_ target: String = "/x") -> HTTPClientRequest { HTTPClientRequest(method: "GET", target: target) }

    static func client(_ url: URL, limits: HTTPClientLimits = limits, maxConnections: Int = 4) -> HTTPClient {
        HTTPClient(baseURL: url, limits: limits, maxConnections: maxConnections, idleTimeout: idleTimeout)
    }

    static func client(_ stub: RawHTTPStub, limits: HTTPClientLimits = limits, maxConnections: Int = 4) -> HTTPClient {
        client(stub.baseURL, limits: limits, maxConnections: maxConnections)
    }

    // MARK: Broken answers

    /// An answer that breaks HTTP, and the typed failure it must become.
    struct BrokenAnswer: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: String
        let expected: HTTPClientError
        var testDescription: String { name }
    }

    static let brokenAnswers: [BrokenAnswer] = [
        BrokenAnswer(name: "closed before any byte", bytes: "", expected: .closedBeforeResponse),
        BrokenAnswer(name: "cut inside the status line (swift-corelibs-foundation #5285)", bytes: "HTTP/1.1 5",
                     expected: .truncatedHead(receivedBytes: 10)),
        BrokenAnswer(name: "cut inside the header block", bytes: "HTTP/1.1 200 OK\r\nContent-Le",
                     expected: .truncatedHead(receivedBytes: 27)),
        BrokenAnswer(name: "cut inside the body", bytes: "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789",
                     expected: .truncatedBody(receivedBytes: 10, expectedBytes: 100)),
        BrokenAnswer(name: "cut inside a chunk",
                     bytes: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nabc",
                     expected: .truncatedBody(receivedBytes: 3, expectedBytes: nil)),
        BrokenAnswer(name: "garbage status line", bytes: "HELLO WORLD\r\n\r\n", expected: .malformedStatusLine),
        BrokenAnswer(name: "HTML instead of HTTP", bytes: "<html>502 Bad Gateway</html>\r\n\r\n", expected: .malformedStatusLine),
        BrokenAnswer(name: "HTTP/2 status line", bytes: "HTTP/2 200 OK\r\n\r\n", expected: .malformedStatusLine),
        BrokenAnswer(name: "status not three digits", bytes: "HTTP/1.1 20 OK\r\n\r\n", expected: .malformedStatusLine),
        BrokenAnswer(name: "status out of range", bytes: "HTTP/1.1 999 Odd\r\nContent-Length: 0\r\n\r\n",
                     expected: .malformedStatusLine),
        BrokenAnswer(name: "bare LF line ends", bytes: "HTTP/1.1 200 OK\nContent-Length: 0\n\n\r\n\r\n", expected: .malformedStatusLine),
        BrokenAnswer(name: "header without a colon", bytes: "HTTP/1.1 200 OK\r\nNoColonHere\r\n\r\n",
                     expected: .malformedHeader(reason: "a line without a field name and colon")),
        BrokenAnswer(name: "space before the colon", bytes: "HTTP/1.1 200 OK\r\nContent-Length : 0\r\n\r\n",
                     expected: .malformedHeader(reason: "a field name that is not a token")),
        BrokenAnswer(name: "folded header line", bytes: "HTTP/1.1 200 OK\r\nX-A: 1\r\n  folded\r\nContent-Length: 0\r\n\r\n",
                     expected: .malformedHeader(reason: "a folded or empty line")),
        BrokenAnswer(name: "control byte in a value", bytes: "HTTP/1.1 200 OK\r\nX-A: a\u{1}b\r\nContent-Length: 0\r\n\r\n",
                     expected: .malformedHeader(reason: "a control byte in a field value")),
        BrokenAnswer(name: "oversized header block",
                     bytes: "HTTP/1.1 200 OK\r\nX-Big: " + String(repeating: "a", count: 2000) + "\r\nContent-Length: 0\r\n\r\n",
                     expected: .headersTooLarge(limit: 1024)),
        BrokenAnswer(name: "too many header fields",
                     bytes: "HTTP/1.1 200 OK\r\n" + (0..<11).map { "X-\($0): v\r\n" }.joined() + "\r\n",
                     expected: .headersTooLarge(limit: 10)),
        BrokenAnswer(name: "conflicting Content-Length",
                     bytes: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nabc",
                     expected: .malformedFraming(reason: "conflicting Content-Length values")),
        BrokenAnswer(name: "negative Content-Length", bytes: "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
                     expected: .malformedFraming(reason: "a Content-Length that is not a number")),
        BrokenAnswer(name: "Content-Length beside Transfer-Encoding",
                     bytes: "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
                     expected: .malformedFraming(reason: "both Content-Length and Transfer-Encoding")),
        BrokenAnswer(name: "unknown transfer coding", bytes: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nxx",
                     expected: .malformedFraming(reason: "unsupported Transfer-Encoding")),
        BrokenAnswer(name: "chunk size not hexadecimal",
                     bytes: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n",
                     expected: .malformedFraming(reason: "a chunk size that is not hexadecimal")),
        BrokenAnswer(name: "chunk without its CRLF",
                     bytes: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcXY0\r\n\r\n",
                     expected: .malformedFraming(reason: "a chunk not followed by CRLF")),
        BrokenAnswer(name: "body over the limit", bytes: "HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n",
                     expected: .bodyTooLarge(limit: 4096)),
        BrokenAnswer(name: "chunked body over the limit",
                     bytes: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + String(repeating: "800\r\n" + String(repeating: "a", count: 2048) + "\r\n", count: 3) + "0\r\n\r\n",
                     expected: .bodyTooLarge(limit: 4096)),
        BrokenAnswer(name: "protocol switch nobody asked for", bytes: "HTTP/1.1 101 Switching Protocols\r\n\r\n",
                     expected: .malformedFraming(reason: "a protocol switch nobody asked for")),
    ]

    @Test("answers that break HTTP become typed errors, on a fresh connection never retried", arguments: brokenAnswers)
    func brokenAnswer(_ answer: BrokenAnswer) async throws {
        let stub = try RawHTTPStub { _ in .reply(Array(answer.bytes.utf8), close: true) }
        let client = Self.client(stub)
        await #expect(throws: answer.expected) { try await client.send(Self.get()) }
        #expect(stub.requests.count == 1)
        #expect(client.statistics == HTTPClient.Statistics(connectionsOpened: 1, reusedConnections: 0, staleRetries: 0))
    }

    /// What `HTTPRemoteVault` makes of transport failures: a connection that ends early is
    /// unreachable (retryable), an answer that breaks HTTP is malformed (not retried).
    @Test("transport failures map to RemoteVaultError", arguments: [
        (HTTPClientError.closedBeforeResponse, true),
        (.truncatedHead(receivedBytes: 3), true),
        (.truncatedBody(receivedBytes: 3, expectedBytes: 9), true),
        (.connectFailed(reason: "Connection refused"), true),
        (.timedOut, true),
        (.malformedStatusLine, false),
        (.headersTooLarge(limit: 1), false),
        (.bodyTooLarge(limit: 1), false),
        (.malformedFraming(reason: "x"), false),
    ])
    func mapping(_ error: HTTPClientError, _ unreachable: Bool) {
        let mapped = error.remoteVaultError
        if unreachable {
            #expect(mapped == .unreachable(reason: error.description))
            #expect(mapped.isRetryable)
        } else {
            #expect(mapped == .malformedResponse(reason: error.description))
            #expect(!mapped.isRetryable)
        }
    }

    // MARK: Framing

    @Test("a chunked body is de-chunked (extensions and trailers skipped) and the connection is reused")
    func chunked() async throws {
        let chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-Kind: test\r\n\r\n"
            + "5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nX-Trailer: a\r\n\r\n"
        let stub = try RawHTTPStub { _ in .reply(Array(chunked.utf8), close: false) }
        let client = Self.client(stub)
        let first = try await client.send(Self.get())
        let second = try await client.send(Self.get())
        #expect(first == HTTPClientResponse(status: 200, headers: [HTTPHeaderField(name: "Transfer-Encoding", value: "chunked"),
                                                                    HTTPHeaderField(name: "X-Kind", value: "test")],
                                            body: Array("hello world".utf8)))
        #expect(second == first)
        #expect(stub.acceptedConnections == 1)
        #expect(client.statistics == HTTPClient.Statistics(connectionsOpened: 1, reusedConnections: 1, staleRetries: 0))
    }

    @Test("a body without a length is read to the close, and the next request opens a new connection")
    func untilClose() async throws {
        let stub = try RawHTTPStub { _ in .reply(Array("HTTP/1.0 200 OK\r\n\r\nuntil the end".utf8), close: true) }
        let client = Self.client(stub)
        #expect(try await client.send(Self.get()).body == Array("until the end".utf8))
        #expect(try await client.send(Self.get()).body == Array("until the end".utf8))
        #expect(stub.acceptedConnections == 2)
        #expect(client.statistics == HTTPClient.Statistics(connectionsOpened: 2, reusedConnections: 0, staleRetries: 0))
    }

    @Test("interim 100 responses are skipped; 204 has no body even with a length")
    func interimAndEmpty() async throws {
        let stub = try RawHTTPStub { request in
            request.index == 0
                ? .reply(Array("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8), close: false)
                : .reply(Array("HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n".utf8), close: false)
        }
        let client = Self.client(stub)
        let first = try await client.send(Self.get())
        #expect(first.status == 200)
        #expect(first.body == Array("ok".utf8))
        let second = try await client.send(Self.get())
        #expect(second.status == 204)
        #expect(second.body.isEmpty)
        #expect(stub.acceptedConnections == 1)
    }

    @Test("the request on the wire: method, base path + target, Host, headers, Content-Length and body")
    func requestBytes() async throws {
        let stub = try RawHTTPStub { _ in .reply(RawHTTPStub.keepAlive(body: "{}"), close: false) }
        let url = try #require(URL(string: "http://127.0.0.1:\(stub.port)/base/"))
        let client = Self.client(url)
        _ = try await client.send(HTTPClientRequest(method: "POST", target: "/ops?x=1", headers: [("Authorization", "Bearer k")],
                                                    body: Array("{\"a\":1}".utf8)))
        let request = try #require(stub.requests.first)
        #expect(request.method == "POST")
        #expect(request.target == "/base/ops?x=1")
        #expect(request.headerLines == ["Host: 127.0.0.1:\(stub.port)", "Authorization: Bearer k", "Content-Length: 7"])
        #expect(request.body == Array("{\"a\":1}".utf8))
    }

    @Test("requests that would break out of their line are refused before anything is sent", arguments: [
        HTTPClientRequest(method: "GET", target: "/x", headers: [("Authorization", "Bearer k\r\nX-Evil: 1")]),
        HTTPClientRequest(method: "GET", target: "/x y"),
        HTTPClientRequest(method: "GET", target: "x"),
        HTTPClientRequest(method: "G T", target: "/x"),
        HTTPClientRequest(method: "GET", target: "/x", headers: [("Bad Name", "v")]),
        HTTPClientRequest(method: "GET", target: "/x", headers: [("Content-Length", "5")]),
    ])
    func refusedRequests(_ request: HTTPClientRequest) async throws {
        let stub = try RawHTTPStub { _ in .reply(RawHTTPStub.keepAlive(body: ""), close: false) }
        let client = Self.client(stub)
        await #expect(throws: HTTPClientError.self) { try await client.send(request) }
        #expect(stub.acceptedConnections == 0)
    }

    @Test("only http:// URLs with a host are accepted", arguments: ["https://127.0.0.1:1", "ftp://h/", "http:///path", "http://h:0"])
    func refusedURLs(_ text: String) throws {
        let url = try #require(URL(string: text))
        #expect(throws: HTTPClientError.self) { try HTTPEndpoint(url: url) }
    }

    @Test("IPv6 literals: brackets in Host, bare address for getaddrinfo")
    func ipv6Endpoint() throws {
        let endpoint = try HTTPEndpoint(url: try #require(URL(string: "http://[::1]:8080/v")))
        #expect(endpoint == (try HTTPEndpoint(url: try #require(URL(string: "http://[::1]:8080/v/")))))
        #expect(endpoint.host == "::1")
        #expect(endpoint.port == 8080)
        #expect(endpoint.basePath == "/v")
        #expect(endpoint.hostHeader == "[::1]:8080")
    }

    @Test("a server on the IPv6 loopback is reached through [::1]")
    func ipv6Connect() async throws {
        let stub = try RawHTTPStub(ipv6: true) { _ in .reply(RawHTTPStub.keepAlive(body: "six"), close: false) }
        let client = Self.client(stub)
        #expect(try await client.send(Self.get()).body == Array("six".utf8))
        #expect(stub.requests.first?.headerLines.first == "Host: [::1]:\(stub.port)")
    }

    @Test("a host name is resolved (every address tried in turn)")
    func hostName() async throws {
        let stub = try RawHTTPStub { _ in .reply(RawHTTPStub.keepAlive(body: "named"), close: false) }
        let client = Self.client(try #require(URL(string: "http://localhost:\(stub.port)")))
        #expect(try await client.send(Self.get()).body == Array("named".utf8))
        #expect(stub.requests.first?.headerLines.first == "Host: localhost:\(stub.port)")
    }

    // MARK: Connections

    @Test("keep-alive: sequential requests share one connection")
    func keepAliveReuse() async throws {
        let stub = try RawHTTPStub { request in .reply(RawHTTPStub.keepAlive(body: "\(request.index)"), close: false) }
        let client = Self.client(stub)
        var bodies: [String] = []
        for _ in 0..<5 { bodies.append(String(decoding: try await client.send(Self.get()).body, as: UTF8.self)) }
        #expect(bodies == ["0", "1", "2", "3", "4"])
        #expect(stub.acceptedConnections == 1)
        #expect(client.statistics == HTTPClient.Statistics(connectionsOpened: 1, reusedConnections: 4, staleRetries: 0))
    }

    @Test("Connection: close in a response: the next request opens a new connection")
    func connectionClose() async throws {
        let stub = try RawHTTPStub { _ in .reply(RawHTTPStub.keepAlive(body: "x", headers: ["Connection: close"]), close: false) }
        let client = Self.client(stub)
        _ = try await client.send(Self.get())
        _ = try await client.send(Self.get())
        #expect(stub.acceptedConnections == 2)
        #expect(client.statistics.reusedConnections == 0)
    }

    /// The server drops a kept-alive connection just as the next request arrives on it.
    static func dropsSecondRequest() throws -> RawHTTPStub {
        try RawHTTPStub { request in
            request.connection == 0 && request.index == 1 ? .close : .reply(RawHTTPStub.keepAlive(body: "fine"), close: false)
        }
    }

    @Test("a stale keep-alive connection: an idempotent request is sent once more on a fresh connection")
    func staleRetryIdempotent() async throws {
        let stub = try Self.dropsSecondRequest()
        let client = Self.client(stub)
        _ = try await client.send(Self.get())
        let response = try await client.send(Self.get())
        #expect(response.body == Array("fine".utf8))
        #expect(stub.requests.map { [$0.connection, $0.index] } == [[0, 0], [0, 1], [1, 0]])
        #expect(client.statistics == HTTPClient.Statistics(connectionsOpened: 2, reusedConnections: 1, staleRetries: 1))
    }

    @Test("a stale keep-alive connection: a non-idempotent request is not resent")
    func staleNoRetryOtherwise() async throws {
        let stub = try Self.dropsSecondRequest()
        let client = Self.client(stub)
        _ = try await client.send(Self.get())
        let post = HTTPClientRequest(method: "POST", target: "/x", body: [0x7B, 0x7D])
        #expect(!post.isIdempotent)
        await #expect(throws: HTTPClientError.closedBeforeResponse) { try await client.send(post) }
        #expect(stub.requests.count == 2)
        #expect(client.statistics == HTTPClient.Statistics(connectionsOpened: 1, reusedConnections: 1, staleRetries: 0))
    }

    @Test("the retry happens once: a fresh connection that fails too ends the request")
    func staleRetryOnce() async throws {
        let stub = try RawHTTPStub { request in
            request.connection == 0 && request.index == 0 ? .reply(RawHTTPStub.keepAlive(body: "fine"), close: false) : .close
        }
        let client = Self.client(stub)
        _ = try await client.send(Self.get())
        await #expect(throws: HTTPClientError.closedBeforeResponse) { try await client.send(Self.get()) }
        #expect(stub.requests.count == 3)
        #expect(client.statistics == HTTPClient.Statistics(connectionsOpened: 2, reusedConnections: 1, staleRetries: 1))
    }

    @Test("an idle connection the server closed is noticed before use: no failed attempt, a new connection")
    func idleClosedDetected() async throws {
        let stub = try RawHTTPStub { _ in .reply(RawHTTPStub.keepAlive(body: "x"), close: true) }  // no Connection: close header
        let client = Self.client(stub)
        _ = try await client.send(Self.get())
        while stub.closedConnections < 1 { try await Task.sleep(for: .milliseconds(5)) }
        _ = try await client.send(Self.get())
        #expect(stub.requests.map(\.connection) == [0, 1])
        #expect(client.statistics == HTTPClient.Statistics(connectionsOpened: 2, reusedConnections: 0, staleRetries: 0))
    }

    @Test("concurrent requests share a bounded pool: all answered, never more connections than the bound")
    func boundedPool() async throws {
        let stub = try RawHTTPStub { request in
            usleep(2_000)
            return .reply(RawHTTPStub.keepAlive(body: request.target), close: false)
        }
        let client = Self.client(stub, maxConnections: 3)
        let bodies = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<40 {
                group.addTask { String(decoding: try await client.send(Self.get("/r\(index)")).body, as: UTF8.self) }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(bodies == Set((0..<40).map { "/r\($0)" }))
        #expect(stub.acceptedConnections <= 3)
        #expect(client.statistics.connectionsOpened == stub.acceptedConnections)
        #expect(client.statistics.reusedConnections == 40 - stub.acceptedConnections)
    }

    @Test("no server: connection refused is a typed connect failure")
    func refused() async throws {
        let port: Int
        do {
            let stub = try RawHTTPStub { _ in .close }
            port = stub.port
        }
        let client = Self.client(try #require(URL(string: "http://127.0.0.1:\(port)")))
        await #expect(throws: HTTPClientError.connectFailed(reason: "Connection refused")) { try await client.send(Self.get()) }
    }

    @Test("a host name that does not resolve is a typed resolve failure")
    func unresolvable() async throws {
        let client = Self.client(try #require(URL(string: "http://no-such-host.invalid:80")))
        let error = await #expect(throws: HTTPClientError.self) { try await client.send(Self.get()) }
        guard case .resolveFailed = error else {
            Issue.record("expected resolveFailed, got \(String(describing: error))")
            return
        }
    }

    @Test("a server that never answers: the read timeout ends the request")
    func timeout() async throws {
        let stub = try RawHTTPStub { _ in .hang }
        let client = Self.client(stub, limits: HTTPClientLimits(timeout: 0.2, exchangeTimeout: 5))
        await #expect(throws: HTTPClientError.timedOut) { try await client.send(Self.get()) }
    }

    @Test("cancelling the task aborts a request the server never answers")
    func cancellation() async throws {
        let stub = try RawHTTPStub { _ in .hang }
        let client = Self.client(stub, limits: HTTPClientLimits(timeout: 120, exchangeTimeout: 120))
        let task = Task { try await client.send(Self.get()) }
        while stub.requests.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        task.cancel()
        await #expect(throws: HTTPClientError.cancelled) { try await task.value }
    }

    @Test("cancelling a request that waits for a connection ends its wait; the slots are given back")
    func cancelledWhileWaitingForAConnection() async throws {
        let stub = try RawHTTPStub { request in
            request.target == "/hang" ? .hang : .reply(RawHTTPStub.keepAlive(body: "ok"), close: false)
        }
        let client = Self.client(stub, maxConnections: 1)
        let holder = Task { try await client.send(Self.get("/hang")) }
        while stub.requests.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        let waiter = Task { try await client.send(Self.get("/after")) }
        while client.waitingForConnection == 0 { try await Task.sleep(for: .milliseconds(5)) }

        waiter.cancel()
        await #expect(throws: HTTPClientError.cancelled) { try await waiter.value }
        #expect(client.waitingForConnection == 0)
        #expect(stub.requests.map(\.target) == ["/hang"])  // the cancelled request was never sent

        holder.cancel()
        await #expect(throws: HTTPClientError.cancelled) { try await holder.value }
        // The one slot came back: the next request on the same client goes through.
        #expect(try await client.send(Self.get("/next")).body == Array("ok".utf8))
        #expect(stub.requests.map(\.target) == ["/hang", "/next"])
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
        #expect(remote.transportStatistics.staleRetries == 0)
    }

    @Test("HTTPRemoteVault on the real server: a restart between requests costs no error (stale connection resent)")
    func realServerRestart() async throws {
        let server = try LoopbackVaultServer()
        let remote = server.remote()
        let scope = Fixture.scope()
        _ = try await remote.push(scope: scope, ops: [Fixture.upsert("op-a", Fixture.card("tok_a"))])
        try server.restart()
        // The pooled connection died with the old server; the client notices or resends.
        #expect(try await remote.push(scope: scope, ops: [Fixture.upsert("op-b", Fixture.card("tok_b"))]).map(\.status) == [.applied])
        #expect(try await remote.instruments(scope: scope).map(\.id) == ["tok_a", "tok_b"])
        #expect(remote.transportStatistics.connectionsOpened == 2)
    }

    @Test("HTTPRemoteVault: an API key with a line break is refused locally, never sent")
    func apiKeyInjection() async throws {
        let stub = try RawHTTPStub { _ in .reply(RawHTTPStub.keepAlive(body: "{}"), close: false) }
        let remote = HTTPRemoteVault(baseURL: stub.baseURL, apiKey: "key\r\nX-Injected: 1", timeout: 5)
        let error = await #expect(throws: RemoteVaultError.self) { try await remote.instruments(scope: Fixture.scope()) }
        guard case .unreachable(let reason)? = error else {
            Issue.record("expected unreachable, got \(String(describing: error))")
            return
        }
        #expect(reason.hasPrefix("invalid request"))
        #expect(!reason.contains("key"))
        #expect(stub.acceptedConnections == 0)
    }
}
