import Foundation
import Testing
@testable import VaultServer

/// Over-long request lines and over-large heads get the JSON error format (414 `uri-too-long`,
/// 431 `headers-too-large`) with the connection closed, from the server's limits up to where
/// libmicrohttpd's own memory ends; the bounds beyond which libmicrohttpd still answers with its
/// own HTML page are pinned here and stated in the vault guide's known limits.
struct RequestHeadLimitTests {
    /// `GET /health?<padding> HTTP/1.1` with a request line of exactly `lineBytes` (CRLF included),
    /// then Host, `fields` and the blank line.
    static func request(lineBytes: Int, fields: String = "", padding: UInt8 = UInt8(ascii: "a")) -> [UInt8] {
        let fixed = "GET /health? HTTP/1.1\r\n".utf8.count
        let target = Array("/health?".utf8) + [UInt8](repeating: padding, count: max(0, lineBytes - fixed))
        return Array("GET ".utf8) + target + Array(" HTTP/1.1\r\nHost: 127.0.0.1\r\n\(fields)\r\n".utf8)
    }

    /// A request whose head (request line to blank line) is exactly `headBytes`, padded in one field.
    static func request(headBytes: Int) -> [UInt8] {
        let base = request(lineBytes: 64, fields: "X-Pad: \r\n").count
        return request(lineBytes: 64, fields: "X-Pad: " + String(repeating: "p", count: headBytes - base) + "\r\n")
    }

    static let maxLine = RequestHead.maxRequestLineBytes
    static let maxHead = RequestHead.maxHeadBytes

    @Test("heads within the limits are served", arguments: [
        ("request line at the limit", request(lineBytes: maxLine)),
        ("head at the limit", request(headBytes: maxHead)),
        // The most libmicrohttpd has to keep per byte: 1-byte query arguments and 3-byte fields
        // with bare LF line ends, both up to the limits.
        ("2 KiB of empty query arguments and 6 KiB of 3-byte fields",
         Array(String(decoding: request(lineBytes: maxLine, padding: UInt8(ascii: "&")), as: UTF8.self)
            .replacingOccurrences(of: "\r\n\r\n", with: "\r\n" + String(repeating: "a:\n", count: (maxHead - maxLine - 24) / 3) + "\n").utf8)),
    ] as [(String, [UInt8])])
    func served(_ name: String, _ request: [UInt8]) throws {
        let server = try TestServer(.memory)
        let exchange = try RawExchange.run(port: server.port, request, wait: 1)
        #expect(exchange.responses.first?.status == 200, "\(name): \(exchange.text.prefix(300))")
        #expect(exchange.responses.first?.text == #"{"status":"ok"}"#)
    }

    @Test("a head over our limits and within libmicrohttpd's memory: JSON 414 or 431, connection closed", arguments: [
        ("request line one byte over", request(lineBytes: maxLine + 1), 414, "uri-too-long"),
        ("request line of 100 KiB", request(lineBytes: 100 * 1024), 414, "uri-too-long"),
        ("request line of 300 KiB", request(lineBytes: 300 * 1024), 414, "uri-too-long"),
        ("head one byte over", request(headBytes: maxHead + 1), 431, "headers-too-large"),
        ("one field of 100 KiB", request(headBytes: 100 * 1024), 431, "headers-too-large"),
        ("one field of 300 KiB", request(headBytes: 300 * 1024), 431, "headers-too-large"),
        ("4,000 tiny fields", request(lineBytes: 64, fields: String(repeating: "a:\r\n", count: 4_000)), 431, "headers-too-large"),
        ("a long line and a large head: the line is reported", request(lineBytes: 4096, fields: "X: " + String(repeating: "x", count: 9000) + "\r\n"),
         414, "uri-too-long"),
    ] as [(String, [UInt8], Int, String)])
    func refused(_ name: String, _ request: [UInt8], _ status: Int, _ code: String) throws {
        let server = try TestServer(.memory)
        let exchange = try RawExchange.run(port: server.port, request + Array(RequestFramingTests.smuggled.utf8))
        #expect(exchange.responses.count == 1, "\(name): \(exchange.text.prefix(300))")
        expectJSONError(exchange.responses.first, status: status, code: code)
        #expect(exchange.closed, "\(name): the connection stayed open")
    }

    /// Where libmicrohttpd's own refusals start with `RequestHead.connectionMemoryBytes` (320 KiB),
    /// as measured with these requests; the vault guide's known limits quote these numbers.
    static let lastJSONLine = 327_389
    static let lastJSONHead = 327_328
    static let lastJSONTinyFields = 4_813

    @Test("where libmicrohttpd's own answers start: up to the bound ours, beyond it never JSON", arguments: [
        ("request line", request(lineBytes: lastJSONLine), request(lineBytes: lastJSONLine + 1), request(lineBytes: lastJSONLine + 300)),
        ("head", request(headBytes: lastJSONHead), request(headBytes: lastJSONHead + 1), request(headBytes: lastJSONHead + 300)),
        ("4-byte fields", request(lineBytes: 64, fields: String(repeating: "a:\r\n", count: lastJSONTinyFields)),
         request(lineBytes: 64, fields: String(repeating: "a:\r\n", count: lastJSONTinyFields + 1)),
         request(lineBytes: 64, fields: String(repeating: "a:\r\n", count: lastJSONTinyFields + 64))),
    ] as [(String, [UInt8], [UInt8], [UInt8])])
    func libmicrohttpdBound(_ name: String, _ last: [UInt8], _ over: [UInt8], _ farOver: [UInt8]) throws {
        let server = try TestServer(.memory)
        let ours = try RawExchange.run(port: server.port, last)
        #expect(ours.responses.first?.header("content-type") == "application/json", "\(name) at the bound: \(ours.text.prefix(200))")
        #expect(ours.closed)
        for request in [over, farOver] {
            // libmicrohttpd closes without an answer, or answers with its HTML page and closes.
            let theirs = try RawExchange.run(port: server.port, request)
            #expect(theirs.responses.first?.header("content-type") != "application/json", "\(name) beyond the bound was ours")
            #expect(theirs.responses.allSatisfy { [414, 431].contains($0.status) }, "\(name): \(theirs.text.prefix(200))")
            #expect(theirs.closed)
        }
        // And the server lives on.
        #expect(try RawExchange.run(port: server.port, Self.request(lineBytes: 64), wait: 1).responses.first?.status == 200)
    }
}
