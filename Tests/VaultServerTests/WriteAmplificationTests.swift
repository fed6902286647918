import CheckoutCoreTesting
import Foundation
import Testing
@testable import VaultServer

/// One device key alternated batches of 500 upserts of new ids and 500 deletes, and in 10 s
/// made 26,000 tombstones and 52,000 op records (43.9 MB, about 16 GB an hour per customer, kept
/// for 30 days). Writes are now budgeted per device key and per customer, in ops: what a key can
/// add to the disk in an hour is bounded, and these tests measure it.
@Suite(.timeLimit(.minutes(3))) struct WriteAmplificationTests {
    /// A batch of `count` upserts of fresh ids (`prefix-0`, ...), or of deletes of those ids.
    static func batch(_ prefix: String, count: Int, delete: Bool) -> Data {
        let ops = (0..<count).map { index -> String in
            let id = "\(prefix)-\(index)"
            if delete { return #"{"opId":"del-\#(id)","kind":"delete","instrumentId":"\#(id)"}"# }
            return #"{"opId":"put-\#(id)","kind":"upsert","instrumentId":"\#(id)","method":{"id":"\#(id)","#
                + #""paymentMethodType":"PAYMENT_CARD","paymentInstrumentType":"PAYMENT_CARD","paymentInstrumentData":{"#
                + #""network":"VISA","first6Digits":"424242","last4Digits":"4242","expirationMonth":12,"expirationYear":2031,"#
                + #""cardholderName":"Ada Lovelace"},"analyticsId":"an-\#(id)","isDefault":false}}"#
        }
        return Data((#"{"ops":["# + ops.joined(separator: ",") + "]}").utf8)
    }

    /// The SQLite database and its WAL, in bytes.
    static func diskBytes(_ path: String) -> Int {
        ["", "-wal"].reduce(0) { total, suffix in
            total + ((try? FileManager.default.attributesOfItem(atPath: path + suffix)[.size] as? Int) ?? 0)
        }
    }

    @Test("a device key over its write budget gets 429 write-budget-exhausted with Retry-After and nothing of the batch is applied; the budget refills at its rate")
    func deviceBudget() async throws {
        let clock = TestClock()
        let server = try TestServer(.memory, limits: .init(deviceWriteOpsPerHour: 3600, deviceWriteOpsBurst: 1000), clock: clock.wallClock)
        let key = try await server.mintKey(ttlSeconds: 86_400)
        for round in 0..<2 {
            let response = try await server.send("POST", "/v1/customers/c1/ops", authorization: "Bearer \(key.secret)",
                                                 body: Self.batch("r\(round)", count: 500, delete: false))
            #expect(response.status == 200, "\(response.text)")
        }
        let refused = try await server.send("POST", "/v1/customers/c1/ops", authorization: "Bearer \(key.secret)",
                                            body: Self.batch("r2", count: 100, delete: false))
        #expect(refused.status == 429 && refused.text.contains(#""code":"write-budget-exhausted""#), "\(refused.text)")
        #expect(refused.headers["retry-after"] == "100", "\(refused.headers)")
        let listed = try await server.send("GET", "/v1/customers/c1/instruments")
        #expect(listed.text.components(separatedBy: #""id":"r2-"#).count == 1, "part of the refused batch was applied")
        // A merchant key writes on the customer's own budget, untouched by the device's.
        #expect(try await server.send("POST", "/v1/customers/c1/ops", body: Self.batch("m", count: 100, delete: false)).status == 200)
        clock.advance(by: .seconds(100))
        #expect(try await server.send("POST", "/v1/customers/c1/ops", authorization: "Bearer \(key.secret)",
                                      body: Self.batch("r2", count: 100, delete: false)).status == 200)
    }

    /// The documented bound (vault guide, "Write budgets"): one device key adds at most
    /// `burst + rate × 1 h` ops in its first hour (4,600 by default) and `rate` ops an hour after;
    /// each op leaves at most one instrument or tombstone row and one op record.
    @Test("the reported flood, replayed for one hour on the server's clock with SQLite: one device key applies at most 4,600 ops, and the database grows by less than the README's bound")
    func floodForAnHour() async throws {
        let clock = TestClock()
        let server = try TestServer(.sqlite, limits: .init(maxOpsPerBatch: 500), retentionSeconds: 30 * 24 * 3600, clock: clock.wallClock)
        let path = try #require(server.databasePath)
        let key = try await server.mintKey(ttlSeconds: 86_400)
        let before = Self.diskBytes(path)
        var applied = 0
        var refusals = 0
        var elapsed = 0
        var round = 0
        while elapsed < 3600 {
            let body = Self.batch("f\(round / 2)", count: 500, delete: round % 2 == 1)
            let response = try await server.send("POST", "/v1/customers/c1/ops", authorization: "Bearer \(key.secret)", body: body)
            if response.status == 200 {
                applied += 500
                round += 1
            } else {
                #expect(response.status == 429, "\(response.text)")
                refusals += 1
                let wait = Int(response.headers["retry-after"] ?? "") ?? 1
                clock.advance(by: .seconds(Double(wait)))
                elapsed += wait
            }
        }
        let grownBytes = Self.diskBytes(path) - before
        print("one device key, one hour of the flood: \(applied) ops applied, \(refusals) refusals, database +\(grownBytes) bytes")
        #expect(applied <= 4_600, "\(applied) ops applied in an hour")
        #expect(applied >= 4_000, "the flood was refused more than the budget says: \(applied)")
        // The vault guide: at most 5 MB per device key in its first hour (4,600 ops of at most ~1 KiB each on disk).
        #expect(grownBytes < 5_000_000, "the database grew by \(grownBytes) bytes")
    }

    @Test("the answer carrying a new key's secret, and every other success, says Cache-Control: no-store")
    func noStore() async throws {
        let server = try TestServer(.memory)
        let minted = try await server.send("POST", "/v1/customers/c1/ephemeral-keys", body: TestServer.mintBody(ttlSeconds: 60, scope: nil))
        #expect(minted.status == 201)
        #expect(minted.headers["cache-control"] == "no-store", "\(minted.headers)")
        #expect(try await server.send("GET", "/v1/customers/c1/instruments").headers["cache-control"] == "no-store")
        #expect(try await server.send("GET", "/v1/customers/c1/changes").headers["cache-control"] == "no-store")
    }

    @Test("op records expire after limits.opRecordRetentionSeconds, never later than tombstones")
    func opRecordRetention() throws {
        let short = VaultServerConfiguration(tombstoneRetentionSeconds: 3600, limits: .init(opRecordRetentionSeconds: 600))
        #expect(short.effectiveOpRecordRetentionSeconds == 600)
        let long = VaultServerConfiguration(tombstoneRetentionSeconds: 3600, limits: .init(opRecordRetentionSeconds: 86_400))
        #expect(long.effectiveOpRecordRetentionSeconds == 3600)
        #expect(VaultServerConfiguration().effectiveOpRecordRetentionSeconds == 7 * 24 * 3600)
    }

    @Test("tombstones and op records per customer stay within their caps (plus one check interval): the oldest go early, the newest replay, an older cursor gets 410", arguments: StorageKind.available)
    func rowCaps(_ kind: StorageKind) async throws {
        let clock = TestClock()
        let server = try TestServer(kind, limits: .init(maxTombstonesPerCustomer: 100, maxOpRecordsPerCustomer: 100), clock: clock.wallClock)
        let first = try await server.send("GET", "/v1/customers/c1/changes")
        let cursor = try #require(first.object?["cursor"] as? String)
        for round in 0..<30 {
            clock.advance(by: .seconds(1))
            #expect(try await server.send("POST", "/v1/customers/c1/ops", body: Self.batch("c\(round)", count: 20, delete: false)).status == 200)
            clock.advance(by: .seconds(1))
            #expect(try await server.send("POST", "/v1/customers/c1/ops", body: Self.batch("c\(round)", count: 20, delete: true)).status == 200)
        }
        let key = CustomerKey(merchant: "merchant_a", customer: "c1")
        // Counted through the feed and the op lookups, not through the caps' own queries.
        let tombstones = try server.storage.read { tx in try tx.changes(key, after: 0, limit: 100_000).filter(\.deleted).count }
        let opIds = (0..<30).flatMap { round in (0..<20).flatMap { ["put-c\(round)-\($0)", "del-c\(round)-\($0)"] } }
        let recorded = try server.storage.read { tx in try opIds.filter { try tx.opRecord(key, opId: $0) != nil } }
        #expect(tombstones > 0 && tombstones <= 110, "\(kind): \(tombstones) tombstones of 600")
        #expect(recorded.count >= 60 && recorded.count <= 110, "\(kind): \(recorded.count) op records of 1,200")
        #expect(recorded.contains("del-c29-19"), "\(kind): the newest op record was purged")
        #expect(!recorded.contains("put-c0-0"), "\(kind): the oldest op record was kept")
        let expired = try await server.send("GET", "/v1/customers/c1/changes?cursor=\(cursor)")
        #expect(expired.status == 410, "\(kind): \(expired.text)")
    }
}
