import Foundation
import CheckoutTestSupport
import Testing

/// `checkout vault add/list/default/delete --db` round trip, with its JSON shapes.
@Suite struct VaultTests {
    static let itemKeys: Set<String> = ["id", "paymentMethodType", "paymentInstrumentType", "paymentInstrumentData",
                                        "analyticsId", "isDefault"]
    static let instrumentKeys: Set<String> = ["network", "first6Digits", "last4Digits", "expirationMonth", "expirationYear",
                                              "cardholderName"]

    static func checkShape(_ item: [String: Any]) throws {
        #expect(Set(item.keys) == itemKeys, "\(item)")
        let instrument = try #require(item["paymentInstrumentData"] as? [String: Any], "\(item)")
        #expect(Set(instrument.keys) == instrumentKeys, "\(instrument)")
        #expect(item["paymentMethodType"] as? String == "PAYMENT_CARD")
        #expect(item["paymentInstrumentType"] as? String == "PAYMENT_CARD")
        #expect((item["id"] as? String)?.hasPrefix("vt_") == true)
        #expect((item["analyticsId"] as? String)?.isEmpty == false)
    }

    /// Card numbers typed where the name goes, spelled so only a Unicode-aware rule sees them.
    static let namesHoldingCardNumbers = [
        "4242.4242.4242.4242", "4242\t4242\t4242\t4242", "4242/4242/4242/4242", "4242_4242_4242_4242",
        "４２４２４２４２４２４２４２４２", "4242\u{200D}4242\u{200D}4242\u{200D}4242", "4242\u{00A0}4242\u{00A0}4242\u{00A0}4242",
    ]

    @Test("a card number typed as the cardholder name is refused, whatever separates its digits, and never stored")
    func cardNumberAsName() async throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let db = directory.appendingPathComponent("vault.sqlite").path
        let scope = ["--db", db, "--merchant", "merchant_a", "--customer", "customer_1"]
        for name in Self.namesHoldingCardNumbers {
            let result = try await CLI.run(["vault", "add"] + scope + ["--number", "5555555555554444", "--expiry", "11/38",
                                                                        "--name", name, "--json"], in: directory)
            #expect(result.status == 1, "\(result)")
            #expect(result.stderr.contains("sensitive-data-rejected") || result.stderr.contains("card number"), "\(result)")
            #expect(!ReferenceCardNumberDetector.containsCardNumber(result.stdout + result.stderr))
        }
        // The number and the CVV can come from standard input instead of the command line.
        let piped = try await CLI.run(["vault", "add"] + scope + ["--number", "-", "--expiry", "11/38", "--json"], in: directory,
                                      standardInput: "5555 5555 5555 4444\n")
        #expect(piped.status == 0, "\(piped)")
        let listed = try await CLI.run(["vault", "list"] + scope + ["--json"], in: directory)
        #expect(try listed.array().count == 1, "\(listed)")
        let (hits, scanned) = PaymentDataByteScanner.scan(
            files: ["", "-wal", "-shm"].map { URL(fileURLWithPath: db + $0) }, for: ["4242424242424242", "5555555555554444"])
        #expect(scanned > 0)
        #expect(hits.isEmpty, "\(hits)")
    }

    @Test("a file that is not a vault database: exit 1 with the storage code and SQLite's message, as before the vault had its own error")
    func notADatabase() async throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let db = directory.appendingPathComponent("vault.sqlite").path
        try Data((0..<8_192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }).write(to: URL(fileURLWithPath: db))
        let scope = ["--db", db, "--merchant", "merchant_a", "--customer", "customer_1"]
        for json in [[], ["--json"]] {
            let listed = try await CLI.run(["vault", "list"] + scope + json, in: directory)
            #expect(listed.status == 1, "\(listed)")
            #expect(listed.stderr == "error: the vault database failed: not-a-database: file is not a database\n", "\(listed)")
        }
        let synced = try await CLI.run(["vault", "sync"] + scope + ["--remote", "http://127.0.0.1:9", "--api-key", "k"],
                                       in: directory)
        #expect(synced.status == 1, "\(synced)")
        #expect(synced.stderr.hasPrefix("error: cannot open the vault database \(db): SQLite error not-a-database (26): "
                                        + "file is not a database"), "\(synced)")
    }

    @Test("the default store's directory is created 0700 and the database, -wal and -shm 0600")
    func defaultStoreIsOwnerOnly() async throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let added = try await CLI.run(["vault", "add", "--merchant", "merchant_a", "--customer", "customer_1",
                                       "--number", "4242 4242 4242 4242", "--expiry", "12/39", "--json"], in: directory)
        #expect(added.status == 0, "\(added)")
        let store = directory.appendingPathComponent("checkoutkit")
        func mode(_ url: URL) throws -> Int {
            try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int)
        }
        #expect(try mode(store) == 0o700)
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: store.path + "/vault.sqlite" + suffix) {
            #expect(try mode(store.appendingPathComponent("vault.sqlite" + suffix)) == 0o600, "vault.sqlite\(suffix)")
        }
        #expect(FileManager.default.fileExists(atPath: store.appendingPathComponent("vault.sqlite").path))
    }

    @Test func roundTrip() async throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let db = directory.appendingPathComponent("vault.sqlite").path
        let scope = ["--db", db, "--merchant", "merchant_a", "--customer", "customer_1"]

        let visa = try await CLI.run(["vault", "add"] + scope + ["--number", "4242 4242 4242 4242", "--expiry", "12/39",
                                                                  "--name", "Jo Doe", "--json"], in: directory)
        #expect(visa.status == 0, "\(visa)")
        let visaItem = try visa.object()
        try Self.checkShape(visaItem)
        let visaData = try #require(visaItem["paymentInstrumentData"] as? [String: Any])
        #expect(visaData["network"] as? String == "VISA")
        #expect(visaData["first6Digits"] as? String == "424242")
        #expect(visaData["last4Digits"] as? String == "4242")
        #expect(visaData["expirationMonth"] as? Int == 12)
        #expect(visaData["expirationYear"] as? Int == 2039)
        #expect(visaData["cardholderName"] as? String == "Jo Doe")
        #expect(visaItem["isDefault"] as? Bool == false)

        let master = try await CLI.run(["vault", "add"] + scope + ["--number", "5555555555554444", "--expiry", "11/38",
                                                                    "--default", "--json"], in: directory)
        #expect(master.status == 0, "\(master)")
        let masterItem = try master.object()
        try Self.checkShape(masterItem)
        let masterData = try #require(masterItem["paymentInstrumentData"] as? [String: Any])
        #expect(masterData["network"] as? String == "MASTERCARD")
        #expect(masterData["cardholderName"] is NSNull)
        #expect(masterItem["isDefault"] as? Bool == true)
        let visaId = try #require(visaItem["id"] as? String)
        let masterId = try #require(masterItem["id"] as? String)

        let listed = try await CLI.run(["vault", "list"] + scope + ["--json"], in: directory)
        #expect(listed.status == 0, "\(listed)")
        let items = try listed.array()
        for item in items { try Self.checkShape(item) }
        #expect(items.compactMap { $0["id"] as? String } == [masterId, visaId], "default first\n\(listed)")

        let madeDefault = try await CLI.run(["vault", "default"] + scope + ["--id", visaId, "--json"], in: directory)
        #expect(madeDefault.status == 0, "\(madeDefault)")
        #expect(madeDefault.stdout == #"{"id":"\#(visaId)","isDefault":true}"# + "\n", "\(madeDefault)")
        let afterDefault = try await CLI.run(["vault", "list"] + scope + ["--json"], in: directory).array()
        #expect(afterDefault.compactMap { $0["id"] as? String } == [visaId, masterId])
        #expect(afterDefault.compactMap { $0["isDefault"] as? Bool } == [true, false], "exactly one default")

        let deleted = try await CLI.run(["vault", "delete"] + scope + ["--id", masterId, "--json"], in: directory)
        #expect(deleted.status == 0, "\(deleted)")
        #expect(deleted.stdout == #"{"deleted":true,"id":"\#(masterId)"}"# + "\n", "\(deleted)")
        let afterDelete = try await CLI.run(["vault", "list"] + scope + ["--json"], in: directory).array()
        #expect(afterDelete.compactMap { $0["id"] as? String } == [visaId])

        let again = try await CLI.run(["vault", "delete"] + scope + ["--id", masterId], in: directory)
        #expect(again.status == 1, "\(again)")
        // The token is masked in the message (it can pay); --json output above keeps it whole.
        #expect(again.stderr.hasPrefix("error: no saved payment method •••\(masterId.suffix(4)) "), "\(again)")
        #expect(!again.stderr.contains(masterId), "\(again)")

        let otherCustomer = try await CLI.run(["vault", "list", "--db", db, "--merchant", "merchant_a", "--customer",
                                               "customer_2", "--json"], in: directory)
        #expect(otherCustomer.stdout == "[]\n", "customers are isolated\n\(otherCustomer)")

        // No full number in any byte of the database files.
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("vault.sqlite") }
        #expect(files.contains("vault.sqlite"))
        for file in files {
            let bytes = try Data(contentsOf: directory.appendingPathComponent(file))
            for number in ["4242424242424242", "4242 4242 4242 4242", "5555555555554444"] {
                #expect(bytes.range(of: Data(number.utf8)) == nil, "\(file) holds \(number)")
            }
        }
    }

    static let usageCases: [UsageCase] = [
        UsageCase(words: ["add", "--expiry", "12/39"], message: "error: vault add needs --number"),
        UsageCase(words: ["add", "--number", "4242424242424242"], message: "error: vault add needs --expiry MM/YY"),
        UsageCase(words: ["add", "--number", "4242424242424242", "--expiry", "13/39"], message: "error: --expiry must be MM/YY"),
        UsageCase(words: ["add", "--number", "4242x", "--expiry", "12/39"],
                  message: "error: --number must contain only digits, spaces and dashes"),
        UsageCase(words: ["add", "--number", "4242424242424242", "--expiry", "12/39", "--cvv", "12a"],
                  message: "error: --cvv must be 3 or 4 digits"),
        UsageCase(words: ["list", "--number", "4242424242424242"], message: "error: --number, --expiry, --cvv, --name and --default belong to vault add"),
        UsageCase(words: ["delete"], message: "error: vault delete needs --id ID"),
        UsageCase(words: ["default", "--id", ""], message: "error: vault default needs --id ID"),
    ]

    @Test(arguments: usageCases) func usageErrorsExit2AndTouchNoDatabase(_ testCase: UsageCase) async throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let db = directory.appendingPathComponent("vault.sqlite")
        let words = ["vault"] + testCase.words + ["--db", db.path, "--merchant", "m", "--customer", "c"]
        let result = try await CLI.run(words, in: directory)
        #expect(result.status == 2, "\(testCase): \(result)")
        #expect(result.stderr.hasPrefix(testCase.message), "\(testCase): \(result)")
        #expect(!result.stderr.contains("4242424242424242"), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: db.path), "\(testCase) created the database")
    }
}
