#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import CheckoutLocking

/// One blocking HTTP/1.1 client connection over a POSIX socket: connect, send a request, read
/// the whole response; reusable while the server keeps it alive.
///
/// The calls block their thread, so `HTTPClient` runs them on the connection's own serial
/// `queue`, never on Swift concurrency's threads; a benchmark's load generator may call them
/// from its own threads. One exchange at a time per connection (the I/O state is behind a
/// mutex held for the exchange); `abort()` may be called from any thread at any time and makes
/// a blocked exchange return `.cancelled` at once.
package final class HTTPClientConnection: Sendable {
    /// The server this connection talks to.
    package let endpoint: HTTPEndpoint
    /// The bounds of every exchange.
    package let limits: HTTPClientLimits
    /// Where `HTTPClient` runs this connection's blocking calls (serial: one at a time).
    let queue = DispatchQueue(label: "CheckoutVault.HTTPClientConnection")

    /// The descriptor and the abort flag: guarded apart from the I/O state so that `abort()`
    /// never waits for a blocked exchange.
    private struct SocketState {
        var fd: Int32 = -1
        var aborted = false
    }

    /// What an exchange reads and writes.
    private struct IOState {
        var reader = HTTPWireReader()
        var reusable = false
    }

    private let socket = Locked(SocketState())
    private let io = Locked(IOState())

    /// A connection to `endpoint`, not yet connected (the first exchange connects).
    package init(endpoint: HTTPEndpoint, limits: HTTPClientLimits) {
        self.endpoint = endpoint
        self.limits = limits
    }

    deinit {
        let fd = socket.withLock { $0.fd }
        if fd >= 0 { Glibc.close(fd) }
    }

    /// True while a socket is open.
    package var isConnected: Bool { socket.withLock { $0.fd >= 0 } }

    /// True when the last exchange left the connection fit for another request.
    package var isReusable: Bool { io.withLock { $0.reusable } && socket.withLock { $0.fd >= 0 && !$0.aborted } }

    /// Connects (closing any previous socket first).
    package func connect(deadline: Double) throws(HTTPClientError) {
        close()
        let fd = try TCPConnector.connect(host: endpoint.host, port: endpoint.port, deadline: deadline,
                                          ioTimeout: limits.timeout) { fd in
            socket.withLock { state in
                if state.aborted && fd >= 0 { return false }
                state.fd = fd
                return true
            }
        }
        _ = fd
        io.withLock {
            $0.reader.reset()
            $0.reusable = true
        }
    }

    /// For an idle pooled connection: true when nothing arrived since the last response (no
    /// close, no stray bytes), so that a request sent now should be answered.
    package func isIdleAndOpen() -> Bool {
        guard isReusable else { return false }
        let fd = socket.withLock { $0.fd }
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 0
    }

    /// Sends `request` and reads its response; connects first when not connected.
    package func exchange(_ request: HTTPClientRequest, deadline: Double) throws(HTTPClientError) -> HTTPClientResponse {
        try exchange(serialized: try request.serialized(for: endpoint), method: request.method, deadline: deadline)
    }

    /// Sends the bytes of a request made with `HTTPClientRequest.serialized` and reads the
    /// response to it (`method` tells whether a body can follow).
    package func exchange(serialized request: [UInt8], method: String, deadline: Double) throws(HTTPClientError) -> HTTPClientResponse {
        if !isConnected { try connect(deadline: deadline) }
        let fd = socket.withLock { $0.fd }
        do {
            return try io.withLock { (state) throws(HTTPClientError) -> HTTPClientResponse in
                state.reusable = false
                try Self.sendAll(fd: fd, request, deadline: deadline)
                let (head, body) = try state.reader.readResponse(fd: fd, method: method, limits: limits, deadline: deadline)
                state.reusable = head.keepAlive && !state.reader.hasUnreadBytes
                return HTTPClientResponse(status: head.status, headers: head.headers, body: body)
            }
        } catch {
            if socket.withLock({ $0.aborted }) { throw .cancelled }
            throw error
        }
    }

    /// Makes a blocked or future exchange end with `.cancelled`; the connection is not reused.
    package func abort() {
        socket.withLock { state in
            state.aborted = true
            if state.fd >= 0 { shutdown(state.fd, Int32(SHUT_RDWR)) }
        }
    }

    /// Closes the socket (a later exchange reconnects, unless aborted).
    package func close() {
        let fd = socket.withLock { state -> Int32 in
            defer { state.fd = -1 }
            return state.fd
        }
        if fd >= 0 { Glibc.close(fd) }
        io.withLock { $0.reusable = false }
    }

    private static func sendAll(fd: Int32, _ bytes: [UInt8], deadline: Double) throws(HTTPClientError) {
        var written = 0
        while written < bytes.count {
            guard MonotonicClock.now() < deadline else { throw .timedOut }
            let count = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return send(fd, base + written, raw.count - written, Int32(MSG_NOSIGNAL))
            }
            if count > 0 {
                written += count
                continue
            }
            let code = errno
            if count < 0 && code == EINTR { continue }
            if count < 0 && (code == EAGAIN || code == EWOULDBLOCK) { throw .timedOut }
            throw .sendFailed(reason: count == 0 ? "nothing written" : TCPConnector.errnoText(code), afterBytes: written)
        }
    }
}
