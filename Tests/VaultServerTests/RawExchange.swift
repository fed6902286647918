import Foundation
import Testing

/// One request as raw bytes on a fresh loopback connection, read until the server closes it or
/// nothing arrives for `wait` seconds: what the server answered, and whether it hung up.
struct RawExchange {
    /// Every complete response read, in order.
    var responses: [RawHTTP.Message]
    /// Everything read.
    var bytes: [UInt8]
    /// True when the server closed the connection; false when it was still open after the wait.
    var closed: Bool
    /// From the last byte sent to the close (or the end of the wait).
    var elapsed: Duration

    var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Sends `request` from `source` (a loopback address, 127.0.0.1 by default) and reads.
    static func run(port: UInt16, _ request: [UInt8], wait: Int = 3, from source: String? = nil) throws -> RawExchange {
        let fd = try RawHTTP.connect(port: port, from: source)
        defer { close(fd) }
        _ = RawHTTP.writeAll(fd, request)
        let clock = ContinuousClock()
        let start = clock.now
        let (bytes, closed) = RawHTTP.readUntilClosed(fd, timeoutSeconds: wait)
        return RawExchange(responses: RawHTTP.messages(bytes), bytes: bytes, closed: closed, elapsed: clock.now - start)
    }
}

/// Expects `message` to be the JSON error format: `status` on the status line,
/// `Content-Type: application/json`, and `{"error": {"code": code, "message": ...}}`.
func expectJSONError(_ message: RawHTTP.Message?, status: Int, code: String, sourceLocation: SourceLocation = #_sourceLocation) {
    guard let message else {
        Issue.record("no answer (expected \(status) \(code))", sourceLocation: sourceLocation)
        return
    }
    #expect(message.startLine.hasPrefix("HTTP/1.1 \(status) "), "status line: \(message.startLine)", sourceLocation: sourceLocation)
    #expect(message.header("content-type") == "application/json", "\(message.startLine) \(message.text.prefix(200))",
            sourceLocation: sourceLocation)
    #expect(message.errorCode == code, "body: \(message.text.prefix(200))", sourceLocation: sourceLocation)
    let object = try? JSONSerialization.jsonObject(with: Data(message.body)) as? [String: Any]
    let detail = object?["error"] as? [String: Any]
    #expect((detail?["message"] as? String)?.isEmpty == false, "body: \(message.text.prefix(200))", sourceLocation: sourceLocation)
}
