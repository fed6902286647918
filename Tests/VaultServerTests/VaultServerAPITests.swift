import CheckoutCore
import CheckoutCoreTesting
import CheckoutVault
import Foundation
import Testing
@testable import VaultServer
@testable import VaultServerPostgres

/// The HTTP API against a real server on loopback, once per storage.
struct VaultServerAPITests {
    @Test("health answers 200 without credentials", arguments: StorageKind.available)
    func health(_ kind: StorageKind) async throws {
        let server = try TestServer(kind)
        let response = try await server.send("GET", "/health", authorization: nil)
        #expect(response.status == 200)
        #expect(response.text == #"{"status":"ok"}"#)
        #expect(response.headers["content-type"] == "application/json")
    }

    @Test("missing, malformed or wrong credentials get 401", arguments: [
        nil, "", "Bearer", "Bearer ", "Basic a2V5OnNlY3JldA==", "bearer \(TestServer.keyA)",
        "Bearer \(TestServer.keyA)x", "Bearer key-merchant-a", "Bearer  \(TestServer.keyA)",
    ] as [String?])
    func unauthorized(_ authorization: String?) async throws {
        let server = try TestServer(.memory)
        for path in ["/v1/customers/c1/instruments", "/v1/customers/c1/changes"] {
            let response = try await server.send("GET", path, authorization: authorization)
            #expect(response.status == 401)
            #expect(response.errorCode == "unauthorized")
        }
        let ops = try await server.send("POST", "/v1/customers/c1/ops", authorization: authorization,
                                        body: Data(#"{"ops":[]}"#.utf8))
        #expect(ops.status == 401)
    }

    @Test("HTTPRemoteVault maps 401 to unauthorized")
    func remoteUnauthorized() async throws {
        let server = try TestServer(.memory)
        await #expect(throws: RemoteVaultError.unauthorized) {
            try await server.remote(apiKey: "nope").instruments(scope: Fixture.scope("c1"))
        }
    }

    @Test("another merchant's ids are 404 and change nothing", arguments: StorageKind.available)
    func crossMerchant(_ kind: StorageKind) async throws {
        let server = try TestServer(kind)
        let a = server.remote()
        let b = server.remote(apiKey: TestServer.keyB)
        let scope = Fixture.scope("shared-customer")
        // Merchant B's own customer of the same id: the client's binding check lets B's key
        // reach only merchant_b scopes, and the server must keep the two apart.
        let scopeB = VaultScope(merchantId: "merchant_b", customerId: "shared-customer")
        _ = try await a.push(scope: scope, ops: [Fixture.upsert("a1", Fixture.card("tok-a", isDefault: true))])
        let before = try await Fixture.allChanges(a, scope)

        #expect(try await b.instruments(scope: scopeB).isEmpty)
        #expect(try await b.changes(scope: scopeB, cursor: nil, limit: 10).changes.isEmpty)
        let deleted = try await server.send("DELETE", "/v1/customers/shared-customer/instruments/tok-a",
                                            authorization: "Bearer \(TestServer.keyB)")
        #expect(deleted.status == 404)
        #expect(deleted.errorCode == "not-found")
        let results = try await b.push(scope: scopeB, ops: [Fixture.delete("b1", "tok-a", base: 1),
                                                           Fixture.setDefault("b2", "tok-a", base: 1),
                                                           Fixture.upsert("b3", Fixture.card("tok-a", last4: "1111"), base: 1)])
        #expect(results == [
            OpResult(opId: "b1", status: .rejected, reason: "not-found", message: "no such instrument"),
            OpResult(opId: "b2", status: .rejected, reason: "not-found", message: "no such instrument"),
            OpResult(opId: "b3", status: .conflict, reason: "not-found",
                     message: "the instrument does not exist (it may have been deleted and purged)"),
        ])
        // Merchant A's op id reused by merchant B is B's own key: no 422, no replay of A's result.
        let reused = try await b.push(scope: scopeB, ops: [Fixture.setDefault("a1", "tok-a")])
        #expect(reused.map(\.status) == [.rejected])

        #expect(try await Fixture.allChanges(a, scope) == before)
        #expect(try await a.instruments(scope: scope) == [RemoteInstrument(id: "tok-a", version: 1,
                                                                           method: Fixture.card("tok-a", isDefault: true))])
    }

    @Test("the same op twice is applied once; the same id with another body is 422", arguments: StorageKind.available)
    func idempotency(_ kind: StorageKind) async throws {
        let server = try TestServer(kind)
        let remote = server.remote()
        let scope = Fixture.scope("c1")
        let op = Fixture.upsert("op-1", Fixture.card("tok-1"))
        let first = try await remote.push(scope: scope, ops: [op])
        let second = try await remote.push(scope: scope, ops: [op])
        #expect(first == [OpResult(opId: "op-1", status: .applied, version: 1)])
        #expect(second == first)
        let changes = try await Fixture.allChanges(remote, scope)
        #expect(changes == [RemoteChange(token: "tok-1", version: 1, method: Fixture.card("tok-1"))])

        let other = Fixture.upsert("op-1", Fixture.card("tok-1", last4: "0005"))
        await #expect(throws: RemoteVaultError.httpStatus(status: 422, code: "idempotency-key-reused",
                                                          message: "an op id was reused with a different body",
                                                          retryAfterSeconds: nil)) {
            try await remote.push(scope: scope, ops: [Fixture.upsert("op-2", Fixture.card("tok-2")), other])
        }
        // Nothing of the refused batch was applied, not even its valid first op.
        #expect(try await Fixture.allChanges(remote, scope) == changes)

        // The same op serialised with other key order and whitespace is the same op: replayed.
        let reordered = #"{ "ops" : [ { "method": {"isDefault":false,"analyticsId":"analytics-tok-1","id":"tok-1","#
            + #""paymentInstrumentType":"PAYMENT_CARD","paymentMethodType":"PAYMENT_CARD","paymentInstrumentData":"#
            + #"{"expirationYear":2030,"expirationMonth":12,"last4Digits":"4242","first6Digits":"424242","network":"VISA"}},"#
            + #" "instrumentId": "tok-1", "kind": "upsert", "opId": "op-1" } ] }"#
        let replay = try await server.send("POST", "/v1/customers/c1/ops", body: Data(reordered.utf8))
        #expect(replay.status == 200)
        #expect(replay.text == #"{"results":[{"opId":"op-1","status":"applied","version":1}]}"#)
        #expect(try await Fixture.allChanges(remote, scope) == changes)
    }

    @Test("delete wins over setDefault, in either order", arguments: StorageKind.available)
    func deleteWins(_ kind: StorageKind) async throws {
        let server = try TestServer(kind)
        let remote = server.remote()
        let scope = Fixture.scope("c1")
        _ = try await remote.push(scope: scope, ops: [Fixture.upsert("u1", Fixture.card("tok-1", isDefault: true)),
                                                      Fixture.upsert("u2", Fixture.card("tok-2", last4: "1111"))])
        // Device A deletes tok-2, then device B (still at version 1) makes it the default.
        let deleted = try await remote.push(scope: scope, ops: [Fixture.delete("a-del", "tok-2", base: 1)])
        let setDefault = try await remote.push(scope: scope, ops: [Fixture.setDefault("b-def", "tok-2", base: 1)])
        #expect(deleted == [OpResult(opId: "a-del", status: .applied, version: 2)])
        #expect(setDefault == [OpResult(opId: "b-def", status: .conflict, reason: "deleted", message: "the instrument was deleted",
                                        current: RemoteChange(token: "tok-2", version: 2, method: nil))])
        #expect(try await remote.instruments(scope: scope) == [
            RemoteInstrument(id: "tok-1", version: 1, method: Fixture.card("tok-1", isDefault: true)),
        ])

        // The other order: setDefault first, then delete; the delete still wins.
        _ = try await remote.push(scope: scope, ops: [Fixture.upsert("u3", Fixture.card("tok-3", last4: "0005"))])
        let results = try await remote.push(scope: scope, ops: [Fixture.setDefault("b-def3", "tok-3", base: 1),
                                                                 Fixture.delete("a-del3", "tok-3", base: 1)])
        #expect(results == [OpResult(opId: "b-def3", status: .applied, version: 2),
                            OpResult(opId: "a-del3", status: .applied, version: 3)])
        // tok-1 lost its default to tok-3 (version 2), and tok-3 is gone: no default is left.
        #expect(try await remote.instruments(scope: scope) == [
            RemoteInstrument(id: "tok-1", version: 2, method: Fixture.card("tok-1", isDefault: false)),
        ])
        // An upsert of a deleted instrument is a conflict too.
        let resurrect = try await remote.push(scope: scope, ops: [Fixture.upsert("u4", Fixture.card("tok-3"), base: 3)])
        #expect(resurrect.map(\.reason) == ["deleted"])
    }

    @Test("one default per customer; stale edits conflict with the server's state", arguments: StorageKind.available)
    func defaultsAndVersions(_ kind: StorageKind) async throws {
        let server = try TestServer(kind)
        let remote = server.remote()
        let scope = Fixture.scope("c1")
        let results = try await remote.push(scope: scope, ops: [
            Fixture.upsert("u1", Fixture.card("tok-1", isDefault: true)),
            Fixture.upsert("u2", Fixture.card("tok-2", isDefault: true)),
            Fixture.upsert("u3", Fixture.card("tok-3")),
            Fixture.setDefault("d3", "tok-3"),
            Fixture.upsert("u1b", Fixture.card("tok-1", name: "Ada"), base: 1),
        ])
        #expect(results.map(\.status) == [.applied, .applied, .applied, .applied, .conflict])
        #expect(results[4].reason == "version-mismatch")
        #expect(results[4].current == RemoteChange(token: "tok-1", version: 2, method: Fixture.card("tok-1")))
        let instruments = try await remote.instruments(scope: scope)
        #expect(instruments == [
            RemoteInstrument(id: "tok-3", version: 2, method: Fixture.card("tok-3", isDefault: true)),
            RemoteInstrument(id: "tok-1", version: 2, method: Fixture.card("tok-1")),
            RemoteInstrument(id: "tok-2", version: 2, method: Fixture.card("tok-2")),
        ])
        let edit = try await remote.push(scope: scope, ops: [Fixture.upsert("u1c", Fixture.card("tok-1", name: "Ada"), base: 2)])
        #expect(edit == [OpResult(opId: "u1c", status: .applied, version: 3)])
    }

    @Test("the change feed pages with hasMore and an opaque cursor, tombstones included", arguments: StorageKind.available)
    func changeFeed(_ kind: StorageKind) async throws {
        let server = try TestServer(kind)
        let remote = server.remote()
        let scope = Fixture.scope("c1")
        let ids = (0..<25).map { String(format: "tok-%02d", $0) }
        _ = try await remote.push(scope: scope, ops: ids.map { Fixture.upsert("op-\($0)", Fixture.card($0)) })

        var pages: [ChangePage] = []
        var cursor: String?
        repeat {
            let page = try await remote.changes(scope: scope, cursor: cursor, limit: 10)
            pages.append(page)
            cursor = page.cursor
        } while pages.last?.hasMore == true
        #expect(pages.map(\.changes.count) == [10, 10, 5])
        #expect(pages.map(\.hasMore) == [true, true, false])
        #expect(pages.flatMap(\.changes).map(\.token) == ids)
        #expect(Set(pages.map(\.cursor)).count == 3)

        let idle = try await remote.changes(scope: scope, cursor: cursor, limit: 10)
        #expect(idle == ChangePage(changes: [], cursor: try #require(cursor), hasMore: false))

        _ = try await remote.push(scope: scope, ops: [Fixture.delete("del-07", "tok-07", base: 1),
                                                      Fixture.upsert("edit-03", Fixture.card("tok-03", name: "Ada"), base: 1)])
        let next = try await remote.changes(scope: scope, cursor: cursor, limit: 10)
        #expect(next.changes == [RemoteChange(token: "tok-07", version: 2, method: nil),
                                 RemoteChange(token: "tok-03", version: 2, method: Fixture.card("tok-03", name: "Ada"))])
        #expect(!next.hasMore)

        // A fresh pull sees the compacted state: every instrument once, the tombstone included.
        let fresh = try await Fixture.allChanges(remote, scope, limit: 7)
        #expect(fresh.count == 25)
        #expect(fresh.filter(\.isDeleted).map(\.token) == ["tok-07"])
    }

    @Test("a cursor older than a purged tombstone gets 410", arguments: StorageKind.available)
    func cursorExpired(_ kind: StorageKind) async throws {
        let clock = TestClock()
        let server = try TestServer(kind, retentionSeconds: 60, clock: clock.wallClock)
        let remote = server.remote()
        let scope = Fixture.scope("c1")
        _ = try await remote.push(scope: scope, ops: [Fixture.upsert("u1", Fixture.card("tok-1")),
                                                      Fixture.upsert("u2", Fixture.card("tok-2"))])
        let old = try await remote.changes(scope: scope, cursor: nil, limit: 100).cursor
        _ = try await remote.push(scope: scope, ops: [Fixture.delete("d1", "tok-1", base: 1)])
        let current = try await remote.changes(scope: scope, cursor: old, limit: 100)
        #expect(current.changes == [RemoteChange(token: "tok-1", version: 2, method: nil)])

        clock.advance(by: .seconds(30))
        #expect(try await remote.changes(scope: scope, cursor: old, limit: 100).changes.count == 1)

        clock.advance(by: .seconds(31))
        await #expect(throws: RemoteVaultError.cursorExpired) {
            try await remote.changes(scope: scope, cursor: old, limit: 100)
        }
        let raw = try await server.send("GET", "/v1/customers/c1/changes?cursor=\(old)")
        #expect(raw.status == 410)
        #expect(raw.errorCode == "cursor-expired")
        // A cursor past the tombstone and a pull from scratch still work; the tombstone is gone.
        #expect(try await remote.changes(scope: scope, cursor: current.cursor, limit: 100).changes.isEmpty)
        let fresh = try await Fixture.allChanges(remote, scope)
        #expect(fresh == [RemoteChange(token: "tok-2", version: 1, method: Fixture.card("tok-2"))])
    }

    /// Cursors of retired formats: v2 (the shape of every v2 cursor: 32 letters a to p) and v1,
    /// the bare sequence in hex, which any customer could once choose (`v1.7fffffffffffffff`
    /// skipped every future change).
    static let formerCursors = ["v2.hhkcpmhfbbmdbodknpjlpfcgoahmhnoi", "v1.7fffffffffffffff", "v1.0", "v1.1"]

    @Test("a v1 or v2 cursor from before the upgrade gets 400 invalid-cursor, which the client treats as a reset",
          arguments: StorageKind.available, formerCursors)
    func formerCursorRefused(_ kind: StorageKind, _ former: String) async throws {
        let server = try TestServer(kind)
        let remote = server.remote()
        let scope = Fixture.scope("c1")
        _ = try await remote.push(scope: scope, ops: [Fixture.upsert("u1", Fixture.card("tok-1"))])
        let raw = try await server.send("GET", "/v1/customers/c1/changes?cursor=\(former)")
        #expect(raw.status == 400)
        #expect(raw.errorCode == "invalid-cursor")
        do {
            _ = try await remote.changes(scope: scope, cursor: former, limit: 10)
            Issue.record("the cursor \(former) was accepted")
        } catch let error as RemoteVaultError {
            #expect(error.requiresReset, "\(error)")
        }
        // A pull from scratch still works and hands out a v3 cursor.
        let fresh = try await remote.changes(scope: scope, cursor: nil, limit: 10)
        #expect(fresh.changes.map(\.token) == ["tok-1"])
        #expect(fresh.cursor.hasPrefix("v4."))
    }

    @Test("a body over the limit gets 413, as do too many ops", arguments: StorageKind.available)
    func bodyTooLarge(_ kind: StorageKind) async throws {
        let server = try TestServer(kind, limits: .init(maxBodyBytes: 2048, maxOpsPerBatch: 3))
        let big = Data(#"{"ops":[{"opId":"x","kind":"delete","instrumentId":"\#(String(repeating: "a", count: 4000))"}]}"#.utf8)
        let response = try await server.send("POST", "/v1/customers/c1/ops", body: big)
        #expect(response.status == 413)
        #expect(response.errorCode == "payload-too-large")

        let ops = (0..<4).map { Fixture.delete("d\($0)", "tok-\($0)") }
        await #expect(throws: RemoteVaultError.httpStatus(status: 413, code: "too-many-ops",
                                                          message: "a batch may carry at most 3 ops", retryAfterSeconds: nil)) {
            try await server.remote().push(scope: Fixture.scope("c1"), ops: ops)
        }
        #expect(try await server.remote().instruments(scope: Fixture.scope("c1")).isEmpty)
    }

    struct BadRequest: Sendable, CustomTestStringConvertible {
        var name: String
        var method: String
        var path: String
        var body: [UInt8]?
        var code: String
        var testDescription: String { name }
    }

    static let badRequests: [BadRequest] = [
        BadRequest(name: "truncated JSON", method: "POST", path: "/v1/customers/c1/ops", body: Array(#"{"ops":[{"opId":"a""#.utf8),
                   code: "invalid-json"),
        BadRequest(name: "not JSON", method: "POST", path: "/v1/customers/c1/ops", body: Array("hello".utf8), code: "invalid-json"),
        BadRequest(name: "invalid UTF-8", method: "POST", path: "/v1/customers/c1/ops",
                   body: Array(#"{"ops":[{"opId":""#.utf8) + [0xC3, 0x28] + Array(#""}]}"#.utf8), code: "invalid-utf8"),
        BadRequest(name: "deep nesting", method: "POST", path: "/v1/customers/c1/ops",
                   body: Array((#"{"ops":"# + String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000) + "}").utf8),
                   code: "too-deep"),
        BadRequest(name: "ops not an array", method: "POST", path: "/v1/customers/c1/ops", body: Array(#"{"ops":{}}"#.utf8),
                   code: "invalid-json"),
        BadRequest(name: "empty ops", method: "POST", path: "/v1/customers/c1/ops", body: Array(#"{"ops":[]}"#.utf8),
                   code: "invalid-request"),
        BadRequest(name: "op without id", method: "POST", path: "/v1/customers/c1/ops",
                   body: Array(#"{"ops":[{"kind":"delete","instrumentId":"t"}]}"#.utf8), code: "invalid-op-id"),
        BadRequest(name: "duplicate op id", method: "POST", path: "/v1/customers/c1/ops",
                   body: Array(#"{"ops":[{"opId":"a","kind":"delete","instrumentId":"t"},{"opId":"a","kind":"delete","instrumentId":"t"}]}"#.utf8),
                   code: "duplicate-op-id"),
        BadRequest(name: "foreign cursor", method: "GET", path: "/v1/customers/c1/changes?cursor=abc", body: nil, code: "invalid-cursor"),
        BadRequest(name: "negative limit", method: "GET", path: "/v1/customers/c1/changes?limit=-1", body: nil, code: "invalid-limit"),
        BadRequest(name: "non-numeric limit", method: "GET", path: "/v1/customers/c1/changes?limit=ten", body: nil, code: "invalid-limit"),
        BadRequest(name: "customer id with spaces", method: "GET", path: "/v1/customers/a%20b/instruments", body: nil,
                   code: "invalid-customer"),
    ]

    @Test("bad input gets 400 with a stable code and changes nothing", arguments: badRequests)
    func badRequest(_ testCase: BadRequest) async throws {
        let server = try TestServer(.memory)
        let response = try await server.send(testCase.method, testCase.path, body: testCase.body.map { Data($0) })
        #expect(response.status == 400)
        #expect(response.errorCode == testCase.code)
        #expect(try await server.remote().instruments(scope: Fixture.scope("c1")).isEmpty)
    }

    @Test("an op holding a card number is rejected, never stored and never echoed", arguments: StorageKind.available)
    func cardNumberRefused(_ kind: StorageKind) async throws {
        let server = try TestServer(kind)
        let remote = server.remote()
        let scope = Fixture.scope("c1")
        let pan = "4111111111111111"
        let results = try await remote.push(scope: scope, ops: [
            Fixture.upsert("p1", Fixture.card("tok-1", name: "4111 1111 1111 1111")),
            Fixture.upsert("ok", Fixture.card("tok-2")),
            OutboundOp(opId: "p2", kind: .upsert, instrumentId: "tok-3", baseVersion: nil,
                       method: VaultedPaymentMethod(id: "tok-3", paymentMethodType: .paymentCard,
                                                    paymentInstrumentType: .paymentCard,
                                                    paymentInstrumentData: PaymentInstrumentData(first6Digits: "411111",
                                                                                                 last4Digits: "1111"),
                                                    analyticsId: pan)),
        ])
        #expect(results.map(\.status) == [.rejected, .applied, .rejected])
        #expect(results.map(\.reason) == ["sensitive-data-rejected", nil, "sensitive-data-rejected"])
        #expect(try await remote.instruments(scope: scope).map(\.id) == ["tok-2"])

        // As a raw JSON number where the op has text, and inside the op id: refused without echo.
        let numeric = try await server.send("POST", "/v1/customers/c1/ops", body: Data(
            #"{"ops":[{"opId":"p4","kind":"delete","instrumentId":4111111111111111}]}"#.utf8))
        #expect(numeric.status == 200)
        #expect(numeric.text.contains("sensitive-data-rejected"))
        let inId = try await server.send("POST", "/v1/customers/c1/ops", body: Data(
            #"{"ops":[{"opId":"4111-1111-1111-1111","kind":"delete","instrumentId":"tok-2"}]}"#.utf8))
        let inPath = try await server.send("GET", "/v1/customers/\(pan)/instruments")
        for response in [numeric, inId, inPath] {
            #expect(!response.text.contains("1111111111"))
            #expect(!response.text.contains("4111-1111"))
        }
        let escaped = try await server.send("POST", "/v1/customers/c1/ops", body: Data(
            #"{"ops":[{"opId":"p5","kind":"upsert","instrumentId":"tok-5","method":{"id":"tok-5","paymentMethodType":"PAYMENT_CARD","paymentInstrumentType":"PAYMENT_CARD","paymentInstrumentData":{"cardholderName":"\u0034111111111111111"},"analyticsId":"x","isDefault":false}}]}"#.utf8))
        #expect(escaped.text == #"{"results":[{"opId":"p5","status":"rejected","reason":"sensitive-data-rejected","message":"the op holds something that looks like a card number"}]}"#)
        #expect(inId.status == 400)
        #expect(inPath.status == 400)
        #expect(try await remote.instruments(scope: scope).map(\.id) == ["tok-2"])
        if let schema = server.schema {
            // Nothing anywhere in the schema's tables holds the number, in any spacing.
            let connection = try schema.connect()
            for table in ["vault_instrument", "vault_op_log", "vault_purge_horizon"] {
                let hits = try connection.execute("""
                    SELECT count(*) FROM \(table) AS t
                    WHERE strpos(regexp_replace(t::text, '[^0-9]', '', 'g'), '4111111111111111') > 0
                    """)
                #expect(try hits.int64(0, 0) == 0, "\(table) holds a card number")
            }
        }
        if let path = server.databasePath {
            server.server.stop()
            for suffix in ["", "-wal"] {
                let bytes = (try? Data(contentsOf: URL(fileURLWithPath: path + suffix))) ?? Data()
                #expect(bytes.range(of: Data(pan.utf8)) == nil)
                #expect(bytes.range(of: Data("4111 1111".utf8)) == nil)
            }
        }
    }

    @Test("429 with Retry-After over the rate limit, until tokens refill", arguments: StorageKind.available)
    func rateLimited(_ kind: StorageKind) async throws {
        let clock = TestClock()
        // A burst of 3: the remote's whoami (its merchant binding check) and two listings.
        let server = try TestServer(kind, limits: .init(rateLimitPerSecond: 1, rateLimitBurst: 3), clock: clock.wallClock)
        let remote = server.remote()
        let scope = Fixture.scope("c1")
        _ = try await remote.instruments(scope: scope)
        _ = try await remote.instruments(scope: scope)
        let limited = try await server.send("GET", "/v1/customers/c1/instruments")
        #expect(limited.status == 429)
        #expect(limited.headers["retry-after"] == "1")
        #expect(limited.errorCode == "rate-limited")
        await #expect(throws: RemoteVaultError.httpStatus(status: 429, code: "rate-limited", message: "too many requests",
                                                          retryAfterSeconds: 1)) {
            try await remote.instruments(scope: scope)
        }
        // Another merchant has its own bucket.
        #expect(try await server.remote(apiKey: TestServer.keyB)
            .instruments(scope: VaultScope(merchantId: "merchant_b", customerId: "c1")).isEmpty)
        clock.advance(by: .seconds(1))
        #expect(try await remote.instruments(scope: scope).isEmpty)
    }
}
