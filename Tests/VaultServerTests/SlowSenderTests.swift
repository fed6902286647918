import CheckoutTestSupport
import CheckoutLocking
import Foundation
import Testing
@testable import VaultServer

/// Slow senders: `limits.requestTimeoutSeconds` closes a request whose body has not arrived in
/// time, and `limits.maxConnectionsPerIP` caps what one address can hold open, while clients from
/// other addresses are served promptly. Every test stays on loopback and ends within seconds.
@Suite(.timeLimit(.minutes(5)))
struct SlowSenderTests {
    static let auth = "Authorization: Bearer \(TestServer.keyA)\r\n"
    static let body = #"{"ops":[{"opId":"op-1","kind":"delete","instrumentId":"tok-1"}]}"#

    /// The head of an ops request announcing `length` body bytes.
    static func opsHead(length: Int, close: Bool = false) -> [UInt8] {
        Array(("POST /v1/customers/c1/ops HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth + "Content-Type: application/json\r\n"
               + "Content-Length: \(length)\r\n" + (close ? "Connection: close\r\n" : "") + "\r\n").utf8)
    }

    /// A complete ops request that asks the server to close after answering.
    static let healthyRequest = opsHead(length: body.utf8.count, close: true) + Array(body.utf8)

    @Test("40 slow senders are closed by the request deadline; a client from another address is served promptly")
    func slowSendersClosed() async throws {
        let server = try TestServer(.memory, limits: .init(maxConnectionsPerIP: 64, requestTimeoutSeconds: 2))
        let port = server.port
        let slow = Task { try await onOwnThread { try SlowSenders.run(port: port, dribblers: 20, silent: 20, giveUpAfter: .seconds(10)) } }
        try await Task.sleep(for: .milliseconds(300))
        var latencies: [Duration] = []
        for _ in 0..<12 {
            let exchange = try await onOwnThread { try RawExchange.run(port: port, Self.healthyRequest, wait: 5, from: "127.0.0.2") }
            #expect(exchange.responses.map(\.status) == [200], "\(exchange.text.prefix(300))")
            latencies.append(exchange.elapsed)
            try await Task.sleep(for: .milliseconds(250))
        }
        let outcomes = try await slow.value
        // A healthy request queued behind the slow senders would wait for one of them to be closed
        // at the 2 s deadline: every answer comes sooner, however loaded the machine.
        #expect(latencies.allSatisfy { $0 < .seconds(2) }, "healthy requests: \(latencies)")
        #expect(outcomes.count == 40)
        for outcome in outcomes {
            // Closed by the server before the sender gave up (10 s), and never before the deadline.
            let closedAfter = try #require(outcome.closedAfter, "\(outcome.kind) connection \(outcome.index) was never closed")
            #expect(closedAfter >= .milliseconds(1500), "\(outcome.kind) connection \(outcome.index) closed after \(closedAfter)")
            #expect(outcome.answer.isEmpty, "\(outcome.kind) connection \(outcome.index) got \(outcome.answer.prefix(100))")
        }
        print("slow senders closed after (s): \(outcomes.compactMap(\.closedAfter).map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 }.sorted().map { ($0 * 10).rounded() / 10 })")
        print("healthy request latencies: \(latencies)")
    }

    @Test("a head that takes longer than the deadline to arrive gets 408 request-timeout, connection closed")
    func lateHead() async throws {
        let server = try TestServer(.memory, limits: .init(requestTimeoutSeconds: 1))
        let port = server.port
        let exchange = try await onOwnThread { () throws -> RawExchange in
            let fd = try RawHTTP.connect(port: port)
            defer { close(fd) }
            for part in ["GET /health HTTP/1.1\r\n", "Host: 127.0.0.1\r\n", "X-Slow: 1\r\n", "X-Slower: 2\r\n"] {
                _ = RawHTTP.writeAll(fd, Array(part.utf8))
                usleep(500_000)
            }
            _ = RawHTTP.writeAll(fd, Array("\r\n".utf8))
            let (bytes, closed) = RawHTTP.readUntilClosed(fd, timeoutSeconds: 3)
            return RawExchange(responses: RawHTTP.messages(bytes), bytes: bytes, closed: closed, elapsed: .zero)
        }
        #expect(exchange.responses.count == 1, "\(exchange.text.prefix(300))")
        expectJSONError(exchange.responses.first, status: 408, code: "request-timeout")
        #expect(exchange.closed)
    }

    @Test("a body trickled below limits.minBodyBytesPerSecond is closed once its 5-second grace is over, long before the request deadline")
    func bodyBelowTheMinimumRate() async throws {
        let server = try TestServer(.memory, limits: .init(requestTimeoutSeconds: 60, minBodyBytesPerSecond: 1000))
        let port = server.port
        let closedAfter = try await onOwnThread { () throws -> Duration? in
            let fd = try RawHTTP.connect(port: port)
            defer { close(fd) }
            let clock = ContinuousClock()
            let started = clock.now
            _ = RawHTTP.writeAll(fd, Self.opsHead(length: 100_000))
            // 100 bytes a second: a tenth of the minimum, and a byte arriving every 10 ms keeps
            // libmicrohttpd's inactivity timeout from ever firing.
            while clock.now - started < .seconds(20) {
                guard RawHTTP.writeAll(fd, [UInt8](repeating: UInt8(ascii: " "), count: 1)) else { return clock.now - started }
                var probe = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                if poll(&probe, 1, 10) > 0 { return clock.now - started }
            }
            return nil
        }
        let after = try #require(closedAfter, "the trickled body was never closed")
        #expect(after >= .seconds(5) && after < .seconds(8), "closed after \(after)")
    }

    @Test("a body that arrives within the deadline is served, and the connection then keeps the idle timeout")
    func slowButInTime() async throws {
        let server = try TestServer(.memory, limits: .init(idleConnectionTimeoutSeconds: 30, requestTimeoutSeconds: 2))
        let port = server.port
        let statuses = try await onOwnThread { () throws -> [Int] in
            let fd = try RawHTTP.connect(port: port)
            defer { close(fd) }
            let reader = HTTPStreamReader(fd: fd)
            var statuses: [Int] = []
            _ = RawHTTP.writeAll(fd, Self.opsHead(length: Self.body.utf8.count))
            let bytes = Array(Self.body.utf8)
            for (index, part) in [bytes[..<20], bytes[20..<40], bytes[40...]].enumerated() {
                if index > 0 { usleep(500_000) }
                _ = RawHTTP.writeAll(fd, Array(part))
            }
            statuses.append(reader.next()?.message.status ?? 0)
            // Longer than the request deadline, shorter than the idle timeout: still open.
            sleep(3)
            _ = RawHTTP.writeAll(fd, Self.opsHead(length: bytes.count) + bytes)
            statuses.append(reader.next()?.message.status ?? 0)
            return statuses
        }
        #expect(statuses == [200, 200])
    }

    @Test("connections over limits.maxConnectionsPerIP from one address are closed at once; other addresses are served")
    func perAddressCap() async throws {
        let server = try TestServer(.memory, limits: .init(maxConnectionsPerIP: 4))
        let port = server.port
        let health = Array("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        let (held, extra, other, again) = try await onOwnThread { () throws -> ([Int], RawExchange, RawExchange, Int) in
            var fds: [Int32] = []
            defer { fds.forEach { close($0) } }
            var held: [Int] = []
            for _ in 0..<4 {
                let fd = try RawHTTP.connect(port: port, from: "127.0.0.3")
                fds.append(fd)
                _ = RawHTTP.writeAll(fd, health)
                held.append(HTTPStreamReader(fd: fd).next()?.message.status ?? 0)
            }
            let extra = try RawExchange.run(port: port, health, wait: 3, from: "127.0.0.3")
            let other = try RawExchange.run(port: port, health, wait: 1, from: "127.0.0.4")
            // Once one of the four goes, the address may connect again.
            close(fds.removeFirst())
            var again = 0
            _ = eventuallyBlocking(poll: .milliseconds(100)) {
                again = (try? RawExchange.run(port: port, health, wait: 1, from: "127.0.0.3"))?.responses.first?.status ?? 0
                return again == 200
            }
            return (held, extra, other, again)
        }
        #expect(held == [200, 200, 200, 200])
        #expect(extra.responses.isEmpty && extra.closed, "the fifth connection got \(extra.text.prefix(200))")
        #expect(extra.elapsed < .seconds(1))
        #expect(other.responses.first?.status == 200)
        #expect(again == 200)
    }
}

/// Slow clients for `SlowSenderTests`: `dribblers` announce a 100-byte body and send one byte
/// every 400 ms; `silent` ones announce it and send nothing. One thread drives them all with
/// `poll` and records, per connection, when the server closed it (from the end of its head).
enum SlowSenders {
    struct Outcome: Sendable {
        var kind: String
        var index: Int
        var closedAfter: Duration?
        var answer: String
    }

    static func run(port: UInt16, dribblers: Int, silent: Int, giveUpAfter limit: Duration) throws -> [Outcome] {
        let clock = ContinuousClock()
        struct Connection {
            var fd: Int32
            var outcome: Outcome
            var started: ContinuousClock.Instant
            var nextByte: ContinuousClock.Instant?
            var answer: [UInt8] = []
        }
        var connections: [Connection] = []
        defer { for connection in connections where connection.fd >= 0 { close(connection.fd) } }
        for index in 0..<(dribblers + silent) {
            let fd = try RawHTTP.connect(port: port)
            _ = RawHTTP.writeAll(fd, SlowSenderTests.opsHead(length: 100))
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            let now = clock.now
            let dribbles = index < dribblers
            connections.append(Connection(fd: fd, outcome: Outcome(kind: dribbles ? "dribbling" : "silent", index: index, closedAfter: nil,
                                                                   answer: ""),
                                          started: now, nextByte: dribbles ? now.advanced(by: .milliseconds(400)) : nil))
        }
        let start = clock.now
        var buffer = [UInt8](repeating: 0, count: 4096)
        while clock.now - start < limit, connections.contains(where: { $0.outcome.closedAfter == nil }) {
            var fds = connections.map { pollfd(fd: $0.outcome.closedAfter == nil ? $0.fd : -1, events: Int16(POLLIN), revents: 0) }
            _ = poll(&fds, nfds_t(fds.count), 50)
            let now = clock.now
            for index in connections.indices where connections[index].outcome.closedAfter == nil {
                var connection = connections[index]
                var closed = false
                if fds[index].revents != 0 {
                    let count = buffer.withUnsafeMutableBytes { recv(connection.fd, $0.baseAddress, $0.count, 0) }
                    if count > 0 { connection.answer += buffer[0..<count] } else if count == 0 || errno != EAGAIN { closed = true }
                }
                if !closed, let due = connection.nextByte, now >= due {
                    let sent = send(connection.fd, " ", 1, Int32(MSG_NOSIGNAL))
                    if sent < 0, errno != EAGAIN { closed = true }
                    connection.nextByte = now.advanced(by: .milliseconds(400))
                }
                if closed {
                    connection.outcome.closedAfter = now - connection.started
                    connection.outcome.answer = String(decoding: connection.answer, as: UTF8.self)
                }
                connections[index] = connection
            }
        }
        return connections.map(\.outcome)
    }
}
