#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A tiny loopback HTTP listener that answers every request with fixed bytes, so tests can send
/// `HTTPRemoteVault` what no real server would: garbage, truncated JSON, a connection cut mid-body.
///
/// One thread (ending when the listener closes) accepts connections one at a time, reads the request head (and the body announced
/// by `Content-Length`), writes the canned bytes for the request's method and closes.
final class RawHTTPStub: Sendable {
    let port: Int
    let baseURL: URL
    private let listener: Int32

    /// Starts listening on 127.0.0.1 with a free port. `responses` maps an HTTP method to the raw
    /// bytes written back (status line, headers and body exactly as given).
    init(responses: [String: [UInt8]]) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        guard let url = URL(string: "http://127.0.0.1:\(port)") else {
            close(fd)
            throw POSIXError(.EINVAL)
        }
        baseURL = url
        listener = fd
        let thread = Thread {
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 { return }  // the listener was closed
                let method = Self.readRequest(client)
                let bytes = responses[method] ?? Array("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
                bytes.withUnsafeBytes { raw in
                    guard let base = raw.baseAddress else { return }
                    var offset = 0
                    while offset < raw.count {
                        let written = send(client, base + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                        if written <= 0 { break }
                        offset += written
                    }
                }
                shutdown(client, Int32(SHUT_RDWR))
                close(client)
            }
        }
        thread.start()
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    /// Reads the request head and its announced body; returns the method.
    private static func readRequest(_ client: Int32) -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let separator = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        while headEnd == nil {
            let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return "" }
            received += buffer[0..<count]
            if received.count >= 4 {
                headEnd = (0...(received.count - 4)).first { Array(received[$0..<($0 + 4)]) == separator }
            }
        }
        let head = String(decoding: received[0..<(headEnd ?? 0)], as: UTF8.self)
        let lines = head.split(separator: "\r\n")
        let method = lines.first.map { String($0.split(separator: " ").first ?? "") } ?? ""
        let contentLength = lines.dropFirst().compactMap { line -> Int? in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
            return Int(parts[1].trimmingCharacters(in: .whitespaces))
        }.first ?? 0
        var bodyReceived = received.count - (headEnd ?? 0) - 4
        while bodyReceived < contentLength {
            let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            bodyReceived += count
        }
        return method
    }

    /// A complete response with `body` and a `Content-Length` of `announcedLength` (default: the
    /// body's real length; larger announces bytes that never come).
    static func response(status: Int = 200, body: String, announcedLength: Int? = nil) -> [UInt8] {
        let bytes = Array(body.utf8)
        let head = "HTTP/1.1 \(status) OK\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(announcedLength ?? bytes.count)\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + bytes
    }
}
