import CheckoutCore
import CheckoutVault
import Foundation
import CheckoutTestSupport
import Testing
@testable import VaultServer
@testable import VaultServerPostgres

/// The server's card-number guard (issue: "card-number guard that a person can't slip past"):
/// one verdict per op, on every decoded value and on what would be stored, with expiry ranges,
/// on every storage. Each case was `applied` (or a whole-batch 400) before the one detector.
struct CardNumberGuardTests {
    static let pan = "4111111111111111"

    /// The spellings of the report: each was applied and stored in full.
    static let spellings: [(String, String)] = [
        ("no-break spaces", CardNumberSpellings.grouped(pan, separator: "\u{00A0}")),
        ("thin spaces", CardNumberSpellings.grouped(pan, separator: "\u{2009}")),
        ("zero-width spaces", CardNumberSpellings.grouped(pan, separator: "\u{200B}")),
        ("soft hyphens", CardNumberSpellings.grouped(pan, separator: "\u{00AD}")),
        ("newlines", CardNumberSpellings.grouped(pan, separator: "\n")),
        ("dots", CardNumberSpellings.grouped(pan, separator: ".")),
        ("slashes", CardNumberSpellings.grouped(pan, separator: "/")),
        ("full-width digits", CardNumberSpellings.grouped(pan, in: CardNumberSpellings.scripts[1], separator: "")),
        ("Arabic-Indic digits", CardNumberSpellings.grouped(pan, in: CardNumberSpellings.scripts[2], separator: " ")),
        // Letters by category that render as blanks: each was stored before.
        ("Hangul fillers U+3164", CardNumberSpellings.grouped(pan, separator: "\u{3164}")),
        ("halfwidth Hangul fillers U+FFA0", CardNumberSpellings.grouped(pan, separator: "\u{FFA0}")),
        ("Hangul choseong fillers U+115F", CardNumberSpellings.grouped(pan, separator: "\u{115F}")),
    ]

    /// The JSON text of an upsert op; `name`, `month` and `year` are JSON literals.
    static func upsert(_ opId: String, _ id: String, name: String = #""Ada Lovelace""#, month: String = "12",
                       year: String = "2031", extra: String = "") -> String {
        #"{"opId":"\#(opId)","kind":"upsert","instrumentId":"\#(id)","method":{"id":"\#(id)","paymentMethodType":"PAYMENT_CARD","#
            + #""paymentInstrumentType":"PAYMENT_CARD","paymentInstrumentData":{"network":"VISA","first6Digits":"411111","#
            + #""last4Digits":"1111","expirationMonth":\#(month),"expirationYear":\#(year),"cardholderName":\#(name)},"#
            + #""analyticsId":"an-\#(id)","isDefault":false}\#(extra)}"#
    }

    /// A JSON string literal for `text` (escapes from JSONSerialization, not hand-made).
    static func literal(_ text: String) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: [text], options: [.fragmentsAllowed]), as: UTF8.self)
            .dropFirst().dropLast().description
    }

    struct Verdict: Decodable, Equatable {
        var opId: String
        var status: String
        var reason: String?
    }

    static func post(_ server: TestServer, _ ops: [String], customer: String = "c1") async throws -> (Int, [Verdict], String) {
        let response = try await server.send("POST", "/v1/customers/\(customer)/ops",
                                             body: Data((#"{"ops":["# + ops.joined(separator: ",") + "]}").utf8))
        struct Results: Decodable { var results: [Verdict] }
        let results = (try? JSONDecoder().decode(Results.self, from: response.body))?.results ?? []
        return (response.status, results, response.text)
    }

    @Test("a card number spelled with any separator or digit script rejects only its op", arguments: StorageKind.available)
    func spelledCardNumbers(_ kind: StorageKind) async throws {
        let server = try TestServer(kind)
        var ops = [Self.upsert("ok-1", "tok-ok-1")]
        for (index, spelling) in Self.spellings.enumerated() {
            ops.append(Self.upsert("bad-\(index)", "tok-bad-\(index)", name: try Self.literal(spelling.1)))
        }
        ops.append(Self.upsert("ok-2", "tok-ok-2"))
        let (status, results, text) = try await Self.post(server, ops)
        #expect(status == 200)
        #expect(results.first { $0.opId == "ok-1" }?.status == "applied")
        #expect(results.first { $0.opId == "ok-2" }?.status == "applied")
        for (index, spelling) in Self.spellings.enumerated() {
            #expect(results.first { $0.opId == "bad-\(index)" } == Verdict(opId: "bad-\(index)", status: "rejected",
                                                                           reason: "sensitive-data-rejected"), "\(spelling.0)")
        }
        #expect(!ReferenceCardNumberDetector.containsCardNumber(text))
        #expect(try await server.remote().instruments(scope: Fixture.scope("c1")).map(\.id).sorted() == ["tok-ok-1", "tok-ok-2"])
        try Self.expectNoCardNumberStored(server, [Self.pan])
    }

    @Test("JSON numbers are numbers: a float or a card-like number outside text fields is no card number",
          arguments: StorageKind.available)
    func numbersAreNotText(_ kind: StorageKind) async throws {
        let server = try TestServer(kind)
        let (status, results, _) = try await Self.post(server, [
            // The report's float, which matched as the digits 4012984643248.
            Self.upsert("float", "tok-float", extra: #","note":1.401298464324817e-45"#),
            // A card-like integer in a field the op shape does not have: not text, and never stored.
            Self.upsert("extra-int", "tok-extra", extra: #","note":4111111111111111"#),
            // A string in a field the op shape does not have is still read (not stored, but refused).
            Self.upsert("extra-string", "tok-extra-string", extra: #","note":"4111 1111 1111 1111""#),
            // The same digits in a text field: refused, this op only.
            Self.upsert("in-name", "tok-name", name: "4111111111111111"),
            Self.upsert("in-name-float", "tok-name-float", name: "4111111111111111.0"),
        ])
        #expect(status == 200)
        #expect(results.map(\.status) == ["applied", "applied", "rejected", "rejected", "rejected"])
        #expect(results.map(\.reason) == [nil, nil, "sensitive-data-rejected", "sensitive-data-rejected",
                                          "sensitive-data-rejected"])
        // A float elsewhere in the envelope is no reason to refuse the batch either.
        let envelope = try await server.send("POST", "/v1/customers/c1/ops", body: Data(
            (#"{"meta":1.401298464324817e-45,"ops":["# + Self.upsert("env", "tok-env") + "]}").utf8))
        #expect(envelope.status == 200)
        #expect(envelope.text.contains(#""status":"applied""#))
        try Self.expectNoCardNumberStored(server, [Self.pan])
    }

    @Test("expiry fields are checked once decoded: a card number in expirationYear, and out-of-range months and years",
          arguments: StorageKind.available)
    func expiryRanges(_ kind: StorageKind) async throws {
        let server = try TestServer(kind)
        let (status, results, text) = try await Self.post(server, [
            Self.upsert("year-pan", "tok-1", year: "42424242.42424242e8"),
            Self.upsert("year-pan-int", "tok-2", year: "4242424242424242"),
            Self.upsert("month-13", "tok-3", month: "13"),
            Self.upsert("month-0", "tok-4", month: "0"),
            Self.upsert("year-2-digits", "tok-5", year: "31"),
            Self.upsert("year-5-digits", "tok-6", year: "20310"),
            Self.upsert("ok", "tok-7", month: "1", year: "2031"),
        ])
        #expect(status == 200)
        #expect(results.map(\.status) == ["rejected", "rejected", "rejected", "rejected", "rejected", "rejected", "applied"])
        #expect(results.map(\.reason) == ["sensitive-data-rejected", "sensitive-data-rejected", "invalid-expiry",
                                          "invalid-expiry", "invalid-expiry", "invalid-expiry", nil])
        #expect(!text.contains("4242424242424242"))
        let stored = try await server.remote().instruments(scope: Fixture.scope("c1"))
        #expect(stored.map(\.id) == ["tok-7"])
        try Self.expectNoCardNumberStored(server, ["4242424242424242"])
    }

    /// No byte of the server's storage holds any of `numbers`, however spelled.
    static func expectNoCardNumberStored(_ server: TestServer, _ numbers: Set<String>,
                                         sourceLocation: SourceLocation = #_sourceLocation) throws {
        if let schema = server.schema {
            let connection = try schema.connect()
            for table in ["vault_instrument", "vault_op_log"] {
                let rows = try connection.execute("SELECT t::text FROM \(table) AS t")
                for row in 0..<rows.rowCount {
                    let found = PaymentDataByteScanner.find(numbers, in: Data(rows.string(row, 0).utf8))
                    #expect(found.isEmpty, "\(table): \(found)", sourceLocation: sourceLocation)
                }
            }
        }
        if let path = server.databasePath {
            let (hits, scanned) = PaymentDataByteScanner.scan(
                files: ["", "-wal", "-shm"].map { URL(fileURLWithPath: path + $0) }, for: numbers)
            #expect(scanned > 0, sourceLocation: sourceLocation)
            #expect(hits.isEmpty, "\(hits)", sourceLocation: sourceLocation)
        }
    }
}
