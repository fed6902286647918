#if canImport(Glibc)
import Glibc
#endif

/// The receive side of one client connection: a buffer over the socket and the reading of one
/// whole response from it (head, then a `Content-Length`, chunked or read-until-close body),
/// within the limits.
///
/// Owned by one `HTTPClientConnection` and used by one exchange at a time.
struct HTTPWireReader {
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0
    /// Bytes of the current response received so far (to tell "nothing came" from "cut short").
    private var received = 0

    init(capacity: Int = 64 * 1024) {
        buffer = [UInt8](repeating: 0, count: capacity)
    }

    /// True when bytes arrived that no response accounted for (the connection cannot be reused).
    var hasUnreadBytes: Bool { start < end }

    /// Forgets everything buffered (after a reconnect).
    mutating func reset() {
        start = 0
        end = 0
    }

    /// Reads one response to a request with `method` from `fd`.
    mutating func readResponse(fd: Int32, method: String, limits: HTTPClientLimits,
                               deadline: Double) throws(HTTPClientError) -> (HTTPResponseHead, [UInt8]) {
        received = 0
        var head: HTTPResponseHead
        repeat {
            head = try readHead(fd: fd, method: method, limits: limits, deadline: deadline)
            if head.status == 101 { throw .malformedFraming(reason: "a protocol switch nobody asked for") }
        } while (100..<200).contains(head.status)
        let body: [UInt8]
        switch head.framing {
        case .none: body = []
        case .length(let length): body = try readBody(length: length, fd: fd, limits: limits, deadline: deadline)
        case .chunked: body = try readChunked(fd: fd, limits: limits, deadline: deadline)
        case .untilClose: body = try readUntilClose(fd: fd, limits: limits, deadline: deadline)
        }
        return (head, body)
    }

    // MARK: Head

    private mutating func readHead(fd: Int32, method: String, limits: HTTPClientLimits,
                                   deadline: Double) throws(HTTPClientError) -> HTTPResponseHead {
        var scanned = 0  // bytes after `start` known not to begin a blank line
        while true {
            if let blank = findBlankLine(from: start + scanned) {
                guard blank - start <= limits.maxHeaderBytes else { throw .headersTooLarge(limit: limits.maxHeaderBytes) }
                let parsed = try buffer.withUnsafeBufferPointer { (raw) throws(HTTPClientError) -> HTTPResponseHead in
                    try HTTPHeadParser.parse(UnsafeBufferPointer(rebasing: raw[start..<blank]), requestMethod: method,
                                             maxHeaderCount: limits.maxHeaderCount)
                }
                start = blank + 4
                return parsed
            }
            guard end - start <= limits.maxHeaderBytes else { throw .headersTooLarge(limit: limits.maxHeaderBytes) }
            scanned = max(0, end - start - 3)
            if try fill(fd: fd, deadline: deadline, reserve: 4096) == 0 {
                throw received == 0 ? .closedBeforeResponse : .truncatedHead(receivedBytes: received)
            }
        }
    }

    /// The index of the CR of the first CRLF CRLF at or after `from`, within the buffered bytes.
    private func findBlankLine(from: Int) -> Int? {
        guard end - from >= 4 else { return nil }
        return buffer.withUnsafeBufferPointer { raw -> Int? in
            var index = from
            let last = end - 4
            while index <= last {
                if raw[index + 3] != 0x0A {
                    index += raw[index + 3] == 0x0D ? 1 : 4
                    continue
                }
                if raw[index] == 0x0D && raw[index + 1] == 0x0A && raw[index + 2] == 0x0D { return index }
                index += 1
            }
            return nil
        }
    }

    // MARK: Bodies

    private mutating func readBody(length: Int, fd: Int32, limits: HTTPClientLimits,
                                   deadline: Double) throws(HTTPClientError) -> [UInt8] {
        guard length <= limits.maxBodyBytes else { throw .bodyTooLarge(limit: limits.maxBodyBytes) }
        let available = min(length, end - start)
        var failure: HTTPClientError?
        let body = [UInt8](unsafeUninitializedCapacity: length) { out, initialized in
            buffer.withUnsafeBufferPointer { raw in
                if available > 0, let source = raw.baseAddress, let target = out.baseAddress {
                    target.initialize(from: source + start, count: available)
                }
            }
            initialized = available
            while initialized < length {
                do throws(HTTPClientError) {
                    guard let base = out.baseAddress else { return }
                    let count = try Self.receive(fd: fd, into: base + initialized, count: length - initialized,
                                                 deadline: deadline)
                    if count == 0 {
                        failure = .truncatedBody(receivedBytes: initialized, expectedBytes: length)
                        return
                    }
                    initialized += count
                } catch {
                    failure = error
                    return
                }
            }
        }
        start += available
        if let failure { throw failure }
        compact()
        return body
    }

    private mutating func readChunked(fd: Int32, limits: HTTPClientLimits, deadline: Double) throws(HTTPClientError) -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let line = try readLine(fd: fd, limit: 1024, deadline: deadline, body: body.count)
            let size = try Self.chunkSize(line)
            if size == 0 { break }
            guard body.count + size <= limits.maxBodyBytes else { throw .bodyTooLarge(limit: limits.maxBodyBytes) }
            while end - start < size + 2 {
                if try fill(fd: fd, deadline: deadline, reserve: size + 2 - (end - start)) == 0 {
                    throw .truncatedBody(receivedBytes: body.count + max(0, end - start), expectedBytes: nil)
                }
            }
            body += buffer[start..<(start + size)]
            guard buffer[start + size] == 0x0D, buffer[start + size + 1] == 0x0A else {
                throw .malformedFraming(reason: "a chunk not followed by CRLF")
            }
            start += size + 2
        }
        // Trailer fields, up to the blank line; their content is not used.
        var trailerBytes = 0
        while true {
            let line = try readLine(fd: fd, limit: limits.maxHeaderBytes, deadline: deadline, body: body.count)
            if line.isEmpty { break }
            trailerBytes += line.count + 2
            guard trailerBytes <= limits.maxHeaderBytes else { throw .headersTooLarge(limit: limits.maxHeaderBytes) }
        }
        compact()
        return body
    }

    private mutating func readUntilClose(fd: Int32, limits: HTTPClientLimits, deadline: Double) throws(HTTPClientError) -> [UInt8] {
        while true {
            guard end - start <= limits.maxBodyBytes else { throw .bodyTooLarge(limit: limits.maxBodyBytes) }
            if try fill(fd: fd, deadline: deadline, reserve: 64 * 1024) == 0 { break }
        }
        guard end - start <= limits.maxBodyBytes else { throw .bodyTooLarge(limit: limits.maxBodyBytes) }
        let body = Array(buffer[start..<end])
        start = end
        compact()
        return body
    }

    /// One CRLF-terminated line (without the CRLF) of at most `limit` bytes.
    private mutating func readLine(fd: Int32, limit: Int, deadline: Double, body: Int) throws(HTTPClientError) -> [UInt8] {
        var scanned = 0  // bytes after `start` known to hold no CR or LF
        while true {
            var index = start + scanned
            while index + 1 < end {
                if buffer[index] == 0x0D {
                    guard buffer[index + 1] == 0x0A else { throw .malformedFraming(reason: "a bare CR in chunk framing") }
                    let line = Array(buffer[start..<index])
                    start = index + 2
                    return line
                }
                if buffer[index] == 0x0A { throw .malformedFraming(reason: "a bare LF in chunk framing") }
                index += 1
            }
            scanned = index - start
            guard end - start <= limit else { throw .malformedFraming(reason: "a chunk framing line over \(limit) bytes") }
            if try fill(fd: fd, deadline: deadline, reserve: 1024) == 0 {
                throw .truncatedBody(receivedBytes: body, expectedBytes: nil)
            }
        }
    }

    /// `1*HEXDIG [ ; extensions ]`, at most 15 digits.
    static func chunkSize(_ line: [UInt8]) throws(HTTPClientError) -> Int {
        var size = 0
        var digits = 0
        for byte in line {
            let value: Int
            switch byte {
            case 0x30...0x39: value = Int(byte - 0x30)
            case 0x41...0x46: value = Int(byte - 0x41 + 10)
            case 0x61...0x66: value = Int(byte - 0x61 + 10)
            case 0x3B, 0x20, 0x09:
                guard digits > 0 else { throw .malformedFraming(reason: "a chunk size line without a size") }
                return size
            default:
                throw .malformedFraming(reason: "a chunk size that is not hexadecimal")
            }
            digits += 1
            guard digits <= 15 else { throw .malformedFraming(reason: "a chunk size that is too large") }
            size = size * 16 + value
        }
        guard digits > 0 else { throw .malformedFraming(reason: "a chunk size line without a size") }
        return size
    }

    // MARK: Socket

    /// Makes room for `reserve` more bytes (moving the unread bytes to the front, growing when
    /// needed), then receives once; returns the count (0: the peer closed).
    private mutating func fill(fd: Int32, deadline: Double, reserve: Int) throws(HTTPClientError) -> Int {
        if start > 0 && (start == end || buffer.count - end < reserve) {
            let unread = end - start
            if unread > 0 {
                buffer.withUnsafeMutableBufferPointer { raw in
                    guard let base = raw.baseAddress else { return }
                    (base).update(from: base + start, count: unread)
                }
            }
            start = 0
            end = unread
        }
        if buffer.count - end < reserve {
            buffer += [UInt8](repeating: 0, count: max(reserve, buffer.count))
        }
        let spare = buffer.count - end
        let position = end
        let count = try buffer.withUnsafeMutableBufferPointer { (raw) throws(HTTPClientError) -> Int in
            guard let base = raw.baseAddress else { return 0 }
            return try Self.receive(fd: fd, into: base + position, count: spare, deadline: deadline)
        }
        end += count
        received += count
        return count
    }

    /// Resets the indexes when everything was consumed.
    private mutating func compact() {
        if start == end {
            start = 0
            end = 0
        }
    }

    /// One `recv`, honouring the exchange deadline; 0 when the peer closed (or reset).
    private static func receive(fd: Int32, into pointer: UnsafeMutablePointer<UInt8>, count: Int,
                                deadline: Double) throws(HTTPClientError) -> Int {
        while true {
            let remaining = deadline - MonotonicClock.now()
            guard remaining > 0 else { throw .timedOut }
            let result = recv(fd, pointer, count, 0)
            if result > 0 { return result }
            if result == 0 { return 0 }
            let code = errno
            switch code {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: throw .timedOut
            case ECONNRESET, EPIPE, ENOTCONN, ESHUTDOWN: return 0
            default: throw .receiveFailed(reason: TCPConnector.errnoText(code))
            }
        }
    }
}
