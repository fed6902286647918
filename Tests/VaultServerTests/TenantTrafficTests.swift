import CheckoutCore
import CheckoutVault
import Foundation
import Testing
@testable import VaultServer

/// Nothing a merchant reads moves with another merchant's traffic: no server-wide counter on the
/// wire, in any answer (feed, op results and their conflicts, replays, delete answers).
struct TenantTrafficTests {
    /// One round of merchant A's calls for `customer`: every answer's raw body, in order.
    /// The calls cover each answer that carries a change: applied and conflicting ops, a replayed
    /// conflict, a delete, the feed from the start and paged, and the instrument list.
    static func round(_ server: TestServer, customer: String) async throws -> [String] {
        let base = "/v1/customers/\(customer)"
        struct Batch: Encodable { var ops: [OutboundOp] }
        func ops(_ ops: [OutboundOp]) throws -> Data { try JSONEncoder().encode(Batch(ops: ops)) }
        var answers: [String] = []
        func call(_ method: String, _ path: String, _ body: Data? = nil) async throws -> RawResponse {
            let response = try await server.send(method, base + path, body: body)
            #expect(response.status == 200, "\(method) \(path): \(response.text)")
            answers.append(response.text)
            return response
        }
        _ = try await call("POST", "/ops", try ops([Fixture.upsert("a-1", Fixture.card("tok-1", isDefault: true)),
                                                Fixture.upsert("a-2", Fixture.card("tok-2")),
                                                Fixture.upsert("a-3", Fixture.card("tok-3"))]))
        // A stale edit and an edit of a deleted instrument conflict and carry the server's state.
        _ = try await call("DELETE", "/instruments/tok-3")
        let conflicts = try ops([Fixture.upsert("a-4", Fixture.card("tok-1", last4: "1111"), base: 0),
                             Fixture.upsert("a-5", Fixture.card("tok-3", last4: "3333"), base: 1),
                             Fixture.setDefault("a-6", "tok-2", base: 1)])
        _ = try await call("POST", "/ops", conflicts)
        _ = try await call("POST", "/ops", conflicts)  // replayed from the op log
        let first = try await call("GET", "/changes?limit=2")
        let cursor = try #require(try JSONSerialization.jsonObject(with: first.body) as? [String: Any])["cursor"] as? String
        _ = try await call("GET", "/changes?limit=2&cursor=\(try #require(cursor))")
        _ = try await call("GET", "/changes")
        _ = try await call("GET", "/instruments")
        return answers
    }

    /// `text` with every cursor replaced by `*` (cursors are bound to their customer).
    static func maskCursors(_ text: String) -> String {
        text.replacingOccurrences(of: #""cursor":"[^"]*""#, with: #""cursor":"*""#, options: .regularExpression)
    }

    @Test("merchant B's writes between two of A's rounds change nothing in A's answers", arguments: StorageKind.available)
    func otherMerchantsWritesAreInvisible(_ kind: StorageKind) async throws {
        let server = try TestServer(kind)
        let before = try await Self.round(server, customer: "cust-first")
        let feedBefore = try await server.send("GET", "/v1/customers/cust-first/changes")

        // Merchant B writes N times: creations, edits and deletes, each taking server sequences.
        let b = server.remote(apiKey: TestServer.keyB)
        let writes = 25
        for index in 0..<writes {
            let op: OutboundOp = index % 5 == 4 ? Fixture.delete("b-\(index)", "tok-b-\(index - 1)")
                                                : Fixture.upsert("b-\(index)", Fixture.card("tok-b-\(index)"))
            #expect(try await b.push(scope: Fixture.scope("cust-b", merchant: "merchant_b"), ops: [op]).map(\.status) == [.applied])
        }

        // The same customer's feed reads the same bytes, cursor included.
        let feedAfter = try await server.send("GET", "/v1/customers/cust-first/changes")
        #expect(feedAfter.text == feedBefore.text)
        // A second customer of A with the same history gets the same answers, byte for byte.
        let after = try await Self.round(server, customer: "cust-second")
        #expect(after.count == before.count)
        for (index, (old, new)) in zip(before, after).enumerated() {
            #expect(Self.maskCursors(new) == Self.maskCursors(old), "answer \(index) differs")
        }
        // And no answer names a sequence at all.
        #expect(!(before + after).contains { $0.contains("sequence") })
    }
}
