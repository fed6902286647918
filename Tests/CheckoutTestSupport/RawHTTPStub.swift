#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Loopback
import CheckoutLocking

/// A tiny loopback HTTP listener whose answers a test scripts byte for byte, so tests can send
/// the HTTP client what no real server would: garbage, truncated heads and bodies, chunked
/// bodies, a connection closed instead of an answer, a keep-alive connection dropped between
/// requests.
///
/// Every accepted connection gets a thread that reads requests (head plus the body announced by
/// `Content-Length`) and asks the script what to do with each. The requests seen and the
/// connections closed are recorded for the test to check.
public final class RawHTTPStub: Sendable {
    /// One request as the stub read it.
    public struct Request: Sendable {
        /// The connection's number, in accept order from 0.
        public let connection: Int
        /// The request's number on its connection, from 0.
        public let index: Int
        /// The method, target and header lines as sent.
        public let method: String
        public let target: String
        public let headerLines: [String]
        public let body: [UInt8]
    }

    /// What the stub does with one request.
    public enum Action: Sendable {
        /// Writes the bytes; then closes the connection (`close`) or waits for the next request.
        case reply([UInt8], close: Bool)
        /// Closes the connection without writing anything.
        case close
        /// Writes nothing and keeps the connection open (a server that hangs).
        case hang
    }

    public typealias Script = @Sendable (Request) -> Action

    public let port: Int
    public let baseURL: URL
    private let listener: Int32
    /// What the connection threads record; they hold this, not the stub, so the stub can go away
    /// (closing its listener) while they run.
    private let shared = Shared()

    private final class Shared: Sendable {
        let state = Locked(State())
    }

    private struct State {
        var requests: [Request] = []
        var accepted = 0
        var closed = 0
        var hanging: [Int32] = []
        var stopped = false
    }

    /// Starts listening on 127.0.0.1 (or ::1 with `ipv6`) with a free port; `script` decides every
    /// answer. With `raw`, nothing is parsed: the first bytes a connection sends (a TLS ClientHello,
    /// say) become one request with method `RAW` and those bytes as its body.
    public init(ipv6: Bool = false, raw: Bool = false, script: @escaping Script) throws {
        let (fd, port) = try LoopbackListener.open(ipv6: ipv6)
        self.port = Int(port)
        guard let url = URL(string: ipv6 ? "http://[::1]:\(port)" : "http://127.0.0.1:\(port)") else {
            close(fd)
            throw POSIXError(.EINVAL)
        }
        baseURL = url
        listener = fd
        let shared = shared
        Thread {
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 {
                    // Only this thread closes the listener, after the stub stopped: a descriptor
                    // number closed elsewhere could be reused by another test's socket.
                    guard shared.state.withLock({ $0.stopped }) else { continue }
                    close(fd)
                    return
                }
                let number = shared.state.withLock { state in
                    defer { state.accepted += 1 }
                    return state.accepted
                }
                Thread { Self.serve(client, connection: number, raw: raw, script: script, shared: shared) }.start()
            }
        }.start()
    }

    deinit {
        // Under the lock: a connection leaves the list before its descriptor is closed, and the
        // accept thread closes the listener once it sees `stopped`.
        shared.state.withLock { state in
            state.stopped = true
            shutdown(listener, Int32(SHUT_RDWR))
            for fd in state.hanging { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    /// The requests read so far, in arrival order.
    public var requests: [Request] { shared.state.withLock { $0.requests } }
    /// Connections accepted so far.
    public var acceptedConnections: Int { shared.state.withLock { $0.accepted } }
    /// Connections the stub has closed so far.
    public var closedConnections: Int { shared.state.withLock { $0.closed } }

    private static func serve(_ client: Int32, connection: Int, raw: Bool, script: Script, shared: Shared) {
        var pending: [UInt8] = []
        var index = 0
        var rawRead = false
        func next() -> Request? {
            guard raw else { return readRequest(client, connection: connection, index: index, pending: &pending) }
            guard !rawRead else { return nil }
            rawRead = true
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            let count = recv(client, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            return Request(connection: connection, index: 0, method: "RAW", target: "", headerLines: [],
                           body: Array(buffer.prefix(count)))
        }
        defer {
            shared.state.withLock { $0.hanging.removeAll { $0 == client } }
            shutdown(client, Int32(SHUT_RDWR))
            close(client)
            shared.state.withLock { $0.closed += 1 }
        }
        while let request = next() {
            shared.state.withLock { $0.requests.append(request) }
            index += 1
            switch script(request) {
            case .reply(let bytes, let closeAfter):
                guard writeAll(client, bytes), !closeAfter else { return }
            case .close:
                return
            case .hang:
                shared.state.withLock { $0.hanging.append(client) }
                var byte: UInt8 = 0
                while recv(client, &byte, 1, 0) > 0 {}  // until the peer or deinit ends it
                return
            }
        }
    }

    private static func writeAll(_ client: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return true }
            var offset = 0
            while offset < raw.count {
                let written = send(client, base + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if written <= 0 { return false }
                offset += written
            }
            return true
        }
    }

    /// Reads one request head and its announced body; nil when the peer closed first.
    private static func readRequest(_ client: Int32, connection: Int, index: Int, pending: inout [UInt8]) -> Request? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let separator = Array("\r\n\r\n".utf8)
        func headEnd() -> Int? {
            guard pending.count >= 4 else { return nil }
            return (0...(pending.count - 4)).first { Array(pending[$0..<($0 + 4)]) == separator }
        }
        while headEnd() == nil {
            let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return nil }
            pending += buffer[0..<count]
        }
        let end = headEnd() ?? 0
        let head = String(decoding: pending[0..<end], as: UTF8.self)
        pending.removeFirst(end + 4)
        let lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.first?.split(separator: " ").map(String.init) ?? []
        let contentLength = lines.dropFirst().compactMap { line -> Int? in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
            return Int(parts[1].trimmingCharacters(in: .whitespaces))
        }.first ?? 0
        while pending.count < contentLength {
            let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return nil }
            pending += buffer[0..<count]
        }
        let body = Array(pending.prefix(contentLength))
        pending.removeFirst(contentLength)
        return Request(connection: connection, index: index, method: requestLine.first ?? "",
                       target: requestLine.count > 1 ? requestLine[1] : "", headerLines: Array(lines.dropFirst()), body: body)
    }

    /// A complete response with `body` and a `Content-Length` of `announcedLength` (default: the
    /// body's real length; larger announces bytes that never come), asking the client to close.
    public static func response(status: Int = 200, body: String, announcedLength: Int? = nil) -> [UInt8] {
        let bytes = Array(body.utf8)
        let head = "HTTP/1.1 \(status) OK\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(announcedLength ?? bytes.count)\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + bytes
    }

    /// A complete keep-alive response with `body`.
    public static func keepAlive(status: Int = 200, body: String, headers: [String] = []) -> [UInt8] {
        let bytes = Array(body.utf8)
        var head = "HTTP/1.1 \(status) OK\r\nContent-Length: \(bytes.count)\r\n"
        for header in headers { head += header + "\r\n" }
        return Array((head + "\r\n").utf8) + bytes
    }
}
