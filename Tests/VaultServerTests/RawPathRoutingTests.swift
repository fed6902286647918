import Foundation
import Testing
@testable import VaultServer

/// The server routes on the raw path and decodes each segment after, so a
/// proxy or firewall rule written against the raw path agrees with it.
struct RawPathRoutingTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var path: String
        var testDescription: String { path }
    }

    static let refused: [Case] = [
        "/v1/customers/c1%2Finstruments", "/v1/customers/c1%2finstruments", "/v1/customers/c1/instruments%00/x",
        "/v1/customers/c1%00/instruments", "/v1/customers/c1%0A/instruments", "/v1/customers/c1%7F/instruments",
        "/v1/customers/./instruments", "/v1/customers/../instruments", "/v1/customers/%2e/instruments",
        "/v1/customers/%2E%2E/instruments", "/v1/customers/c1/instruments/..", "/v1/customers/c1%G1/instruments",
        "/v1/customers/c1%/instruments", "/v1/customers/c1%ff/instruments", "/v1/./customers/c1/instruments",
    ].map(Case.init)

    @Test("an encoded '/', a NUL or control character, a bad escape, and '.' or '..' segments get 400 invalid-path",
          arguments: refused)
    func refusedSegments(_ testCase: Case) throws {
        let server = try TestServer(.memory)
        _ = try RawHTTP.call(port: server.port, "POST", "/v1/customers/c1/ops", key: TestServer.keyA,
                             body: Array(#"{"ops":[{"opId":"o1","kind":"delete","instrumentId":"tok-1"}]}"#.utf8))
        let answer = try RawHTTP.call(port: server.port, "GET", testCase.path, key: TestServer.keyA)
        expectJSONError(answer, status: 400, code: "invalid-path")
    }

    @Test("a raw byte that is not UTF-8 in the target is 400 invalid-request-line, before the credential")
    func rawInvalidUTF8() throws {
        let server = try TestServer(.memory)
        let path = Array("/v1/customers/c".utf8) + [0xFF] + Array("/instruments".utf8)
        let answer = try RawHTTP.exchange(port: server.port, RawHTTP.request("GET", path: path,
                                                                              headers: [("Authorization", "Bearer \(TestServer.keyA)")]))
        expectJSONError(answer, status: 400, code: "invalid-request-line")
    }

    @Test("other escapes decode within their segment: /v1/customers/c%31/changes is c1's feed")
    func escapesDecodePerSegment() throws {
        let server = try TestServer(.memory)
        let plain = try RawHTTP.call(port: server.port, "GET", "/v1/customers/c1/changes", key: TestServer.keyA)
        let escaped = try RawHTTP.call(port: server.port, "GET", "/v1/customers/c%31/changes", key: TestServer.keyA)
        #expect(plain.status == 200 && escaped.status == 200)
        #expect(plain.text == escaped.text)
        // The route's own words are matched as they arrived, escaped or not, segment by segment.
        #expect(try RawHTTP.call(port: server.port, "GET", "/v1/customers/c1/%69nstruments", key: TestServer.keyA).status == 200)
    }

    @Test("segments are split on the raw '/' only", arguments: [
        ("/v1/customers/a%2Fb/changes", nil), ("/v1/customers/a/b/changes", [String]?.some(["v1", "customers", "a", "b", "changes"])),
        ("/health?x=%2F", ["health"]), ("*", nil),
    ] as [(String, [String]?)])
    func segments(_ target: String, _ expected: [String]?) {
        switch Result(catching: { () throws(VaultHTTPError) in try RequestTarget.segments(of: target) }) {
        case .success(let segments): #expect(segments == expected)
        case .failure(let error): #expect(expected == nil && error.code == "invalid-path")
        }
    }

    @Test("a query value with an encoded or raw NUL or control character, a bad escape or a repeated name is 400 invalid-query, never truncated", arguments: [
        "cursor=%00", "limit=5%00junk", "cursor=a%1Fb", "cursor=a%7Fb", "cursor=%zz", "cursor=%C3", "limit=1&limit=2",
    ])
    func refusedQueries(_ query: String) throws {
        let server = try TestServer(.memory)
        let answer = try RawHTTP.call(port: server.port, "GET", "/v1/customers/c1/changes?" + query, key: TestServer.keyA)
        expectJSONError(answer, status: 400, code: "invalid-query")
    }

    @Test("a valid cursor followed by %00 and junk is refused, not read up to the NUL")
    func cursorWithNUL() throws {
        let server = try TestServer(.memory)
        let first = try RawHTTP.call(port: server.port, "GET", "/v1/customers/c1/changes", key: TestServer.keyA)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(first.body)) as? [String: Any])
        let cursor = try #require(object["cursor"] as? String, "\(first.text)")
        let escaped = try #require(cursor.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        #expect(try RawHTTP.call(port: server.port, "GET", "/v1/customers/c1/changes?cursor=\(escaped)", key: TestServer.keyA).status == 200)
        let answer = try RawHTTP.call(port: server.port, "GET", "/v1/customers/c1/changes?cursor=\(escaped)%00junk", key: TestServer.keyA)
        expectJSONError(answer, status: 400, code: "invalid-query")
    }

    @Test("query arguments decode '+' and escapes, and keep '/'", arguments: [
        ("/v1/customers/c1/changes?cursor=a%2Bb+c&limit=5", ["cursor": "a+b c", "limit": "5"]),
        ("/health?x=%2F", ["x": "/"]), ("/health", [:]), ("/health?flag", ["flag": ""]),
    ] as [(String, [String: String])])
    func queries(_ target: String, _ expected: [String: String]) throws {
        #expect(try RequestTarget.query(of: target) == expected)
    }
}
