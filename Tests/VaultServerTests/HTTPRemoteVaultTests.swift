import CheckoutCore
import CheckoutVault
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Loopback
import Synchronization
import Testing

/// A one-response-per-connection HTTP server on loopback that answers every request with the
/// same canned bytes: lets tests feed `HTTPRemoteVault` garbage a real server would never send.
/// `GET /v1/whoami` (the client's merchant binding check) gets the honest answer of a server
/// whose key is `merchant`'s.
final class CannedHTTPServer: Sendable {
    let port: Int
    private let socket: Int32

    init(status: Int, headers: [String] = [], body: String, merchant: String = "m") throws {
        let (fd, listenerPort) = try LoopbackListener.open(backlog: 16)
        port = Int(listenerPort)
        socket = fd
        let response = Array(("HTTP/1.1 \(status) X\r\nContent-Type: application/json\r\nConnection: close\r\n"
            + headers.map { $0 + "\r\n" }.joined() + "Content-Length: \(body.utf8.count)\r\n\r\n" + body).utf8)
        let identity = #"{"credential":"api-key","merchant":"\#(merchant)"}"#
        let whoami = Array(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
            + "Content-Length: \(identity.utf8.count)\r\n\r\n" + identity).utf8)
        let thread = Thread {
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 {
                    // The listener is closed here, not in deinit: a number closed there could be
                    // reused by another test's listener before this loop calls accept again.
                    close(fd)
                    return
                }
                var buffer = [UInt8](repeating: 0, count: 65536)
                var received: [UInt8] = []
                // Read the head and a Content-Length body, then answer.
                while true {
                    let count = read(client, &buffer, buffer.count)
                    if count <= 0 { break }
                    received += buffer[0..<count]
                    let text = String(decoding: received, as: UTF8.self)
                    guard let end = text.range(of: "\r\n\r\n") else { continue }
                    let head = text[..<end.lowerBound].lowercased()
                    let declared = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                        .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                    if text.utf8.distance(from: end.upperBound, to: text.endIndex) >= declared { break }
                }
                let answer = received.starts(with: Array("GET /v1/whoami ".utf8)) ? whoami : response
                _ = answer.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
                close(client)
            }
        }
        thread.start()
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/") }

    deinit {
        shutdown(socket, Int32(SHUT_RDWR))  // wakes the accept loop, which closes the listener
    }
}

struct HTTPRemoteVaultTests {
    struct Canned: Sendable, CustomTestStringConvertible {
        var name: String
        var status: Int
        var headers: [String] = []
        var body: String
        var call: Call
        var expected: RemoteVaultError
        var testDescription: String { name }
        enum Call: Sendable { case changes, push, instruments }
    }

    static let tombstone = #"{"sequence":1,"id":"t","version":2,"deleted":true}"#

    static let cases: [Canned] = [
        Canned(name: "garbage", status: 200, body: "<html>hello</html>", call: .changes,
               expected: .malformedResponse(reason: "not valid JSON (line 1, column 1: unexpected character)")),
        Canned(name: "truncated", status: 200, body: #"{"changes":[{"sequence":1,"#, call: .changes,
               expected: .malformedResponse(reason: "not valid JSON (line 1, column 27: unexpected end of input)")),
        Canned(name: "wrong shape", status: 200, body: #"{"changes":"x","cursor":"v1.1","hasMore":false}"#, call: .changes,
               expected: .malformedResponse(reason: "changes: expected an array")),
        Canned(name: "missing hasMore", status: 200, body: #"{"changes":[],"cursor":"v1.1"}"#, call: .changes,
               expected: .malformedResponse(reason: "hasMore: required key is missing")),
        Canned(name: "live change without method", status: 200,
               body: #"{"changes":[{"sequence":1,"id":"t","version":2,"deleted":false}],"cursor":"v1.1","hasMore":false}"#,
               call: .changes, expected: .malformedResponse(reason: "changes[0].method: invalid value")),
        Canned(name: "unknown op status", status: 200, body: #"{"results":[{"opId":"o1","status":"maybe"}]}"#, call: .push,
               expected: .malformedResponse(reason: "results[0].status: invalid value")),
        Canned(name: "results not matching the ops", status: 200, body: #"{"results":[{"opId":"other","status":"applied"}]}"#,
               call: .push, expected: .malformedResponse(reason: "the results do not match the ops sent")),
        Canned(name: "instruments not a list", status: 200, body: #"{"instruments":{}}"#, call: .instruments,
               expected: .malformedResponse(reason: "instruments: expected an array")),
        Canned(name: "500 with error body", status: 500, body: #"{"error":{"code":"internal","message":"boom"}}"#, call: .changes,
               expected: .httpStatus(status: 500, code: "internal", message: "boom", retryAfterSeconds: nil)),
        Canned(name: "503 with Retry-After", status: 503, headers: ["Retry-After: 7"], body: "down", call: .instruments,
               expected: .httpStatus(status: 503, code: nil, message: nil, retryAfterSeconds: 7)),
        Canned(name: "410", status: 410, body: "{}", call: .changes, expected: .cursorExpired),
        Canned(name: "401", status: 401, body: "", call: .push, expected: .unauthorized),
    ]

    @Test("bad answers become typed errors and nothing is returned", arguments: cases)
    func cannedAnswers(_ canned: Canned) async throws {
        let server = try CannedHTTPServer(status: canned.status, headers: canned.headers, body: canned.body)
        let remote = HTTPRemoteVault(baseURL: server.url, apiKey: "k", timeout: 10)
        let scope = VaultScope(merchantId: "m", customerId: "c")
        await #expect(throws: canned.expected) {
            switch canned.call {
            case .changes: _ = try await remote.changes(scope: scope, cursor: "v1.1", limit: 10)
            case .push: _ = try await remote.push(scope: scope, ops: [OutboundOp(opId: "o1", kind: .delete, instrumentId: "t",
                                                                                  baseVersion: 1)])
            case .instruments: _ = try await remote.instruments(scope: scope)
            }
        }
        _ = server
    }

    @Test("a tombstone decodes without a method")
    func tombstoneDecodes() async throws {
        let server = try CannedHTTPServer(status: 200, body: #"{"changes":[\#(Self.tombstone)],"cursor":"v1.1","hasMore":false}"#)
        let page = try await HTTPRemoteVault(baseURL: server.url, apiKey: "k")
            .changes(scope: VaultScope(merchantId: "m", customerId: "c"), cursor: nil, limit: 10)
        #expect(page == ChangePage(changes: [.delete(token: "t", version: 2)], cursor: "v1.1", hasMore: false))
    }

    @Test("a server that is not there is unreachable, and retryable")
    func unreachable() async throws {
        // A port held but not listening: connections are refused, and no other test's server can
        // take it meanwhile (a just-freed port could be, under a loaded parallel run).
        let (fd, heldPort) = try LoopbackListener.open(listening: false)
        defer { close(fd) }
        let port = Int(heldPort)
        let remote = HTTPRemoteVault(baseURL: try #require(URL(string: "http://127.0.0.1:\(port)")), apiKey: "k", timeout: 5)
        do {
            _ = try await remote.instruments(scope: VaultScope(merchantId: "m", customerId: "c"))
            Issue.record("expected an error")
        } catch let error as RemoteVaultError {
            guard case .unreachable = error else { Issue.record("expected unreachable, got \(error)"); return }
            #expect(error.isRetryable)
        }
    }
}
