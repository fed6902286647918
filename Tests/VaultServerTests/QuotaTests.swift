import CheckoutCore
import CheckoutCoreTesting
import CheckoutVault
import Foundation
import HTTPTransport
import Testing
@testable import VaultServer

/// Quotas that keep sync alive. Every test here failed before the quotas: the
/// field limits, the digit-run screen, the instrument cap, the byte bound of feed pages and the
/// background purge did not exist.
@Suite("Quotas that keep sync alive")
struct QuotaTests {
    /// The largest instrument the limits allow, every field at its limit. Strings mix characters
    /// JSON must escape (`"`, `\`, `/`, a control character) with letters, and no digits.
    static func maximal(_ index: Int) -> VaultedPaymentMethod {
        func text(_ count: Int, _ seed: String) -> String {
            let pattern = Array(seed + "\"\\/\u{7}éabcdefgh")
            return String((0..<count).map { pattern[$0 % pattern.count] })
        }
        let prefix = "tok-\(String(repeating: "x", count: 4 - String(index).count))\(index)-"
        let id = prefix + String(repeating: "a", count: InstrumentLimits.maxIdLength - prefix.count)
        return VaultedPaymentMethod(
            id: id, paymentMethodType: PaymentMethodType(rawValue: text(InstrumentLimits.maxTypeLength, "T")),
            paymentInstrumentType: PaymentInstrumentType(rawValue: text(InstrumentLimits.maxTypeLength, "I")),
            paymentInstrumentData: PaymentInstrumentData(
                network: CardNetwork(rawValue: text(InstrumentLimits.maxNetworkLength, "N")),
                first6Digits: "424242", last4Digits: "4242", expirationMonth: 12, expirationYear: 2030,
                cardholderName: text(InstrumentLimits.maxCardholderNameLength, "C"),
                binData: BinData(networks: (0..<InstrumentLimits.maxBinNetworks).map { network in
                    CardNetwork(rawValue: text(InstrumentLimits.maxNetworkLength, String(UnicodeScalar(UInt8(65 + network)))))
                },
                                 issuerCountry: text(InstrumentLimits.maxIssuerCountryLength, "Q"),
                                 accountFundingType: text(InstrumentLimits.maxAccountFundingTypeLength, "F"))),
            analyticsId: text(InstrumentLimits.maxAnalyticsIdLength, "A"), isDefault: index == 0)
    }

    static func opsBody(_ ops: [OutboundOp]) throws -> Data {
        try JSONEncoder().encode(["ops": ops])
    }

    static func results(_ response: RawResponse) throws -> [OpResult] {
        struct Results: Decodable { var results: [OpResult] }
        return try JSONDecoder().decode(Results.self, from: response.body).results
    }

    // MARK: Field limits

    @Test("the limits accept the maximal instrument and refuse one scalar more in every field, and any 20-digit run")
    func limitsTable() {
        #expect(InstrumentLimits.violation(of: Self.maximal(1)) == nil)
        var cases: [(String, (inout VaultedPaymentMethod) -> Void)] = [
            ("id", { $0.id += "a" }),
            ("paymentMethodType", { $0.paymentMethodType = PaymentMethodType(rawValue: $0.paymentMethodType.rawValue + "a") }),
            ("paymentInstrumentType", { $0.paymentInstrumentType = PaymentInstrumentType(rawValue: $0.paymentInstrumentType.rawValue + "a") }),
            ("analyticsId", { $0.analyticsId += "a" }),
            ("paymentInstrumentData.network", { $0.paymentInstrumentData.network = CardNetwork(rawValue: $0.paymentInstrumentData.network!.rawValue + "a") }),
            ("paymentInstrumentData.first6Digits", { $0.paymentInstrumentData.first6Digits = "4242424" }),
            ("paymentInstrumentData.last4Digits", { $0.paymentInstrumentData.last4Digits = "42424" }),
            ("paymentInstrumentData.cardholderName", { $0.paymentInstrumentData.cardholderName! += "a" }),
            ("paymentInstrumentData.binData.issuerCountry", { $0.paymentInstrumentData.binData!.issuerCountry! += "a" }),
            ("paymentInstrumentData.binData.accountFundingType", { $0.paymentInstrumentData.binData!.accountFundingType! += "a" }),
            ("paymentInstrumentData.binData.networks", { $0.paymentInstrumentData.binData!.networks.append("VISA") }),
        ]
        cases.append(("paymentInstrumentData.binData.networks", { method in
            method.paymentInstrumentData.binData!.networks[3] = CardNetwork(rawValue: method.paymentInstrumentData.binData!.networks[3].rawValue + "a")
        }))
        for (field, change) in cases {
            var method = Self.maximal(1)
            change(&method)
            let violation = InstrumentLimits.violation(of: method)
            #expect(violation?.reason == "field-too-long", "\(field)")
            #expect(violation?.field == field)
        }
        // Digit runs: 19 is fine, 20 is not, whatever the separators or the script of the digits.
        for (name, expected) in [("1234567890123456789", nil), ("12345678901234567890", "digit-run-too-long"),
                                 ("1234 5678-9012 3456 7890", "digit-run-too-long"),
                                 (String(repeating: "\u{0661}", count: 20), "digit-run-too-long"),
                                 ("1234567890 abc 1234567890", nil)] as [(String, String?)] {
            var method = Fixture.card("tok_run")
            method.paymentInstrumentData.cardholderName = name
            #expect(InstrumentLimits.violation(of: method)?.reason == expected, "\(name)")
        }
    }

    @Test("a maximal instrument's JSON is within maxMethodJSONBytes, even with every scalar escaped")
    func methodJSONBound() throws {
        var method = Self.maximal(1)
        // Worst case: control characters are written as six bytes (\u0007) each.
        let control = { (count: Int) in String(repeating: "\u{7}", count: count) }
        method.paymentMethodType = PaymentMethodType(rawValue: control(InstrumentLimits.maxTypeLength))
        method.paymentInstrumentType = PaymentInstrumentType(rawValue: control(InstrumentLimits.maxTypeLength))
        method.analyticsId = control(InstrumentLimits.maxAnalyticsIdLength)
        method.paymentInstrumentData.cardholderName = control(InstrumentLimits.maxCardholderNameLength)
        method.paymentInstrumentData.network = CardNetwork(rawValue: control(InstrumentLimits.maxNetworkLength))
        method.paymentInstrumentData.binData = BinData(
            networks: Array(repeating: CardNetwork(rawValue: control(InstrumentLimits.maxNetworkLength)), count: InstrumentLimits.maxBinNetworks),
            issuerCountry: control(InstrumentLimits.maxIssuerCountryLength),
            accountFundingType: control(InstrumentLimits.maxAccountFundingTypeLength))
        method.id = control(InstrumentLimits.maxIdLength)
        method.paymentInstrumentData.externalPayerInfo = ExternalPayerInfo(
            externalPayerId: control(InstrumentLimits.maxExternalPayerIdLength), email: control(InstrumentLimits.maxPayerEmailLength),
            firstName: control(InstrumentLimits.maxPayerNameLength), lastName: control(InstrumentLimits.maxPayerNameLength))
        method.paymentInstrumentData.expirationMonth = Int.min
        method.paymentInstrumentData.expirationYear = Int.min
        #expect(InstrumentLimits.violation(of: method) == nil)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let bytes = try encoder.encode(method).count
        print("maximal method JSON, every scalar escaped: \(bytes) bytes (bound \(InstrumentLimits.maxMethodJSONBytes))")
        #expect(bytes <= InstrumentLimits.maxMethodJSONBytes)
    }

    /// The reasoning that no allowed writes can wedge a customer's sync, as inequalities.
    @Test("the bounds: a whole customer fits one page, and any page fits the client's default response limit")
    func boundsInequality() {
        let clientLimit = HTTPTransportConfiguration().maxBodyBytes
        let envelope = 256  // {"changes":[...],"cursor":"v2.…","hasMore":false}
        // One feed row within the limits, at most (its bound `feedBytes` is what the page counts).
        let maxRow = InstrumentRecord.feedOverheadBytes + 6 * InstrumentLimits.maxIdLength + InstrumentLimits.maxMethodJSONBytes
        // Many rows fit one page, so a customer at the cap is a handful of pages (at most 10)...
        #expect(VaultService.defaultMaxPageBytes / maxRow >= 100)
        #expect(InstrumentLimits.maxInstrumentsPerCustomer * maxRow <= 10 * VaultService.defaultMaxPageBytes)
        // ...and a page is at most its byte bound, or a single row: within the limits a row is at
        // most maxRow; a row stored before the limits came from one request body, whose JSON
        // re-encoding at most doubles it ("/" becomes "\/").
        let largestSingleRow = max(maxRow, 2 * VaultServerConfiguration.Limits().maxBodyBytes + InstrumentRecord.feedOverheadBytes
                                   + 6 * InstrumentLimits.maxIdLength)
        #expect(max(VaultService.defaultMaxPageBytes, largestSingleRow) + envelope <= clientLimit)
    }

    @Test("an op over a field limit is rejected with its reason; the rest of the batch applies", arguments: StorageKind.available)
    func fieldLimitPerOp(kind: StorageKind) async throws {
        let server = try TestServer(kind)
        var long = Fixture.card("tok_long", name: String(repeating: "n", count: InstrumentLimits.maxCardholderNameLength + 1))
        long.isDefault = false
        var huge = Fixture.card("tok_huge", name: String(repeating: "n", count: 900_000))
        huge.isDefault = false
        let ops = [Fixture.upsert("op_ok", Fixture.card("tok_ok", name: String(repeating: "n", count: 60))),
                   Fixture.upsert("op_long", long), Fixture.upsert("op_huge", huge)]
        let response = try await server.send("POST", "/v1/customers/c1/ops", body: try Self.opsBody(ops))
        #expect(response.status == 200)
        let results = try Self.results(response)
        #expect(results.map(\.status) == [.applied, .rejected, .rejected])
        #expect(results.map(\.reason) == [nil, "field-too-long", "field-too-long"])
        let live = try await server.remote().instruments(scope: Fixture.scope("c1"))
        #expect(live.map(\.id) == ["tok_ok"])
    }

    /// The CPU amplifier: 1 MiB of `1`s took 1.57 s per request in the review (every 13–19 digit
    /// window checked, twice; 20 s in a debug build). The detector is linear now (see its table
    /// tests), and a run over 19 digits is refused by the limits before it is even scanned; how
    /// long that takes is the bench's business, what the answer is, this test's.
    @Test("a 1 MiB digit run is rejected as digit-run-too-long before any Luhn scan", arguments: StorageKind.available)
    func digitRunAmplifier(kind: StorageKind) async throws {
        let server = try TestServer(kind, limits: .init(maxBodyBytes: 2 << 20))
        let ops = [Fixture.upsert("op_ok", Fixture.card("tok_ok")),
                   Fixture.upsert("op_ones", Fixture.card("tok_ones", name: String(repeating: "1", count: 1 << 20))),
                   Fixture.upsert("op_twenty", Fixture.card("tok_twenty", name: "Ann 12345678901234567890"))]
        let body = try Self.opsBody(ops)
        // In a field the op shape does not have, a long run refuses that op alone too. (Sent
        // first: the 1 MiB request, slow under the sanitizer, is the last on the connection.)
        var envelope = try JSONSerialization.jsonObject(with: body) as? [String: Any] ?? [:]
        var raw = envelope["ops"] as? [[String: Any]] ?? []
        raw[0]["note"] = String(repeating: "1", count: 100)
        raw[0]["opId"] = "op_note"
        envelope["ops"] = [raw[0]]
        let inUnknown = try await server.send("POST", "/v1/customers/c2/ops", body: try JSONSerialization.data(withJSONObject: envelope))
        #expect(inUnknown.status == 200)
        #expect(try Self.results(inUnknown).map(\.reason) == ["digit-run-too-long"])
        let response = try await server.send("POST", "/v1/customers/c1/ops", body: body)
        #expect(response.status == 200)
        let results = try Self.results(response)
        #expect(results.map(\.status) == [.applied, .rejected, .rejected])
        // The 1 MiB name is over cardholderName's 60 characters first; either way no scan reads it.
        #expect(results.map(\.reason) == [nil, "field-too-long", "digit-run-too-long"])
    }

    @Test("the instrument cap: one more live instrument is rejected with instrument-limit-reached", arguments: StorageKind.available)
    func instrumentCap(kind: StorageKind) async throws {
        let server = try TestServer(kind)
        let remote = server.remote()
        let scope = Fixture.scope("c1")
        let cap = InstrumentLimits.maxInstrumentsPerCustomer
        for start in stride(from: 0, to: cap, by: 500) {
            let batch = (start..<min(cap, start + 500)).map { Fixture.upsert("op_\($0)", Fixture.card("tok_\($0)")) }
            #expect(try await remote.push(scope: scope, ops: batch).allSatisfy { $0.status == .applied })
        }
        // In one batch: one over the cap is rejected, a delete makes room, the next one fits.
        let second = try await remote.push(scope: scope, ops: [
            Fixture.upsert("op_over", Fixture.card("tok_over")),
            Fixture.delete("op_del", "tok_0"),
            Fixture.upsert("op_room", Fixture.card("tok_room")),
            Fixture.upsert("op_over2", Fixture.card("tok_over2")),
        ])
        #expect(second.map(\.status) == [.rejected, .applied, .applied, .rejected])
        #expect(second.map(\.reason) == ["instrument-limit-reached", nil, nil, "instrument-limit-reached"])
        // Edits of existing instruments are not new instruments: still fine at the cap.
        let edit = try await remote.push(scope: scope, ops: [Fixture.upsert("op_edit", Fixture.card("tok_1", last4: "1111"), base: 1)])
        #expect(edit.map(\.status) == [.applied])
        #expect(try await remote.instruments(scope: scope).count == cap)
        // Another customer has a cap of their own.
        let other = try await remote.push(scope: Fixture.scope("c2"), ops: [Fixture.upsert("op_c2", Fixture.card("tok_c2"))])
        #expect(other.map(\.status) == [.applied])
    }

    @Test("the cap is the server's to set: limits.maxInstrumentsPerCustomer", arguments: StorageKind.available)
    func configuredCap(kind: StorageKind) async throws {
        let server = try TestServer(kind, limits: .init(maxInstrumentsPerCustomer: 3))
        let results = try await server.remote().push(scope: Fixture.scope("c1"), ops: (0..<4).map {
            Fixture.upsert("op_\($0)", Fixture.card("tok_\($0)"))
        })
        #expect(results.map(\.reason) == [nil, nil, nil, "instrument-limit-reached"])
        #expect(results.last?.message?.contains("at most 3 instruments") == true)
        #expect(throws: VaultServerConfigurationError.self) {
            try VaultServerConfiguration(limits: .init(maxInstrumentsPerCustomer: 0)).validate()
        }
    }

    @Test("the client's store refuses to queue an instrument the server would always refuse")
    func storeRefusesOverLimit() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("quota-store-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let store = try VaultStore(path: path)
        let scope = Fixture.scope("c1")
        let over = Fixture.card("tok_over", name: String(repeating: "n", count: InstrumentLimits.maxCardholderNameLength + 1))
        let error = try #require(throws: CheckoutError.self) { try store.blocking.upsert(over, scope: scope) }
        #expect(error.code == .invalidPaymentData)
        #expect(error.message.contains("cardholderName"))
        #expect(try store.blocking.pendingCount(scope: scope) == 0)
        #expect(try store.blocking.instruments(scope: scope).isEmpty)
        try store.blocking.upsert(Self.maximal(1), scope: scope)
        #expect(try store.blocking.pendingCount(scope: scope) == 1)
    }

    // MARK: Feed pages

    /// Rows stored before the limits existed (up to a request body each) are paged by bytes: the
    /// review saw one 79 MiB page from 80 such rows.
    @Test("feed pages are bounded by bytes; a row over the bound goes alone; paging gets every row", arguments: StorageKind.available)
    func pageByteBound(kind: StorageKind) async throws {
        let server = try TestServer(kind)
        let key = CustomerKey(merchant: "merchant_a", customer: "c1")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // 6 rows of 400 KB, one of 1.5 MiB, 3 small: put straight into storage, as legacy rows.
        let sizes = [400_000, 400_000, 400_000, 1_500_000, 400_000, 400_000, 400_000, 100, 100, 100]
        try server.storage.transaction { tx in
            _ = try tx.instrument(key, id: "tok_0")  // PostgreSQL: the customer's lock, before any sequence
            for (index, size) in sizes.enumerated() {
                let method = Fixture.card("tok_\(index)", name: String(repeating: "n", count: size))
                let json = String(decoding: try encoder.encode(method), as: UTF8.self)
                try tx.put(key, InstrumentRecord(id: method.id, version: 1, sequence: try tx.nextSequence(), deleted: false,
                                                 isDefault: false, methodJSON: json, deletedAt: nil))
            }
        }
        var cursor = ""
        var seen: [String] = []
        var pageBytes: [Int] = []
        while true {
            let page = try await server.send("GET", "/v1/customers/c1/changes?limit=1000&cursor=\(cursor)")
            #expect(page.status == 200)
            struct Page: Decodable { struct Change: Decodable { var id: String }; var changes: [Change]; var cursor: String; var hasMore: Bool }
            let decoded = try JSONDecoder().decode(Page.self, from: page.body)
            pageBytes.append(page.body.count)
            seen += decoded.changes.map(\.id)
            #expect(page.body.count <= VaultService.defaultMaxPageBytes + 256 || decoded.changes.count == 1)
            cursor = decoded.cursor
            if !decoded.hasMore { break }
            #expect(pageBytes.count < 20)
        }
        print("page bytes, \(kind): \(pageBytes)")
        #expect(seen == sizes.indices.map { "tok_\($0)" })
        #expect(pageBytes.count > 2)
    }

    // MARK: Retention

    @Test("the background purge removes expired tombstones and op records without any feed read", arguments: StorageKind.available)
    func backgroundPurge(kind: StorageKind) async throws {
        let clock = TestClock()
        let sleeps = TestClock()
        // A 5 s retention purges every second (of `sleeps`, which the test moves).
        let server = try TestServer(kind, retentionSeconds: 5, clock: clock.wallClock, sleepClock: sleeps)
        #expect(await sleeps.waitForSleeper(), "the purge waits for its first interval")
        let remote = server.remote()
        let scope = Fixture.scope("c1")
        let created = try await remote.push(scope: scope, ops: [Fixture.upsert("op_a", Fixture.card("tok_a")),
                                                                Fixture.upsert("op_b", Fixture.card("tok_b"))])
        #expect(created.map(\.status) == [.applied, .applied])
        let before = try await remote.changes(scope: scope, cursor: nil, limit: 1).cursor
        #expect(try await remote.push(scope: scope, ops: [Fixture.delete("op_del", "tok_a")]).map(\.status) == [.applied])
        // Within retention, reusing an op id with another body is a misuse (422).
        let reuse = try Self.opsBody([Fixture.upsert("op_b", Fixture.card("tok_b", last4: "1111"))])
        #expect(try await server.send("POST", "/v1/customers/c1/ops", body: reuse).status == 422)

        let key = CustomerKey(merchant: "merchant_a", customer: "c1")
        let stored = { @Sendable in
            try server.storage.read { tx in (try tx.instrument(key, id: "tok_a") != nil, try tx.opRecord(key, opId: "op_b") != nil) }
        }
        // A purge within the retention keeps both (the purge has run once it waits again).
        sleeps.advance(by: .seconds(1))
        #expect(await sleeps.waitForSleeper(), "the purge did not run and wait again")
        #expect(try stored() == (true, true))

        clock.advance(by: .seconds(10))
        sleeps.advance(by: .seconds(1))
        #expect(await sleeps.waitForSleeper(), "the purge did not run and wait again")
        #expect(try stored() == (false, false), "the tombstone and the op record were still stored after their retention")
        // The op id is forgotten: the same id now counts as a new op (a conflict on the existing
        // instrument, not 422), and a cursor from before the purged tombstone gets 410.
        let again = try await server.send("POST", "/v1/customers/c1/ops", body: reuse)
        #expect(again.status == 200)
        #expect(try Self.results(again).map(\.reason) == ["version-mismatch"])
        await #expect(throws: RemoteVaultError.cursorExpired) {
            _ = try await remote.changes(scope: scope, cursor: before, limit: 10)
        }
    }

    // MARK: The largest customer

    @Test("the largest customer the limits allow syncs to completion with the client's default settings",
          arguments: StorageKind.available)
    func largestCustomerSyncs(kind: StorageKind) async throws {
        let server = try TestServer(kind)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("quota-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let scope = Fixture.scope("c_max")
        let methods = (0..<InstrumentLimits.maxInstrumentsPerCustomer).map(Self.maximal)

        // One device saves them all (the store accepts what the server accepts) and pushes...
        let writer = try VaultStore(path: directory.appendingPathComponent("writer.sqlite").path)
        try await writer.upsert(methods, scope: scope)
        let remote = HTTPRemoteVault(baseURL: server.baseURL, apiKey: TestServer.keyA)
        let pushed = try await SyncEngine(store: writer, remote: remote, configuration: .init(interval: nil)).syncNow(scope: scope)
        #expect(pushed.pushed == methods.count)
        #expect(pushed.rejected == 0)

        // ...and a fresh device with every default pulls them all.
        let reader = try VaultStore(path: directory.appendingPathComponent("reader.sqlite").path)
        let readerRemote = HTTPRemoteVault(baseURL: server.baseURL, apiKey: TestServer.keyA)
        let report = try await SyncEngine(store: reader, remote: readerRemote, configuration: .init(interval: nil)).syncNow(scope: scope)
        #expect(report.pulled == methods.count)
        let stored = try await reader.instruments(scope: scope)
        #expect(Set(stored.map(\.id)) == Set(methods.map(\.id)))
        #expect(stored.first { $0.id == methods[5].id } == methods[5])

        // Every page of the customer is within the byte bound, at the largest page size.
        var cursor = ""
        var pageBytes: [Int] = []
        while pageBytes.count < 20 {
            let page = try await server.send("GET", "/v1/customers/c_max/changes?limit=1000&cursor=\(cursor)")
            #expect(page.status == 200)
            pageBytes.append(page.body.count)
            let object = try JSONSerialization.jsonObject(with: page.body) as? [String: Any]
            cursor = object?["cursor"] as? String ?? ""
            if object?["hasMore"] as? Bool != true { break }
        }
        print("largest customer, \(kind): pages of \(pageBytes) bytes (bound \(VaultService.defaultMaxPageBytes))")
        #expect(pageBytes.allSatisfy { $0 <= VaultService.defaultMaxPageBytes })
        #expect(pageBytes.count <= 10)
    }
}
