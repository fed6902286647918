import CheckoutTestSupport
import Foundation
import HTTPTransport
import Testing

/// The libcurl transport on its own: typed errors for broken answers, limits, framing, keep-alive
/// reuse, the loopback rule for plain HTTP, timeouts and cancellation, against a scripted
/// raw-socket server. What the vault's remote makes of it is `HTTPRemoteVaultTransportTests`;
/// TLS is `TLSTransportTests`.
@Suite("HTTP transport")
struct HTTPTransportTests {
    /// Small body and header limits, so that the limit cases need small answers. Generous time
    /// limits and idle timeout: the whole suite runs beside these tests on two cores and can
    /// starve one for tens of seconds. The tests about deadlines set short limits of their own.
    static let configuration = HTTPTransportConfiguration(timeout: 60, exchangeTimeout: 120, maxHeaderBytes: 1024,
                                                          maxHeaderCount: 10, maxBodyBytes: 4096, maxConnections: 4,
                                                          idleTimeout: 3600)

    static func get(_ path: String = "/x") -> HTTPRequest { HTTPRequest(method: "GET", path: path) }

    static func transport(_ url: URL, _ configuration: HTTPTransportConfiguration = configuration) -> HTTPTransport {
        HTTPTransport(baseURL: url, configuration: configuration)
    }

    static func transport(_ stub: RawHTTPStub, _ configuration: HTTPTransportConfiguration = configuration) -> HTTPTransport {
        transport(stub.baseURL, configuration)
    }

    static func code(of body: () async throws -> some Any) async -> HTTPTransportError.Code? {
        do {
            _ = try await body()
            return nil
        } catch let error as HTTPTransportError {
            return error.code
        } catch {
            Issue.record("not an HTTPTransportError: \(error)")
            return nil
        }
    }

    // MARK: Broken answers

    /// An answer that breaks HTTP or a bound, and the typed failure it must become.
    struct BrokenAnswer: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: String
        let expected: HTTPTransportError.Code
        var testDescription: String { name }
    }

    static let brokenAnswers: [BrokenAnswer] = [
        BrokenAnswer(name: "closed before any byte", bytes: "", expected: .closedBeforeResponse),
        BrokenAnswer(name: "cut inside the status line (swift-corelibs-foundation #5285)", bytes: "HTTP/1.1 5",
                     expected: .closedBeforeResponse),
        BrokenAnswer(name: "cut inside the body", bytes: "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789",
                     expected: .truncatedBody),
        BrokenAnswer(name: "cut inside a chunk",
                     bytes: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nabc",
                     expected: .truncatedBody),
        BrokenAnswer(name: "garbage status line", bytes: "HELLO WORLD\r\n\r\n", expected: .malformedResponse),
        BrokenAnswer(name: "HTML instead of HTTP", bytes: "<html>502 Bad Gateway</html>\r\n\r\n", expected: .malformedResponse),
        BrokenAnswer(name: "status not three digits", bytes: "HTTP/1.1 20 OK\r\n\r\n", expected: .malformedResponse),
        BrokenAnswer(name: "oversized header block",
                     bytes: "HTTP/1.1 200 OK\r\nX-Big: " + String(repeating: "a", count: 2000) + "\r\nContent-Length: 0\r\n\r\n",
                     expected: .headersTooLarge),
        BrokenAnswer(name: "too many header fields",
                     bytes: "HTTP/1.1 200 OK\r\n" + (0..<11).map { "X-\($0): v\r\n" }.joined() + "\r\n",
                     expected: .headersTooLarge),
        BrokenAnswer(name: "conflicting Content-Length",
                     bytes: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nabc",
                     expected: .malformedResponse),
        BrokenAnswer(name: "negative Content-Length", bytes: "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
                     expected: .malformedResponse),
        BrokenAnswer(name: "chunk size not hexadecimal",
                     bytes: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n",
                     expected: .receiveFailed),  // libcurl reports a bad chunk as a receive error
        BrokenAnswer(name: "body over the limit", bytes: "HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n",
                     expected: .bodyTooLarge),
        BrokenAnswer(name: "chunked body over the limit",
                     bytes: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + String(repeating: "800\r\n" + String(repeating: "a", count: 2048) + "\r\n", count: 3) + "0\r\n\r\n",
                     expected: .bodyTooLarge),
    ]

    @Test("answers that break HTTP or a bound become typed errors", arguments: brokenAnswers)
    func brokenAnswer(_ answer: BrokenAnswer) async throws {
        let stub = try RawHTTPStub { _ in .reply(Array(answer.bytes.utf8), close: true) }
        let transport = Self.transport(stub)
        let code = await Self.code { try await transport.send(Self.get()) }
        #expect(code == answer.expected, "got \(String(describing: code))")
        #expect(stub.requests.count >= 1)
    }

    // MARK: Framing

    @Test("a chunked body is de-chunked and the connection is reused")
    func chunked() async throws {
        let chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-Kind: test\r\n\r\n"
            + "5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nX-Trailer: a\r\n\r\n"
        let stub = try RawHTTPStub { _ in .reply(Array(chunked.utf8), close: false) }
        let transport = Self.transport(stub)
        let first = try await transport.send(Self.get())
        let second = try await transport.send(Self.get())
        #expect(first.status == 200)
        #expect(first.body == Array("hello world".utf8))
        #expect(first.header("x-kind") == "test")
        #expect(second == first)
        #expect(stub.acceptedConnections == 1)
        #expect(transport.statistics == HTTPTransport.Statistics(requests: 2, connectionsOpened: 1, reusedConnections: 1,
                                                                 tlsHandshakes: 0))
    }

    @Test("a body without a length is read to the close, and the next request opens a new connection")
    func untilClose() async throws {
        let stub = try RawHTTPStub { _ in .reply(Array("HTTP/1.0 200 OK\r\n\r\nuntil the end".utf8), close: true) }
        let transport = Self.transport(stub)
        #expect(try await transport.send(Self.get()).body == Array("until the end".utf8))
        #expect(try await transport.send(Self.get()).body == Array("until the end".utf8))
        #expect(stub.acceptedConnections == 2)
        #expect(transport.statistics.connectionsOpened == 2)
        #expect(transport.statistics.reusedConnections == 0)
    }

    @Test("interim 100 responses are skipped; 204 has no body")
    func interimAndEmpty() async throws {
        let stub = try RawHTTPStub { request in
            request.index == 0
                ? .reply(Array("HTTP/1.1 100 Continue\r\nX-Interim: 1\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8), close: false)
                : .reply(Array("HTTP/1.1 204 No Content\r\n\r\n".utf8), close: false)
        }
        let transport = Self.transport(stub)
        let first = try await transport.send(Self.get())
        #expect(first.status == 200)
        #expect(first.body == Array("ok".utf8))
        #expect(first.header("x-interim") == nil)
        let second = try await transport.send(Self.get())
        #expect(second.status == 204)
        #expect(second.body.isEmpty)
        #expect(stub.acceptedConnections == 1)
    }

    @Test("the request on the wire: method, base path + path, Host, headers, Content-Length and body")
    func requestBytes() async throws {
        let stub = try RawHTTPStub { _ in .reply(RawHTTPStub.keepAlive(body: "{}"), close: false) }
        let url = try #require(URL(string: "http://127.0.0.1:\(stub.port)/base/"))
        let transport = Self.transport(url)
        _ = try await transport.send(HTTPRequest(method: "POST", path: "/ops?x=1",
                                                 headers: [HTTPHeaderField(name: "Authorization", value: "Bearer k")],
                                                 body: Array("{\"a\":1}".utf8)))
        _ = try await transport.send(HTTPRequest(method: "DELETE", path: "/thing"))
        let request = try #require(stub.requests.first)
        #expect(request.method == "POST")
        #expect(request.target == "/base/ops?x=1")
        #expect(request.headerLines.contains("Host: 127.0.0.1:\(stub.port)"))
        #expect(request.headerLines.contains("authorization: Bearer k"))
        #expect(request.headerLines.contains("Content-Length: 7"))
        #expect(!request.headerLines.contains { $0.lowercased().hasPrefix("expect") })
        #expect(request.body == Array("{\"a\":1}".utf8))
        #expect(stub.requests.last.map { [$0.method, $0.target] } == ["DELETE", "/base/thing"])
    }

    @Test("requests that would break out of their line are refused before anything is sent", arguments: [
        HTTPRequest(method: "GET", path: "/x", headers: [HTTPHeaderField(name: "Authorization", value: "Bearer k\r\nX-Evil: 1")]),
        HTTPRequest(method: "GET", path: "/x y"),
        HTTPRequest(method: "GET", path: "x"),
        HTTPRequest(method: "GET", path: "/x#frag"),
        HTTPRequest(method: "G T", path: "/x"),
        HTTPRequest(method: "GET", path: "/x", headers: [HTTPHeaderField(name: "Bad Name", value: "v")]),
        HTTPRequest(method: "GET", path: "/x", headers: [HTTPHeaderField(name: "Content-Length", value: "5")]),
    ])
    func refusedRequests(_ request: HTTPRequest) async throws {
        let stub = try RawHTTPStub { _ in .reply(RawHTTPStub.keepAlive(body: ""), close: false) }
        let transport = Self.transport(stub)
        #expect(await Self.code { try await transport.send(request) } == .invalidRequest)
        #expect(stub.acceptedConnections == 0)
    }

    @Test("URLs that cannot be used are refused", arguments: ["ftp://h/", "http:///path", "http://h:0", "http://u:p@127.0.0.1/",
                                                               "http://127.0.0.1/?q=1"])
    func refusedURLs(_ text: String) async throws {
        let transport = Self.transport(try #require(URL(string: text)))
        #expect(throws: HTTPTransportError.self) { try transport.validate() }
        #expect(await Self.code { try await transport.send(Self.get()) } == .invalidURL)
    }

    @Test("plain http:// only to loopback unless allowed by name", arguments: [
        ("http://127.0.0.1:1", true), ("http://127.8.9.10:1", true), ("http://localhost:1", true), ("http://[::1]:1", true),
        ("http://10.0.0.1:1", false), ("http://vault.example.com", false), ("http://[::2]:1", false),
        ("http://128.0.0.1", false), ("https://vault.example.com", true),
    ])
    func loopbackRule(_ text: String, _ allowed: Bool) throws {
        let url = try #require(URL(string: text))
        let strict = HTTPTransport(baseURL: url)
        if allowed {
            try strict.validate()
        } else {
            #expect(throws: HTTPTransportError.self) { try strict.validate() }
            do { try strict.validate() } catch { #expect(error.code == .insecureHTTP) }
            try HTTPTransport(baseURL: url, configuration: HTTPTransportConfiguration(allowInsecureHTTP: true)).validate()
        }
    }

    @Test("a server on the IPv6 loopback is reached through [::1]")
    func ipv6Connect() async throws {
        let stub = try RawHTTPStub(ipv6: true) { _ in .reply(RawHTTPStub.keepAlive(body: "six"), close: false) }
        let transport = Self.transport(stub)
        #expect(try await transport.send(Self.get()).body == Array("six".utf8))
        #expect(stub.requests.first?.headerLines.first == "Host: [::1]:\(stub.port)")
    }

    @Test("a host name is resolved")
    func hostName() async throws {
        let stub = try RawHTTPStub { _ in .reply(RawHTTPStub.keepAlive(body: "named"), close: false) }
        let transport = Self.transport(try #require(URL(string: "http://localhost:\(stub.port)")))
        #expect(try await transport.send(Self.get()).body == Array("named".utf8))
        #expect(stub.requests.first?.headerLines.first == "Host: localhost:\(stub.port)")
    }

    // MARK: Connections

    @Test("keep-alive: sequential requests share one connection")
    func keepAliveReuse() async throws {
        let stub = try RawHTTPStub { request in .reply(RawHTTPStub.keepAlive(body: "\(request.index)"), close: false) }
        let transport = Self.transport(stub)
        var bodies: [String] = []
        for _ in 0..<5 { bodies.append(String(decoding: try await transport.send(Self.get()).body, as: UTF8.self)) }
        #expect(bodies == ["0", "1", "2", "3", "4"])
        #expect(stub.acceptedConnections == 1)
        #expect(transport.statistics == HTTPTransport.Statistics(requests: 5, connectionsOpened: 1, reusedConnections: 4,
                                                                 tlsHandshakes: 0))
    }

    @Test("Connection: close in a response: the next request opens a new connection")
    func connectionClose() async throws {
        let stub = try RawHTTPStub { _ in .reply(RawHTTPStub.keepAlive(body: "x", headers: ["Connection: close"]), close: false) }
        let transport = Self.transport(stub)
        _ = try await transport.send(Self.get())
        _ = try await transport.send(Self.get())
        #expect(stub.acceptedConnections == 2)
        #expect(transport.statistics.reusedConnections == 0)
    }

    @Test("a stale keep-alive connection: the request is sent once more on a fresh connection")
    func staleRetry() async throws {
        let stub = try RawHTTPStub { request in
            request.connection == 0 && request.index == 1 ? .close : .reply(RawHTTPStub.keepAlive(body: "fine"), close: false)
        }
        let transport = Self.transport(stub)
        _ = try await transport.send(Self.get())
        let response = try await transport.send(Self.get())
        #expect(response.body == Array("fine".utf8))
        #expect(stub.requests.map { [$0.connection, $0.index] } == [[0, 0], [0, 1], [1, 0]])
        #expect(transport.statistics.connectionsOpened == 2)
    }

    @Test("the retry happens once: a fresh connection that fails too ends the request")
    func staleRetryOnce() async throws {
        let stub = try RawHTTPStub { request in
            request.connection == 0 && request.index == 0 ? .reply(RawHTTPStub.keepAlive(body: "fine"), close: false) : .close
        }
        let transport = Self.transport(stub)
        _ = try await transport.send(Self.get())
        #expect(await Self.code { try await transport.send(Self.get()) } == .closedBeforeResponse)
        #expect(stub.requests.count == 3)
    }

    @Test("concurrent requests share a bounded pool: all answered, never more connections than the bound")
    func boundedPool() async throws {
        let stub = try RawHTTPStub { request in
            usleep(2_000)
            return .reply(RawHTTPStub.keepAlive(body: request.target), close: false)
        }
        var configuration = Self.configuration
        configuration.maxConnections = 3
        let transport = Self.transport(stub, configuration)
        let bodies = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<40 {
                group.addTask { String(decoding: try await transport.send(Self.get("/r\(index)")).body, as: UTF8.self) }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(bodies == Set((0..<40).map { "/r\($0)" }))
        #expect(stub.acceptedConnections <= 3)
        #expect(transport.statistics.connectionsOpened == stub.acceptedConnections)
        #expect(transport.statistics.reusedConnections == 40 - stub.acceptedConnections)
    }

    @Test("no server: connection refused is a typed connect failure")
    func refused() async throws {
        let port: Int
        do {
            let stub = try RawHTTPStub { _ in .close }
            port = stub.port
        }
        let transport = Self.transport(try #require(URL(string: "http://127.0.0.1:\(port)")))
        #expect(await Self.code { try await transport.send(Self.get()) } == .connectFailed)
    }

    @Test("a host name that does not resolve is a typed resolve failure")
    func unresolvable() async throws {
        let transport = Self.transport(try #require(URL(string: "https://no-such-host.invalid")))
        #expect(await Self.code { try await transport.send(Self.get()) } == .resolveFailed)
    }

    @Test("a server that never answers: the idle timeout ends the request")
    func timeout() async throws {
        let stub = try RawHTTPStub { _ in .hang }
        let transport = Self.transport(stub, HTTPTransportConfiguration(timeout: 0.2, exchangeTimeout: 5))
        #expect(await Self.code { try await transport.send(Self.get()) } == .timedOut)
    }

    @Test("cancelling the task aborts a request the server never answers")
    func cancellation() async throws {
        let stub = try RawHTTPStub { _ in .hang }
        let transport = Self.transport(stub, HTTPTransportConfiguration(timeout: 120, exchangeTimeout: 120))
        let task = Task { try await transport.send(Self.get()) }
        try #require(await eventually { !stub.requests.isEmpty })
        task.cancel()
        #expect(await Self.code { try await task.value } == .cancelled)
    }

    @Test("cancelling a request queued behind a full pool ends it; the connection stays usable")
    func cancelledWhileQueued() async throws {
        let stub = try RawHTTPStub { request in
            request.target == "/hang" ? .hang : .reply(RawHTTPStub.keepAlive(body: "ok"), close: false)
        }
        var configuration = Self.configuration
        configuration.maxConnections = 1
        let transport = Self.transport(stub, configuration)
        let holder = Task { try await transport.send(Self.get("/hang")) }
        try #require(await eventually { !stub.requests.isEmpty })
        let waiter = Task { try await transport.send(Self.get("/after")) }
        try await Task.sleep(for: .milliseconds(50))
        waiter.cancel()
        #expect(await Self.code { try await waiter.value } == .cancelled)
        #expect(stub.requests.map(\.target) == ["/hang"])  // the cancelled request was never sent

        holder.cancel()
        #expect(await Self.code { try await holder.value } == .cancelled)
        #expect(try await transport.send(Self.get("/next")).body == Array("ok".utf8))
        #expect(stub.requests.map(\.target) == ["/hang", "/next"])
    }

    @Test("a task cancelled before it sends gets cancelled without a connection")
    func cancelledBeforeSending() async throws {
        let stub = try RawHTTPStub { _ in .reply(RawHTTPStub.keepAlive(body: "ok"), close: false) }
        let transport = Self.transport(stub)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await transport.send(Self.get())
        }
        #expect(await Self.code { try await task.value } == .cancelled)
        #expect(stub.acceptedConnections == 0)
    }
}
