import Foundation
import TLSTestSupport
import Testing

/// Merchant binding and bounded rounds through the command line, against a real `vault-server` over HTTPS:
/// a key syncs only its own merchant, rounds are bounded, tokens and URL credentials are never
/// printed where people read.
@Suite(.timeLimit(.minutes(5))) struct MerchantBindingCLITests {
    static let keyA = "binding-cli-merchant-a-key-0123456789abcdef"
    static let keyB = "binding-cli-merchant-b-key-fedcba9876543210"

    struct Setup {
        let server: ServerProcess
        let pki: TestPKI
        let directory: URL

        /// `--db`, `--merchant`, `--customer` words for a database in the test directory.
        func scope(_ database: String, merchant: String, customer: String = "customer_1") -> [String] {
            ["--db", directory.appendingPathComponent(database).path, "--merchant", merchant, "--customer", customer]
        }

        /// `vault sync` words for the HTTPS server with `key`.
        func remote(_ key: String) -> [String] {
            ["--remote", "https://127.0.0.1:\(server.port)", "--ca-bundle", pki.caBundle, "--api-key", key]
        }
    }

    static func start() async throws -> Setup {
        let pki = try await TestPKI.shared()
        let directory = try CLI.temporaryDirectory()
        let pair = pki.pair("server")
        let launched = try await ServerProcess.launch([
            "--db", directory.appendingPathComponent("server.sqlite").path, "--port", "0",
            "--api-key", "\(keyA):merchant_a", "--api-key", "\(keyB):merchant_b",
            "--tls-cert", pair.certificate, "--tls-key", pair.privateKey,
        ])
        let server = try #require(launched.server, "vault-server did not start: \(launched.stderr)")
        return Setup(server: server, pki: pki, directory: directory)
    }

    static func add(_ setup: Setup, _ database: String, merchant: String, number: String = "4242 4242 4242 4242")
        async throws -> String {
        let added = try await CLI.run(["vault", "add"] + setup.scope(database, merchant: merchant)
                                      + ["--number", number, "--expiry", "12/39", "--json"], in: setup.directory)
        #expect(added.status == 0, "\(added)")
        return try #require(try added.object()["id"] as? String)
    }

    @Test("the issue's reproduction: vault add + vault sync --merchant merchant_x with merchant_a's key stores nothing under merchant_a")
    func anotherMerchantsOutboxIsNeverSent() async throws {
        let setup = try await Self.start()
        defer { Task { _ = await setup.server.terminate() } }
        _ = try await Self.add(setup, "device.sqlite", merchant: "merchant_x")

        let refused = try await CLI.run(["vault", "sync"] + setup.scope("device.sqlite", merchant: "merchant_x")
                                        + setup.remote(Self.keyA) + ["--json"], in: setup.directory)
        #expect(refused.status == 1, "\(refused)")
        let error = try #require(try refused.object()["error"] as? [String: Any])
        #expect(error["code"] as? String == "merchant-mismatch", "\(refused)")
        #expect(try refused.object()["pending"] as? Int == 1, "the op stays queued for merchant_x's own key")
        #expect(refused.stderr.contains("belongs to merchant merchant_a, not to merchant_x/customer_1"), "\(refused)")
        #expect(!refused.stderr.contains(Self.keyA))

        // merchant_a's customer_1 holds nothing: a fresh device of merchant_a pulls an empty feed.
        let merchantA = try await CLI.run(["vault", "sync"] + setup.scope("fresh.sqlite", merchant: "merchant_a")
                                          + setup.remote(Self.keyA) + ["--json"], in: setup.directory)
        #expect(merchantA.status == 0, "\(merchantA)")
        #expect(try merchantA.object()["pulled"] as? Int == 0, "\(merchantA)")
    }

    @Test("pulls in reverse: merchant_a's cards are never pulled into a merchant_x scope")
    func anotherMerchantsFeedIsNeverPulled() async throws {
        let setup = try await Self.start()
        defer { Task { _ = await setup.server.terminate() } }
        _ = try await Self.add(setup, "a.sqlite", merchant: "merchant_a")
        let pushed = try await CLI.run(["vault", "sync"] + setup.scope("a.sqlite", merchant: "merchant_a")
                                       + setup.remote(Self.keyA) + ["--json"], in: setup.directory)
        #expect(try pushed.object()["pushed"] as? Int == 1, "\(pushed)")

        let refused = try await CLI.run(["vault", "sync"] + setup.scope("x.sqlite", merchant: "merchant_x")
                                        + setup.remote(Self.keyA) + ["--json"], in: setup.directory)
        #expect(refused.status == 1, "\(refused)")
        #expect((try refused.object()["error"] as? [String: Any])?["code"] as? String == "merchant-mismatch")
        let listed = try await CLI.run(["vault", "list"] + setup.scope("x.sqlite", merchant: "merchant_x") + ["--json"],
                                       in: setup.directory)
        #expect(listed.stdout == "[]\n", "\(listed)")
    }

    @Test("one local store with two merchants: each syncs only with its own key, and each server tenant gets only its card")
    func oneStoreSeveralMerchants() async throws {
        let setup = try await Self.start()
        defer { Task { _ = await setup.server.terminate() } }
        let cardA = try await Self.add(setup, "shared.sqlite", merchant: "merchant_a")
        let cardB = try await Self.add(setup, "shared.sqlite", merchant: "merchant_b", number: "5555 5555 5555 4444")

        // B's key cannot sync A's scope, A's key cannot sync B's: nothing moves.
        for (merchant, key) in [("merchant_a", Self.keyB), ("merchant_b", Self.keyA)] {
            let wrong = try await CLI.run(["vault", "sync"] + setup.scope("shared.sqlite", merchant: merchant)
                                          + setup.remote(key) + ["--json"], in: setup.directory)
            #expect(wrong.status == 1, "\(wrong)")
            #expect(try wrong.object()["pending"] as? Int == 1, "\(wrong)")
        }
        for (merchant, key) in [("merchant_a", Self.keyA), ("merchant_b", Self.keyB)] {
            let own = try await CLI.run(["vault", "sync"] + setup.scope("shared.sqlite", merchant: merchant)
                                        + setup.remote(key) + ["--json"], in: setup.directory)
            #expect(own.status == 0, "\(own)")
            #expect(try own.object()["pushed"] as? Int == 1, "\(own)")
        }
        for (merchant, key, card) in [("merchant_a", Self.keyA, cardA), ("merchant_b", Self.keyB, cardB)] {
            let database = "fresh-\(merchant).sqlite"
            let pulled = try await CLI.run(["vault", "sync"] + setup.scope(database, merchant: merchant)
                                           + setup.remote(key) + ["--json"], in: setup.directory)
            #expect(try pulled.object()["pulled"] as? Int == 1, "\(pulled)")
            let listed = try await CLI.run(["vault", "list"] + setup.scope(database, merchant: merchant) + ["--json"],
                                           in: setup.directory).array()
            #expect(listed.compactMap { $0["id"] as? String } == [card])
        }
    }

    @Test("--max-pages bounds a round: it says partial and the next sync resumes from its cursor")
    func boundedRounds() async throws {
        let setup = try await Self.start()
        defer { Task { _ = await setup.server.terminate() } }
        for index in 0..<5 {
            _ = try await Self.add(setup, "writer.sqlite", merchant: "merchant_a", number: ["4242 4242 4242 4242",
                                   "5555 5555 5555 4444", "4000 0566 5566 5556", "3782 822463 10005", "6011 1111 1111 1117"][index])
        }
        let pushed = try await CLI.run(["vault", "sync"] + setup.scope("writer.sqlite", merchant: "merchant_a")
                                       + setup.remote(Self.keyA) + ["--json"], in: setup.directory)
        #expect(try pushed.object()["pushed"] as? Int == 5, "\(pushed)")

        let bounded = ["--page-size", "2", "--max-pages", "2"]
        let first = try await CLI.run(["vault", "sync"] + setup.scope("reader.sqlite", merchant: "merchant_a")
                                      + setup.remote(Self.keyA) + bounded, in: setup.directory)
        #expect(first.status == 0, "\(first)")
        #expect(first.stdout.hasPrefix("pulled 4, "), "\(first)")
        #expect(first.stdout.contains("partial: stopped at the page limit (2 pages); sync again to continue"), "\(first)")
        let second = try await CLI.run(["vault", "sync"] + setup.scope("reader.sqlite", merchant: "merchant_a")
                                       + setup.remote(Self.keyA) + bounded + ["--json"], in: setup.directory)
        #expect(try second.object()["pulled"] as? Int == 1, "resumed after the 4 pulled: \(second)")
        #expect(try second.object()["partial"] as? Bool == false, "\(second)")
        let listed = try await CLI.run(["vault", "list"] + setup.scope("reader.sqlite", merchant: "merchant_a") + ["--json"],
                                       in: setup.directory).array()
        #expect(listed.count == 5)
    }

    @Test("vault tokens are masked in text output and kept whole in --json")
    func tokensMaskedInText() async throws {
        let directory = try CLI.temporaryDirectory()
        let scope = ["--db", directory.appendingPathComponent("v.sqlite").path, "--merchant", "merchant_a",
                     "--customer", "customer_1"]
        let added = try await CLI.run(["vault", "add"] + scope + ["--number", "4242 4242 4242 4242", "--expiry", "12/39"],
                                      in: directory)
        #expect(added.status == 0, "\(added)")
        let listed = try await CLI.run(["vault", "list"] + scope + ["--json"], in: directory).array()
        let token = try #require(listed.first?["id"] as? String)
        #expect(token.count > 12)
        let text = try await CLI.run(["vault", "list"] + scope, in: directory)
        for output in [added.stdout, text.stdout] {
            #expect(!output.contains(token), "\(output)")
            #expect(output.contains("•••" + token.suffix(4)), "\(output)")
        }
        let made = try await CLI.run(["vault", "default"] + scope + ["--id", token], in: directory)
        #expect(made.stdout == "default: •••\(token.suffix(4))\n", "\(made)")
        let deleted = try await CLI.run(["vault", "delete"] + scope + ["--id", token], in: directory)
        #expect(deleted.stdout == "deleted •••\(token.suffix(4))\n", "\(deleted)")
    }

    @Test("a rejection line on stderr names the token masked")
    func rejectionLinesMaskTheToken() async throws {
        let setup = try await Self.start()
        defer { Task { _ = await setup.server.terminate() } }
        let token = try await Self.add(setup, "one.sqlite", merchant: "merchant_a")
        let sync = { (database: String) in
            try await CLI.run(["vault", "sync"] + setup.scope(database, merchant: "merchant_a") + setup.remote(Self.keyA),
                              in: setup.directory)
        }
        #expect(try await sync("one.sqlite").status == 0)
        #expect(try await sync("two.sqlite").status == 0, "the second device has the card")
        // The first device deletes it; the second, not yet aware, makes it its default.
        #expect(try await CLI.run(["vault", "delete"] + setup.scope("one.sqlite", merchant: "merchant_a") + ["--id", token],
                                  in: setup.directory).status == 0)
        #expect(try await sync("one.sqlite").status == 0)
        #expect(try await CLI.run(["vault", "default"] + setup.scope("two.sqlite", merchant: "merchant_a") + ["--id", token],
                                  in: setup.directory).status == 0)
        let refused = try await sync("two.sqlite")
        #expect(refused.status == 0, "\(refused)")
        #expect(refused.stderr.contains("rejected: setDefault of •••\(token.suffix(4)): "), "\(refused)")
        #expect(!(refused.stdout + refused.stderr).contains(token), "\(refused)")
    }

    static let credentialURLs = [
        "http://user:secretpw@127.0.0.1:1",
        "https://user:secretpw@vault.example.com:8443/base",
        "http://user:secretpw@",
        "ftp://user:secretpw@vault.example.com",
        "http://user:secret/pw@127.0.0.1:1",
        "https://secretpw@127.0.0.1:1",
    ]

    @Test("a URL credential in --remote is a usage error that never repeats the password", arguments: credentialURLs)
    func urlCredentialsNeverEchoed(_ remote: String) async throws {
        let directory = try CLI.temporaryDirectory()
        let runs = [
            ["vault", "sync", "--db", directory.appendingPathComponent("v.sqlite").path, "--merchant", "merchant_a",
             "--customer", "customer_1", "--remote", remote, "--api-key", Self.keyA],
            ["vault", "sync", "--db", directory.appendingPathComponent("v.sqlite").path, "--merchant", "merchant_a",
             "--customer", "customer_1", "--remote", remote, "--api-key", Self.keyA, "--json"],
            ["vault", "key", "create", "--remote", remote, "--api-key", Self.keyA, "--customer", "customer_1"],
        ]
        for words in runs {
            let result = try await CLI.run(words, in: directory)
            #expect(result.status == 2, "\(words): \(result)")
            #expect(!(result.stdout + result.stderr).contains("secretpw"), "\(words): \(result)")
            #expect(!(result.stdout + result.stderr).contains("secret/pw"), "\(words): \(result)")
        }
    }
}
