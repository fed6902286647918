import CheckoutCore
import CheckoutTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import VaultServer

/// A change-feed page over one block is streamed into libmicrohttpd (`FeedStream`), never built
/// whole; a smaller one is written whole by the same stream first. These tests hold the wire to
/// the whole encoding either way, and the stream's lifetime to libmicrohttpd's free callback.
struct FeedStreamingTests {
    /// Stores `rows` for merchant A's `customer` straight into storage, as legacy rows (no limits).
    static func store(_ server: TestServer, customer: String, _ rows: [(id: String, name: String?, isDefault: Bool, deleted: Bool)]) throws {
        let key = CustomerKey(merchant: "merchant_a", customer: customer)
        let now = WallClock.system.nowMillis
        try server.storage.transaction { tx in
            _ = try tx.instrument(key, id: rows[0].id)  // PostgreSQL: the customer's lock, before any sequence
            for row in rows {
                let json = row.deleted ? nil : try FeedEncoderTests.methodJSON(row.id, name: row.name)
                try tx.put(key, InstrumentRecord(id: row.id, version: 1, sequence: try tx.nextSequence(), deleted: row.deleted,
                                                 isDefault: row.isDefault, methodJSON: json, deletedAt: row.deleted ? now : nil))
            }
        }
    }

    /// The page `GET /changes` answers from the start, encoded whole by the reference encoder.
    static func reference(_ server: TestServer, customer: String, limit: Int = 1000) throws -> [UInt8] {
        let service = VaultService(storage: server.storage, retentionMillis: 3_600_000)
        let page = try service.changes(CustomerKey(merchant: "merchant_a", customer: customer), after: nil, limit: limit,
                                       now: WallClock.system.nowMillis)
        return try WholeFeedEncoding.encode(page)
    }

    @Test("the served page is the whole encoding byte for byte, with its exact Content-Length", arguments: StorageKind.available)
    func servedPageIsTheWholeEncoding(kind: StorageKind) async throws {
        let server = try TestServer(kind)
        // Close to the byte bound, over many of libmicrohttpd's blocks: large rows, a default,
        // a tombstone, small rows.
        var rows: [(id: String, name: String?, isDefault: Bool, deleted: Bool)] = []
        for index in 0..<9 { rows.append(("tok_\(index)", String(repeating: "n", count: 110_000), index == 2, false)) }
        rows.append(("tok_gone", nil, false, true))
        for index in 9..<40 { rows.append(("tok_\(index)", nil, false, false)) }
        try Self.store(server, customer: "c1", rows)
        let reference = try Self.reference(server, customer: "c1")
        #expect(reference.count > 900_000)

        let answer = try RawHTTP.call(port: server.port, "GET", "/v1/customers/c1/changes?limit=1000", key: TestServer.keyA)
        #expect(answer.status == 200)
        #expect(answer.header("content-length") == String(reference.count))
        #expect(answer.header("transfer-encoding") == nil)
        #expect(answer.body == reference)
        #expect(await eventually { server.server.openFeedStreams == 0 })

        // An empty feed is served too.
        let empty = try RawHTTP.call(port: server.port, "GET", "/v1/customers/c_none/changes", key: TestServer.keyA)
        #expect(empty.status == 200)
        #expect(empty.body == (try Self.reference(server, customer: "c_none")))
        #expect(empty.header("content-length") == String(empty.body.count))

        // A page within one block (written whole): a default, a tombstone, ids to escape.
        var small: [(id: String, name: String?, isDefault: Bool, deleted: Bool)] = []
        for index in 0..<20 { small.append(("tok_\(index)", index == 4 ? #"Ada "q" \ é"# : nil, index == 7, index == 11)) }
        try Self.store(server, customer: "c2", small)
        let smallReference = try Self.reference(server, customer: "c2")
        #expect(smallReference.count > 2_000 && smallReference.count < 64 * 1024)
        let smallAnswer = try RawHTTP.call(port: server.port, "GET", "/v1/customers/c2/changes?limit=1000", key: TestServer.keyA)
        #expect(smallAnswer.status == 200)
        #expect(smallAnswer.header("content-length") == String(smallReference.count))
        #expect(smallAnswer.body == smallReference)
        #expect(await eventually { server.server.openFeedStreams == 0 })
    }

    @Test("a client that reads half a large page and leaves releases its stream once; the server keeps serving")
    func clientLeavingMidPage() async throws {
        let server = try TestServer(.memory)
        // One legacy row of 16 MiB: a page of its own, far more than the socket buffers hold, so
        // the answer is still being written when the client goes.
        try Self.store(server, customer: "c1", [("tok_big", String(repeating: "n", count: 16 << 20), true, false)])
        try Self.store(server, customer: "c2", [("tok_small", nil, false, false)])
        let reference = try Self.reference(server, customer: "c1")

        let fd = try RawHTTP.connect(port: server.port)
        var small: Int32 = 16 * 1024
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        let request = RawHTTP.request("GET", path: Array("/v1/customers/c1/changes".utf8),
                                      headers: [("Authorization", "Bearer \(TestServer.keyA)")], close: false)
        #expect(RawHTTP.writeAll(fd, request))
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while received.count < reference.count / 2 {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received += chunk[0..<count]
        }
        #expect(received.count >= reference.count / 2)
        let head = try #require(RawHTTP.headEnd(received))
        #expect(RawHTTP.parse(Array(received[0..<(head + 4)]))?.header("content-length") == String(reference.count))
        #expect(Array(received[(head + 4)...]) == Array(reference.prefix(received.count - head - 4)))
        // Mid-answer: libmicrohttpd still holds the stream.
        #expect(server.server.openFeedStreams == 1)
        close(fd)

        #expect(await eventually { server.server.openFeedStreams == 0 },
                "the stream of the abandoned answer was not released")
        // The server keeps serving, pages big and small; each answer releases its stream.
        let other = try RawHTTP.call(port: server.port, "GET", "/v1/customers/c2/changes", key: TestServer.keyA)
        #expect(other.status == 200)
        #expect(other.body == (try Self.reference(server, customer: "c2")))
        let again = try RawHTTP.call(port: server.port, "GET", "/v1/customers/c1/changes", key: TestServer.keyA)
        #expect(again.status == 200)
        #expect(again.body == reference)
        #expect(await eventually { server.server.openFeedStreams == 0 })
    }
}
