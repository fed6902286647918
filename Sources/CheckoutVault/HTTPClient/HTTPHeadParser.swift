/// Strict parsing of a response's status line and header block (RFC 9112), bytes in, typed
/// result out.
///
/// Refused rather than guessed: a status line that is not `HTTP/1.x NNN`, bare CR or LF, folded
/// lines, field names that are not tokens, control bytes in values, conflicting
/// `Content-Length`s, `Content-Length` beside `Transfer-Encoding`, and transfer codings other
/// than a final `chunked`.
package enum HTTPHeadParser {
    /// True for the bytes of an RFC 9110 token (`tchar`).
    package static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
        case 0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E: return true
        default: return false
        }
    }

    /// Parses `head` (the bytes before the blank line, without the final CRLF CRLF) of the
    /// response to a request with `method`.
    package static func parse(_ head: UnsafeBufferPointer<UInt8>, requestMethod method: String,
                              maxHeaderCount: Int) throws(HTTPClientError) -> HTTPResponseHead {
        var lines: [Range<Int>] = []
        var lineStart = 0
        var index = 0
        while index < head.count {
            let byte = head[index]
            if byte == 0x0D {
                guard index + 1 < head.count, head[index + 1] == 0x0A else {
                    throw lines.isEmpty ? .malformedStatusLine : .malformedHeader(reason: "a bare CR")
                }
                lines.append(lineStart..<index)
                index += 2
                lineStart = index
                continue
            }
            if byte == 0x0A { throw lines.isEmpty ? .malformedStatusLine : .malformedHeader(reason: "a bare LF") }
            index += 1
        }
        lines.append(lineStart..<head.count)
        guard lines.count - 1 <= maxHeaderCount else { throw .headersTooLarge(limit: maxHeaderCount) }

        let (minor, status) = try statusLine(head, lines[0])
        var headers: [HTTPHeaderField] = []
        headers.reserveCapacity(lines.count - 1)
        var contentLength: Int?
        var transferCodings: [String] = []
        var connectionTokens: [String] = []
        for line in lines.dropFirst() {
            let field = try headerField(head, line)
            switch field.name {
            case "content-length":
                let value = try Self.contentLength(field.value)
                if let contentLength, contentLength != value {
                    throw .malformedFraming(reason: "conflicting Content-Length values")
                }
                contentLength = value
            case "transfer-encoding":
                transferCodings += field.value.split(separator: ",").map { $0.trimmed.lowercased() }.filter { !$0.isEmpty }
            case "connection":
                connectionTokens += field.value.split(separator: ",").map { $0.trimmed.lowercased() }
            default:
                break
            }
            headers.append(field)
        }

        let framing: HTTPResponseHead.Framing
        if (100..<200).contains(status) || status == 204 || status == 304 || method == "HEAD" {
            framing = .none
        } else if !transferCodings.isEmpty {
            guard contentLength == nil else { throw .malformedFraming(reason: "both Content-Length and Transfer-Encoding") }
            guard transferCodings.last == "chunked", transferCodings.dropLast().allSatisfy({ $0 == "identity" }) else {
                throw .malformedFraming(reason: "unsupported Transfer-Encoding")
            }
            framing = .chunked
        } else if let contentLength {
            framing = .length(contentLength)
        } else {
            framing = .untilClose
        }
        let keepAlive: Bool
        if framing == .untilClose || connectionTokens.contains("close") {
            keepAlive = false
        } else {
            keepAlive = minor >= 1 || connectionTokens.contains("keep-alive")
        }
        return HTTPResponseHead(minorVersion: minor, status: status, headers: headers, framing: framing, keepAlive: keepAlive)
    }

    /// `HTTP/1.x SP 3DIGIT [SP reason]`; returns the minor version and the status.
    private static func statusLine(_ head: UnsafeBufferPointer<UInt8>, _ line: Range<Int>) throws(HTTPClientError) -> (Int, Int) {
        let prefix = Array("HTTP/1.".utf8)
        guard line.count >= 12 else { throw .malformedStatusLine }
        for (offset, byte) in prefix.enumerated() where head[line.lowerBound + offset] != byte { throw .malformedStatusLine }
        let minorByte = head[line.lowerBound + 7]
        guard minorByte == 0x30 || minorByte == 0x31, head[line.lowerBound + 8] == 0x20 else { throw .malformedStatusLine }
        var status = 0
        for offset in 9..<12 {
            let digit = head[line.lowerBound + offset]
            guard (0x30...0x39).contains(digit) else { throw .malformedStatusLine }
            status = status * 10 + Int(digit - 0x30)
        }
        guard (100...599).contains(status) else { throw .malformedStatusLine }
        if line.count > 12 {
            guard head[line.lowerBound + 12] == 0x20 else { throw .malformedStatusLine }
            for position in (line.lowerBound + 13)..<line.upperBound {
                let byte = head[position]
                guard byte == 0x09 || (byte >= 0x20 && byte != 0x7F) else { throw .malformedStatusLine }
            }
        }
        return (Int(minorByte - 0x30), status)
    }

    /// `name ":" OWS value OWS`.
    private static func headerField(_ head: UnsafeBufferPointer<UInt8>, _ line: Range<Int>) throws(HTTPClientError) -> HTTPHeaderField {
        guard let first = line.first, head[first] != 0x20, head[first] != 0x09 else {
            throw .malformedHeader(reason: "a folded or empty line")
        }
        var colon = line.lowerBound
        while colon < line.upperBound, head[colon] != 0x3A {
            guard isTokenByte(head[colon]) else { throw .malformedHeader(reason: "a field name that is not a token") }
            colon += 1
        }
        guard colon < line.upperBound, colon > line.lowerBound else { throw .malformedHeader(reason: "a line without a field name and colon") }
        var start = colon + 1
        var end = line.upperBound
        while start < end, head[start] == 0x20 || head[start] == 0x09 { start += 1 }
        while end > start, head[end - 1] == 0x20 || head[end - 1] == 0x09 { end -= 1 }
        for position in start..<end {
            let byte = head[position]
            guard byte == 0x09 || (byte >= 0x20 && byte != 0x7F) else {
                throw .malformedHeader(reason: "a control byte in a field value")
            }
        }
        let name = String(decoding: UnsafeBufferPointer(rebasing: head[line.lowerBound..<colon]), as: UTF8.self)
        let value = String(decoding: UnsafeBufferPointer(rebasing: head[start..<end]), as: UTF8.self)
        return HTTPHeaderField(name: name, value: value)
    }

    /// A `Content-Length` value: 1-18 digits (a list of equal values is accepted, as RFC 9110 allows).
    private static func contentLength(_ value: String) throws(HTTPClientError) -> Int {
        var result: Int?
        for part in value.split(separator: ",", omittingEmptySubsequences: false) {
            let digits = part.trimmed
            guard !digits.isEmpty, digits.utf8.count <= 18, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                  let number = Int(digits) else {
                throw .malformedFraming(reason: "a Content-Length that is not a number")
            }
            if let result, result != number { throw .malformedFraming(reason: "conflicting Content-Length values") }
            result = number
        }
        guard let result else { throw .malformedFraming(reason: "an empty Content-Length") }
        return result
    }
}

private extension Substring {
    /// The text without leading and trailing spaces and tabs.
    var trimmed: String {
        var slice = self[...]
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
