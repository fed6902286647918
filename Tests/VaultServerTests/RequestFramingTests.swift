import Foundation
import Testing
@testable import VaultServer

/// Request smuggling (RFC 9112 §6): a request whose body length is ambiguous is refused with the
/// JSON error format and the connection is closed, so the request hidden in its body is never
/// answered. Every case sends the smuggled `GET /health` in the same packet as the bad request.
struct RequestFramingTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var testDescription: String
        /// Header lines after Host and Authorization, each ending in CRLF.
        var fields: String
        var body: String
        var status: Int
        var code: String
    }

    static let smuggled = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

    static func request(fields: String, body: String) -> [UInt8] {
        Array(("POST /v1/customers/c1/ops HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(TestServer.keyA)\r\n"
               + fields + "\r\n" + body + smuggled).utf8)
    }

    static let refused: [Case] = [
        Case(testDescription: "Content-Length and Transfer-Encoding", fields: "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n",
             body: "0\r\n\r\n", status: 400, code: "ambiguous-framing"),
        Case(testDescription: "Transfer-Encoding, then Content-Length", fields: "Transfer-Encoding: chunked\r\nContent-Length: 0\r\n",
             body: "0\r\n\r\n", status: 400, code: "ambiguous-framing"),
        Case(testDescription: "two different Content-Length values", fields: "Content-Length: 3\r\nContent-Length: 5\r\n",
             body: "{}\n\n\n", status: 400, code: "invalid-content-length"),
        Case(testDescription: "the same Content-Length twice", fields: "Content-Length: 2\r\nContent-Length: 2\r\n",
             body: "{}", status: 400, code: "invalid-content-length"),
        Case(testDescription: "a transfer coding other than chunked", fields: "Transfer-Encoding: gzip\r\n",
             body: "abc", status: 501, code: "unsupported-transfer-encoding"),
        Case(testDescription: "chunked, then another coding", fields: "Transfer-Encoding: chunked, gzip\r\n",
             body: "0\r\n\r\n", status: 501, code: "unsupported-transfer-encoding"),
        Case(testDescription: "chunked twice, in two fields", fields: "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n",
             body: "0\r\n\r\n", status: 501, code: "unsupported-transfer-encoding"),
        // RFC 9112 §5.1: whitespace between a field name and its colon is a 400. libmicrohttpd
        // keeps such a field under the name `Transfer-Encoding `, which no framing rule would see.
        Case(testDescription: "a space before the colon", fields: "Transfer-Encoding : chunked\r\nContent-Length: 5\r\n",
             body: "0\r\n\r\n", status: 400, code: "invalid-header-field"),
        Case(testDescription: "a tab before the colon", fields: "Content-Length\t: 5\r\n", body: "0\r\n\r\n",
             status: 400, code: "invalid-header-field"),
    ]

    @Test("an ambiguous body length: JSON error, connection closed, the hidden request never answered", arguments: refused)
    func refusedAndClosed(_ test: Case) throws {
        let server = try TestServer(.memory)
        let exchange = try RawExchange.run(port: server.port, Self.request(fields: test.fields, body: test.body))
        #expect(exchange.responses.count == 1, "answers: \(exchange.text.prefix(600))")
        expectJSONError(exchange.responses.first, status: test.status, code: test.code)
        #expect(exchange.responses.first?.header("connection")?.lowercased() == "close")
        #expect(exchange.closed, "the connection stayed open")
        #expect(!exchange.text.contains(#"{"status":"ok"}"#), "the smuggled request was answered")
    }

    @Test("a Content-Length that is not a number: libmicrohttpd's own 400 (HTML), closed, nothing smuggled", arguments: [
        "-1", "abc", "3, 3", "+3", "0x10",
    ])
    func malformedLengthClosed(_ value: String) throws {
        // libmicrohttpd 0.9.75 parses Content-Length before the server sees the request and
        // answers a bad one itself (the vault guide's known limits); what matters here is that it closes.
        let server = try TestServer(.memory)
        let exchange = try RawExchange.run(port: server.port, Self.request(fields: "Content-Length: \(value)\r\n", body: "abc"))
        #expect(exchange.responses.first?.status == 400, "\(exchange.text.prefix(300))")
        #expect(exchange.closed, "the connection stayed open")
        #expect(!exchange.text.contains(#"{"status":"ok"}"#), "the smuggled request was answered")
    }

    @Test("what libmicrohttpd refuses itself before the server sees it: an error status, closed, nothing smuggled", arguments: [
        "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nno colon here\r\n\r\n",
        "GET /health HTTP/2.0\r\nHost: 127.0.0.1\r\n\r\n",
        "GET /health\r\nHost: 127.0.0.1\r\n\r\n",
    ])
    func refusedByLibmicrohttpd(_ request: String) throws {
        // The vault guide's known limits (its own HTML page, not the JSON error).
        let server = try TestServer(.memory)
        let exchange = try RawExchange.run(port: server.port, Array((request + Self.smuggled).utf8))
        #expect([400, 505].contains(exchange.responses.first?.status ?? 0), "\(exchange.text.prefix(300))")
        #expect(exchange.responses.count == 1)
        #expect(exchange.closed, "the connection stayed open")
    }

    @Test("a declared body over limits.maxBodyBytes is 413 at once, without waiting for the body, and closed",
          arguments: ["1025", "1000000000000", "99999999999999999999"])
    func declaredTooLarge(_ length: String) throws {
        let server = try TestServer(.memory, limits: .init(maxBodyBytes: 1024))
        let head = Array(("POST /v1/customers/c1/ops HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(TestServer.keyA)\r\n"
                          + "Content-Type: application/json\r\nContent-Length: \(length)\r\n\r\n").utf8)
        let exchange = try RawExchange.run(port: server.port, head, wait: 5)
        #expect(exchange.responses.count == 1, "\(exchange.text.prefix(300))")
        if length.count < 20 {
            expectJSONError(exchange.responses.first, status: 413, code: "payload-too-large")
        } else {
            // Over 2^64: libmicrohttpd refuses it itself (413, its own page), before the server.
            #expect(exchange.responses.first?.status == 413)
        }
        #expect(exchange.closed)
        #expect(exchange.elapsed < .seconds(2), "the server waited for the body: \(exchange.elapsed)")
    }

    @Test("Expect: 100-continue with a body over the limit gets 413 and no 100 Continue")
    func expectContinueTooLarge() throws {
        let server = try TestServer(.memory, limits: .init(maxBodyBytes: 1024))
        let head = Array(("POST /v1/customers/c1/ops HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(TestServer.keyA)\r\n"
                          + "Expect: 100-continue\r\nContent-Length: 4096\r\n\r\n").utf8)
        let exchange = try RawExchange.run(port: server.port, head)
        #expect(exchange.text.hasPrefix("HTTP/1.1 413 "), "\(exchange.text.prefix(200))")
        expectJSONError(exchange.responses.first, status: 413, code: "payload-too-large")
        #expect(exchange.closed)
    }

    @Test("well-framed requests keep the connection open: by length, chunked, and without a body")
    func wellFramedKeepAlive() throws {
        let server = try TestServer(.memory)
        let body = #"{"ops":[{"opId":"op-1","kind":"delete","instrumentId":"tok-1"}]}"#
        let auth = "Authorization: Bearer \(TestServer.keyA)\r\n"
        var chunked = "POST /v1/customers/c1/ops HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth + "Transfer-Encoding: chunked\r\n\r\n"
        chunked += String(body.utf8.count, radix: 16) + "\r\n" + body + "\r\n0\r\n\r\n"
        let requests = "POST /v1/customers/c1/ops HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth
            + "Content-Length: \(body.utf8.count)\r\n\r\n" + body + chunked + Self.smuggled
        let exchange = try RawExchange.run(port: server.port, Array(requests.utf8), wait: 1)
        #expect(exchange.responses.map(\.status) == [200, 200, 200], "\(exchange.text.prefix(600))")
        #expect(exchange.responses.last?.text == #"{"status":"ok"}"#)
        #expect(!exchange.closed, "a well-framed request closed the connection")
    }
}
