import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A blocking HTTP/1.1 client connection: just enough for `Content-Length` responses.
final class HTTPConnection {
    struct Response {
        var status: Int
        var closes: Bool
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let socket: Int32
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    private var buffered = 0

    init?(host: String, port: UInt16) {
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr(host)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            return nil
        }
        var one: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        socket = descriptor
    }

    deinit { close(socket) }

    /// Sends `request` and reads one whole response.
    func exchange(_ request: [UInt8]) -> Result<Response, Failure> {
        var written = 0
        while written < request.count {
            let count = request.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return -1 }
                return send(socket, base + written, raw.count - written, Int32(MSG_NOSIGNAL))
            }
            guard count > 0 else { return .failure(Failure(description: "send failed: errno \(errno)")) }
            written += count
        }
        // Read until the end of the headers.
        var headerEnd = -1
        while headerEnd < 0 {
            headerEnd = findHeaderEnd()
            if headerEnd >= 0 { break }
            guard fill() else { return .failure(Failure(description: "connection closed before the headers")) }
        }
        guard let head = String(bytes: buffer[0..<headerEnd], encoding: .utf8) else {
            return .failure(Failure(description: "unreadable headers"))
        }
        let lines = head.split(separator: "\r\n")
        guard let statusLine = lines.first, statusLine.hasPrefix("HTTP/1."),
              let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") else {
            return .failure(Failure(description: "bad status line"))
        }
        var length: Int?
        var closes = false
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if name == "content-length" { length = Int(value) }
            if name == "connection" && value.lowercased() == "close" { closes = true }
            if name == "transfer-encoding" { return .failure(Failure(description: "chunked responses are not supported")) }
        }
        guard let length else { return .failure(Failure(description: "no Content-Length")) }
        let total = headerEnd + 4 + length
        if total > buffer.count { buffer += [UInt8](repeating: 0, count: total - buffer.count) }
        while buffered < total {
            guard fill() else { return .failure(Failure(description: "connection closed in the body")) }
        }
        // Keep any bytes past this response (there should be none with one request in flight).
        let extra = buffered - total
        if extra > 0 {
            buffer.withUnsafeMutableBytes { raw in
                guard let base = raw.baseAddress else { return }
                base.copyMemory(from: base + total, byteCount: extra)
            }
        }
        buffered = extra
        return .success(Response(status: status, closes: closes))
    }

    private func findHeaderEnd() -> Int {
        guard buffered >= 4 else { return -1 }
        for index in 0...(buffered - 4)
        where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
            return index
        }
        return -1
    }

    private func fill() -> Bool {
        if buffered == buffer.count { buffer += [UInt8](repeating: 0, count: buffer.count) }
        let count = buffer.withUnsafeMutableBytes { raw -> Int in
            guard let base = raw.baseAddress else { return -1 }
            return recv(socket, base + buffered, raw.count - buffered, 0)
        }
        guard count > 0 else { return false }
        buffered += count
        return true
    }
}
