import CheckoutCore
import CheckoutVault
import CheckoutVaultTesting
import Foundation
import Testing

/// The server's limits, retention and purge, asserted alike against the in-memory double and the
/// real server (on SQLite, and on PostgreSQL where configured): the double is only useful while
/// nothing a test can see tells them apart.
@Suite("RemoteVault contract: limits, expiry and purge", .timeLimit(.minutes(5)))
struct RemoteLimitsContractTests {
    let scope = Fixture.scope("cus_limits")

    @Test("a customer holds at most its cap of live instruments; a delete makes room", arguments: RemoteKind.contract)
    func instrumentCap(kind: RemoteKind) async throws {
        let remote = try RemoteHarness(kind, limits: RemoteLimits(maxInstrumentsPerCustomer: 3)).remote
        let results = try await remote.push(scope: scope, ops: (1...4).map { Fixture.upsert("op-\($0)", Fixture.card("tok_\($0)")) })
        #expect(results.map(\.status) == [.applied, .applied, .applied, .rejected])
        #expect(results.last?.reason == "instrument-limit-reached")
        #expect(results.last?.message == "a customer holds at most 3 instruments; delete one first")
        // Editing one at the cap is fine; a delete makes room for a new one.
        let edit = try await remote.push(scope: scope, ops: [Fixture.upsert("op-5", Fixture.card("tok_1", last4: "1111"), base: 1),
                                                             Fixture.delete("op-6", "tok_2", base: 1),
                                                             Fixture.upsert("op-7", Fixture.card("tok_4"))])
        #expect(edit.map(\.status) == [.applied, .applied, .applied])
        #expect(try await remote.instruments(scope: scope).map(\.id) == ["tok_1", "tok_3", "tok_4"])
    }

    @Test("a feed page is bounded by bytes as well as rows: the row that crosses the bound waits", arguments: RemoteKind.contract)
    func pagesBoundedByBytes(kind: RemoteKind) async throws {
        // Each row is about 1 KB by the server's measure (64 bytes, 6 per id byte, the method's
        // JSON) with 100-byte ids: three fit in 3,500 bytes, four do not, whatever the few bytes
        // the two JSON encodings differ by.
        let remote = try RemoteHarness(kind, limits: RemoteLimits(maxFeedPageBytes: 3_500)).remote
        let ids = (1...7).map { "tok_\($0)_" + String(repeating: "x", count: 94) }
        _ = try await remote.push(scope: scope, ops: ids.enumerated().map { Fixture.upsert("op-\($0.offset)", Fixture.card($0.element)) })
        #expect(try await remote.instruments(scope: scope).count == 7)
        var sizes: [Int] = []
        var cursor: String?
        var more = true
        while more {
            let page = try await remote.changes(scope: scope, cursor: cursor, limit: 100)
            sizes.append(page.changes.count)
            cursor = page.cursor
            more = page.hasMore
        }
        #expect(sizes == [3, 3, 1])
    }

    @Test("within its retention a replayed op gets its recorded answer, even after later edits; after it, the op is applied anew",
          arguments: RemoteKind.contract)
    func opRecordRetention(kind: RemoteKind) async throws {
        let harness = try RemoteHarness(kind, retentionSeconds: 3_600, limits: RemoteLimits(opRecordRetentionSeconds: 600))
        let remote = harness.remote
        _ = try await remote.push(scope: scope, ops: [Fixture.upsert("op-1", Fixture.card("tok_a"))])
        let edit = Fixture.upsert("op-2", Fixture.card("tok_a", last4: "2222"), base: 1)
        #expect(try await remote.push(scope: scope, ops: [edit]) == [OpResult(opId: "op-2", status: .applied, version: 2)])
        _ = try await remote.push(scope: scope, ops: [Fixture.upsert("op-3", Fixture.card("tok_a", last4: "3333"), base: 2)])
        harness.time.advance(seconds: 300)
        try harness.purgeExpired()
        // Replayed within the retention: the recorded answer, nothing applied.
        #expect(try await remote.push(scope: scope, ops: [edit]) == [OpResult(opId: "op-2", status: .applied, version: 2)])
        #expect(try await remote.instruments(scope: scope).map(\.version) == [3])
        harness.time.advance(seconds: 301)
        try harness.purgeExpired()
        // The record is gone: the op is judged again, against version 3.
        #expect(try await remote.push(scope: scope, ops: [edit]) == [
            OpResult(opId: "op-2", status: .conflict, reason: "version-mismatch", message: "the instrument changed on the server",
                     current: .upsert(Fixture.card("tok_a", last4: "3333"), version: 3)),
        ])
    }

    @Test("the background purge removes a tombstone past its retention without a feed read: a later delete finds nothing",
          arguments: RemoteKind.contract)
    func tombstonePurgedWithoutFeedRead(kind: RemoteKind) async throws {
        let harness = try RemoteHarness(kind, retentionSeconds: 60)
        let remote = harness.remote
        _ = try await remote.push(scope: scope, ops: [Fixture.upsert("op-1", Fixture.card("tok_a"))])
        #expect(try await remote.push(scope: scope, ops: [Fixture.delete("op-2", "tok_a")])
                == [OpResult(opId: "op-2", status: .applied, version: 2)])
        #expect(try await remote.push(scope: scope, ops: [Fixture.delete("op-3", "tok_a")])
                == [OpResult(opId: "op-3", status: .applied, version: 2)])
        harness.time.advance(seconds: 61)
        try harness.purgeExpired()
        #expect(try await remote.push(scope: scope, ops: [Fixture.delete("op-4", "tok_a")])
                == [OpResult(opId: "op-4", status: .rejected, reason: "not-found", message: "no such instrument")])
    }

    @Test("past the tombstone cap the oldest tombstones go early, and a cursor from before them is 410", arguments: RemoteKind.contract)
    func tombstoneCap(kind: RemoteKind) async throws {
        let harness = try RemoteHarness(kind, limits: RemoteLimits(maxTombstonesPerCustomer: 2))
        let remote = harness.remote
        _ = try await remote.push(scope: scope, ops: (1...5).map { Fixture.upsert("op-\($0)", Fixture.card("tok_\($0)")) })
        let early = try await remote.changes(scope: scope, cursor: nil, limit: 1)
        for index in 1...4 {
            harness.time.advance(seconds: 1)
            _ = try await remote.push(scope: scope, ops: [Fixture.delete("del-\(index)", "tok_\(index)", base: 1)])
        }
        #expect(try await allChanges(remote, scope) == [.upsert(Fixture.card("tok_5"), version: 1),
                                                        .delete(token: "tok_3", version: 2), .delete(token: "tok_4", version: 2)])
        await #expect(throws: RemoteVaultError.cursorExpired) {
            try await remote.changes(scope: scope, cursor: early.cursor, limit: 10)
        }
    }

    @Test("a customer's write budget: past it a batch is 429 write-budget-exhausted with Retry-After and nothing applies",
          arguments: RemoteKind.contract)
    func writeBudget(kind: RemoteKind) async throws {
        let harness = try RemoteHarness(kind, limits: RemoteLimits(maxOpsPerBatch: 4, customerWriteOpsBurst: 4,
                                                                      customerWriteOpsPerHour: 3_600))
        let remote = harness.remote
        _ = try await remote.push(scope: scope, ops: (1...3).map { Fixture.upsert("op-\($0)", Fixture.card("tok_\($0)")) })
        await #expect(throws: RemoteVaultError.httpStatus(
            status: 429, code: "write-budget-exhausted",
            message: "this key or customer has written too many ops lately; nothing was applied, retry later", retryAfterSeconds: 1)) {
            try await remote.push(scope: scope, ops: [Fixture.upsert("op-4", Fixture.card("tok_4")),
                                                      Fixture.upsert("op-5", Fixture.card("tok_5"))])
        }
        #expect(try await remote.instruments(scope: scope).count == 3)
        harness.time.advance(seconds: 1)
        #expect(try await remote.push(scope: scope, ops: [Fixture.upsert("op-4", Fixture.card("tok_4")),
                                                          Fixture.upsert("op-5", Fixture.card("tok_5"))]).map(\.status)
                == [.applied, .applied])
    }

    @Test("an instrument field over its limit is rejected with the field's reason", arguments: RemoteKind.contract)
    func fieldLimits(kind: RemoteKind) async throws {
        let remote = try RemoteHarness(kind).remote
        var method = Fixture.card("tok_a")
        method.analyticsId = String(repeating: "a", count: InstrumentLimits.maxAnalyticsIdLength + 1)
        let results = try await remote.push(scope: scope, ops: [Fixture.upsert("op-1", method)])
        let violation = try #require(InstrumentLimits.violation(of: method))
        #expect(results == [OpResult(opId: "op-1", status: .rejected, reason: violation.reason, message: violation.message)])
    }

    @Test("a payer field over its limit is rejected with the field's reason", arguments: RemoteKind.contract)
    func payerFieldLimits(kind: RemoteKind) async throws {
        let remote = try RemoteHarness(kind).remote
        let method = Fixture.payPalAgreement("tok_pp", email: String(repeating: "a", count: InstrumentLimits.maxPayerEmailLength - 11)
                                             + "@example.com")
        let violation = try #require(InstrumentLimits.violation(of: method))
        #expect(violation.field == "paymentInstrumentData.externalPayerInfo.email")
        let results = try await remote.push(scope: scope, ops: [Fixture.upsert("op-1", method)])
        #expect(results == [OpResult(opId: "op-1", status: .rejected, reason: violation.reason, message: violation.message)])
    }

    /// Every answer of `script` against `remote` as bytes (sorted-key JSON; an error as its
    /// description), with each distinct cursor replaced by its order of appearance: cursors are
    /// the one thing the two may spell differently (the server's are enciphered).
    static func transcript(_ remote: any RemoteVault, _ harness: RemoteHarness, scope: VaultScope) async throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var lines: [String] = []
        var cursors: [String: Int] = [:]
        func cursorName(_ cursor: String) -> String {
            if let known = cursors[cursor] { return "cursor-\(known)" }
            cursors[cursor] = cursors.count
            return "cursor-\(cursors.count - 1)"
        }
        func record(_ step: String, _ body: () async throws -> String) async {
            do { lines.append(step + " " + (try await body())) } catch { lines.append(step + " error " + String(describing: error)) }
        }
        func page(_ cursor: String?, _ limit: Int) async throws -> String {
            let page = try await remote.changes(scope: scope, cursor: cursor, limit: limit)
            return String(decoding: try encoder.encode(page.changes), as: UTF8.self) + " more=\(page.hasMore) " + cursorName(page.cursor)
        }
        func push(_ ops: [OutboundOp]) async throws -> String {
            String(decoding: try encoder.encode(try await remote.push(scope: scope, ops: ops)), as: UTF8.self)
        }
        var cursor: String?
        await record("push") { try await push([Fixture.upsert("s-1", Fixture.card("tok_a", isDefault: true)),
                                               Fixture.upsert("s-2", Fixture.card("tok_b")),
                                               Fixture.upsert("s-3", Fixture.card("tok_c", last4: "4444"))]) }
        await record("page") {
            let text = try await page(nil, 2)
            cursor = try await remote.changes(scope: scope, cursor: nil, limit: 2).cursor
            return text
        }
        await record("push") { try await push([Fixture.setDefault("s-4", "tok_b", base: 1),
                                               Fixture.delete("s-5", "tok_c", base: 1),
                                               Fixture.upsert("s-6", Fixture.card("tok_c"), base: 1),
                                               Fixture.upsert("s-7", Fixture.card("tok_x"), base: 3),
                                               Fixture.setDefault("s-8", "tok_y")]) }
        await record("replay") { try await push([Fixture.setDefault("s-4", "tok_b", base: 1)]) }
        await record("reused") { try await push([Fixture.setDefault("s-4", "tok_a", base: 1)]) }
        await record("page") { try await page(cursor, 10) }
        await record("instruments") { String(decoding: try encoder.encode(try await remote.instruments(scope: scope)), as: UTF8.self) }
        await record("bad cursor") { try await page("v1.zz", 10) }
        await record("bad limit") { try await page(nil, 0) }
        harness.time.advance(seconds: 3_601)
        try harness.purgeExpired()
        await record("expired") { try await page(cursor, 10) }
        await record("fresh") { try await page(nil, 10) }
        return Array(lines.joined(separator: "\n").utf8)
    }

    @Test("a scripted session gets the same answers, byte for byte, from the double and from the server")
    func scriptedSessionByteForByte() async throws {
        let double = try RemoteHarness(.inMemory)
        let expected = try await Self.transcript(double.remote, double, scope: scope)
        for kind in RemoteKind.contract where kind != .inMemory {
            let server = try RemoteHarness(kind)
            let answered = try await Self.transcript(server.remote, server, scope: scope)
            #expect(answered == expected, "\(kind):\n\(String(decoding: answered, as: UTF8.self))\nthe double:\n\(String(decoding: expected, as: UTF8.self))")
        }
        #expect(String(decoding: expected, as: UTF8.self).split(separator: "\n").count == 11)
    }
}
