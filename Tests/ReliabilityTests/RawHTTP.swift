#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

#if canImport(Glibc)
private let systemConnect = Glibc.connect
#else
private let systemConnect = Darwin.connect
#endif

/// Minimal blocking HTTP/1.1 over POSIX sockets, for requests no well-behaved client (libcurl,
/// through HTTPTransport) will send (invalid UTF-8 in the path or headers, malformed credentials)
/// and for the fault-injection proxy.
enum RawHTTP {
    /// A parsed HTTP message (request or response).
    struct Message: Sendable {
        /// `GET /path HTTP/1.1` or `HTTP/1.1 200 OK`.
        var startLine: String
        /// Header names lower-cased, in order.
        var headers: [(name: String, value: String)]
        var body: [UInt8]

        /// The status code of a response (0 when unparsable).
        var status: Int {
            let parts = startLine.split(separator: " ")
            return parts.count >= 2 ? Int(parts[1]) ?? 0 : 0
        }

        func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }

        var text: String { String(decoding: body, as: UTF8.self) }

        /// `error.code` of a JSON error body.
        var errorCode: String? {
            guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
                  let error = object["error"] as? [String: Any] else { return nil }
            return error["code"] as? String
        }
    }

    struct SocketError: Error, CustomStringConvertible {
        var operation: String
        var code: Int32
        var description: String { "\(operation) failed (errno \(code))" }
    }

    /// A connected TCP socket to 127.0.0.1:`port` with send and receive timeouts. `source` binds
    /// the local end to another loopback address first (e.g. `127.0.0.2`), so that a test can
    /// be a second client IP.
    static func connect(port: UInt16, timeoutSeconds: Int = 15, from source: String? = nil) throws -> Int32 {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw SocketError(operation: "socket", code: errno) }
        setTimeouts(fd, seconds: timeoutSeconds)
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                let code = errno
                close(fd)
                throw SocketError(operation: "bind", code: code)
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                systemConnect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw SocketError(operation: "connect", code: code)
        }
        return fd
    }

    static func setTimeouts(_ fd: Int32, seconds: Int) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Writes every byte; false when the peer went away.
    @discardableResult
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { buffer in
                send(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL))
            }
            if written <= 0 { return false }
            offset += written
        }
        return true
    }

    /// Reads until EOF (or an error / timeout).
    static func readToEnd(_ fd: Int32) -> [UInt8] {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            result += chunk[0..<count]
        }
        return result
    }

    /// Reads one head, through its `\r\n\r\n`, and nothing after it; nil when the peer closes or
    /// the receive timeout passes first. For interim responses such as `100 Continue`.
    static func readHead(_ fd: Int32) -> [UInt8]? {
        var result: [UInt8] = []
        var byte: UInt8 = 0
        while headEnd(result) == nil {
            guard recv(fd, &byte, 1, 0) == 1 else { return nil }
            result.append(byte)
        }
        return result
    }

    /// Reads until the peer closes or `timeoutSeconds` pass without a byte; `closed` is true when
    /// the peer closed (EOF or reset), false when the wait ran out with the connection still open.
    static func readUntilClosed(_ fd: Int32, timeoutSeconds: Int) -> (bytes: [UInt8], closed: Bool) {
        setTimeouts(fd, seconds: timeoutSeconds)
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 { result += chunk[0..<count]; continue }
            if count == 0 { return (result, true) }
            let code = errno
            return (result, code != EAGAIN && code != EWOULDBLOCK && code != EINTR)
        }
    }

    /// Every complete response in `bytes`, one after the other (each head plus its `Content-Length` body).
    static func messages(_ bytes: [UInt8]) -> [Message] {
        var rest = bytes[...]
        var result: [Message] = []
        while let end = headEnd(Array(rest)), let (startLine, headers) = parseHead(Array(rest.prefix(end))) {
            let length = headers.first { $0.name == "content-length" }.flatMap { Int($0.value) } ?? 0
            let bodyStart = rest.startIndex + end + 4
            guard rest.endIndex - bodyStart >= length else { break }
            result.append(Message(startLine: startLine, headers: headers, body: Array(rest[bodyStart..<(bodyStart + length)])))
            rest = rest[(bodyStart + length)...]
        }
        return result
    }

    /// Builds a request. `path` is raw bytes (may be invalid UTF-8); `Content-Length` is added for a body.
    static func request(_ method: String, path: [UInt8], headers: [(String, String)] = [], rawHeaders: [[UInt8]] = [],
                        body: [UInt8]? = nil, close: Bool = true) -> [UInt8] {
        var bytes = Array("\(method) ".utf8) + path + Array(" HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8)
        for (name, value) in headers { bytes += Array("\(name): \(value)\r\n".utf8) }
        for raw in rawHeaders { bytes += raw + Array("\r\n".utf8) }
        if let body { bytes += Array("Content-Type: application/json\r\nContent-Length: \(body.count)\r\n".utf8) }
        if close { bytes += Array("Connection: close\r\n".utf8) }
        bytes += Array("\r\n".utf8)
        if let body { bytes += body }
        return bytes
    }

    /// Sends one request on a fresh connection and reads the whole response, until the server
    /// closes the connection (the requests say `Connection: close`). The receive timeout only
    /// bounds a server that never answers: generous, because under the sanitizer, beside the whole
    /// suite and PostgreSQL, an answer has taken longer than the 15 s default of `connect`.
    static func exchange(port: UInt16, _ request: [UInt8], timeoutSeconds: Int = 120) throws -> Message {
        let fd = try connect(port: port, timeoutSeconds: timeoutSeconds)
        defer { close(fd) }
        guard writeAll(fd, request) else { throw SocketError(operation: "send", code: errno) }
        let response = readToEnd(fd)
        guard let message = parse(response) else { throw SocketError(operation: "parse response", code: 0) }
        return message
    }

    /// Convenience: a request with an optional bearer key and JSON body.
    static func call(port: UInt16, _ method: String, _ path: String, key: String?, body: [UInt8]? = nil) throws -> Message {
        var headers: [(String, String)] = []
        if let key { headers.append(("Authorization", "Bearer \(key)")) }
        return try exchange(port: port, request(method, path: Array(path.utf8), headers: headers, body: body))
    }

    /// Parses one complete message (head plus a body of `Content-Length` bytes, or everything after the head).
    static func parse(_ bytes: [UInt8]) -> Message? {
        guard let split = headEnd(bytes) else { return nil }
        guard let (startLine, headers) = parseHead(Array(bytes[0..<split])) else { return nil }
        var body = Array(bytes[(split + 4)...])
        if let length = headers.first(where: { $0.name == "content-length" }).flatMap({ Int($0.value) }), length <= body.count {
            body = Array(body.prefix(length))
        }
        return Message(startLine: startLine, headers: headers, body: body)
    }

    /// The index of `\r\n\r\n`, if present.
    static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    static func parseHead(_ head: [UInt8]) -> (String, [(name: String, value: String)])? {
        let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
        guard let startLine = lines.first, !startLine.isEmpty else { return nil }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        return (startLine, headers)
    }
}

/// Reads HTTP messages one after the other from a keep-alive connection.
final class HTTPStreamReader {
    let fd: Int32
    /// Answer `Expect: 100-continue` with `100 Continue` (the proxy does, as a server would).
    private let continueOnExpect: Bool
    private var buffer: [UInt8] = []
    private var continued = false

    init(fd: Int32, continueOnExpect: Bool = false) {
        self.fd = fd
        self.continueOnExpect = continueOnExpect
    }

    /// The next complete message (head and `Content-Length` body); nil at EOF or on error.
    func next() -> (raw: [UInt8], message: RawHTTP.Message)? {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            if let end = RawHTTP.headEnd(buffer), let (startLine, headers) = RawHTTP.parseHead(Array(buffer[0..<end])) {
                let length = headers.first { $0.name == "content-length" }.flatMap { Int($0.value) } ?? 0
                let total = end + 4 + length
                if buffer.count >= total {
                    let raw = Array(buffer[0..<total])
                    let message = RawHTTP.Message(startLine: startLine, headers: headers, body: Array(buffer[(end + 4)..<total]))
                    buffer.removeFirst(total)
                    continued = false
                    return (raw, message)
                }
                if continueOnExpect, !continued,
                   headers.contains(where: { $0.name == "expect" && $0.value.lowercased() == "100-continue" }) {
                    continued = true
                    RawHTTP.writeAll(fd, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
                }
            }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return nil }
            buffer += chunk[0..<count]
        }
    }
}
