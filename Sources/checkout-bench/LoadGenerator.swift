import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `checkout-bench --load-generator URL --api-key KEY [--connections N] [--seconds S] [--max-requests M]`:
/// the second process of the server benchmark.
///
/// Opens N keep-alive HTTP/1.1 connections to a loopback URL and sends GET requests back to back
/// on each (one blocking thread per connection, no client library in the way), for S seconds or
/// M requests in all, whichever comes first. Prints one JSON line: requests, errors, seconds and
/// latency percentiles in microseconds. Refuses any host but loopback.
enum LoadGenerator {
    static let flag = "--load-generator"

    static func modeIndex(in arguments: [String]) -> Int? { arguments.firstIndex(of: flag) }

    struct Options: Sendable {
        var host = "127.0.0.1"
        var port: UInt16 = 0
        var pathAndQuery = "/"
        var apiKey = ""
        var connections = 8
        var seconds = 5.0
        var maxRequests = 1_000_000
    }

    struct Tally: Sendable {
        var requests = 0
        var errors = 0
        var statusErrors: [Int: Int] = [:]
        var latencies: [UInt32] = []
        var firstError: String?
    }

    static func main(_ arguments: [String]) async -> Int32 {
        let options: Options
        do {
            options = try parse(arguments)
        } catch {
            FileHandle.standardError.write(Data("checkout-bench --load-generator: \(error)\n".utf8))
            return 2
        }
        let tally = Mutex(Tally())
        let remaining = RequestBudget(options.maxRequests)
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(options.seconds * 1e9)
        let done = DispatchGroup()
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<options.connections {
            done.enter()
            let thread = Thread {
                let result = runConnection(options, deadline: deadline, remaining: remaining)
                tally.withLock { total in
                    total.requests += result.requests
                    total.errors += result.errors
                    total.latencies += result.latencies
                    for (status, count) in result.statusErrors { total.statusErrors[status, default: 0] += count }
                    if total.firstError == nil { total.firstError = result.firstError }
                }
                done.leave()
            }
            thread.start()
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            done.notify(queue: .global()) { continuation.resume() }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let total = tally.withLock { $0 }
        let sorted = total.latencies.sorted().map(Double.init)
        let report: [String: Any] = [
            "requests": total.requests, "errors": total.errors, "seconds": seconds,
            "connections": options.connections,
            "p50_us": Measure.percentile(sorted, 0.50), "p90_us": Measure.percentile(sorted, 0.90),
            "p99_us": Measure.percentile(sorted, 0.99), "max_us": sorted.last ?? 0,
            "statusErrors": Dictionary(uniqueKeysWithValues: total.statusErrors.map { (String($0.key), $0.value) }),
            "firstError": total.firstError ?? "",
        ]
        guard let data = try? JSONSerialization.data(withJSONObject: report, options: [.sortedKeys]) else { return 1 }
        FileHandle.standardOutput.write(data + Data("\n".utf8))
        return 0
    }

    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        guard let urlText = arguments.first, let url = URLComponents(string: urlText), url.scheme == "http",
              let host = url.host, let port = url.port, (1...65535).contains(port) else {
            throw UsageError(description: "expected http://127.0.0.1:PORT/PATH as the first argument")
        }
        guard host == "127.0.0.1" || host == "localhost" else {
            throw UsageError(description: "loopback only: the host must be 127.0.0.1")
        }
        options.host = "127.0.0.1"
        options.port = UInt16(port)
        options.pathAndQuery = (url.percentEncodedPath.isEmpty ? "/" : url.percentEncodedPath)
            + (url.percentEncodedQuery.map { "?" + $0 } ?? "")
        var index = 1
        func next() throws -> String {
            index += 1
            guard index < arguments.count else { throw UsageError(description: "\(arguments[index - 1]) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            switch arguments[index] {
            case "--api-key": options.apiKey = try next()
            case "--connections":
                guard let value = Int(try next()), (1...256).contains(value) else {
                    throw UsageError(description: "--connections must be 1-256")
                }
                options.connections = value
            case "--seconds":
                guard let value = Double(try next()), value > 0, value <= 120 else {
                    throw UsageError(description: "--seconds must be in (0, 120]")
                }
                options.seconds = value
            case "--max-requests":
                guard let value = Int(try next()), value > 0, value <= 100_000_000 else {
                    throw UsageError(description: "--max-requests must be 1-100000000")
                }
                options.maxRequests = value
            default:
                throw UsageError(description: "unknown argument '\(arguments[index].prefix(40))'")
            }
            index += 1
        }
        return options
    }

    /// One connection's loop: send, read the whole response, record the latency, repeat.
    static func runConnection(_ options: Options, deadline: UInt64, remaining: RequestBudget) -> Tally {
        var tally = Tally()
        tally.latencies.reserveCapacity(200_000)
        let request = Array("""
            GET \(options.pathAndQuery) HTTP/1.1\r
            Host: \(options.host):\(options.port)\r
            Authorization: Bearer \(options.apiKey)\r
            Accept: application/json\r
            \r\n
            """.utf8)
        var connection: HTTPConnection?
        while DispatchTime.now().uptimeNanoseconds < deadline {
            guard remaining.take() else { break }
            if connection == nil {
                connection = HTTPConnection(host: options.host, port: options.port)
                if connection == nil {
                    tally.errors += 1
                    if tally.firstError == nil { tally.firstError = "connect failed: errno \(errno)" }
                    usleep(1000)
                    continue
                }
            }
            guard let open = connection else { continue }
            let sent = DispatchTime.now().uptimeNanoseconds
            switch open.exchange(request) {
            case .success(let response):
                let elapsed = DispatchTime.now().uptimeNanoseconds - sent
                tally.requests += 1
                tally.latencies.append(UInt32(min(elapsed / 1000, UInt64(UInt32.max))))
                if response.status != 200 {
                    tally.errors += 1
                    tally.statusErrors[response.status, default: 0] += 1
                }
                if response.closes { connection = nil }
            case .failure(let error):
                tally.errors += 1
                if tally.firstError == nil { tally.firstError = error.description }
                connection = nil
            }
        }
        return tally
    }
}

/// The requests left to send, shared by the connection threads.
final class RequestBudget: Sendable {
    private let left: Atomic<Int>
    init(_ count: Int) { left = Atomic(count) }
    /// Takes one request from the budget; false when none is left.
    func take() -> Bool { left.subtract(1, ordering: .relaxed).oldValue > 0 }
}

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
