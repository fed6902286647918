import Foundation
import TLSTestSupport
import Testing

/// `checkout vault sync` and `checkout vault key` against a real `vault-server` process serving
/// HTTPS with a certificate from a CA made for the test: the contract as written in the issue.
@Suite(.timeLimit(.minutes(5))) struct VaultSyncHTTPSTests {
    static let merchantKey = "cli-https-merchant-key-a-\(UUID().uuidString)"

    /// A vault-server on loopback with `certificate`, and the CLI words that reach it.
    struct Setup {
        let server: ServerProcess
        let remote: String
        let pki: TestPKI
        let directory: URL

        func scope(_ database: String, customer: String = "customer_1") -> [String] {
            ["--db", directory.appendingPathComponent(database).path, "--merchant", "merchant_a", "--customer", customer]
        }
    }

    static func start(_ certificate: String = "server") async throws -> Setup {
        let pki = try await TestPKI.shared()
        let directory = try CLI.temporaryDirectory()
        let pair = pki.pair(certificate)
        let launched = try await ServerProcess.launch([
            "--db", directory.appendingPathComponent("server.sqlite").path, "--port", "0",
            "--api-key", "\(merchantKey):merchant_a", "--tls-cert", pair.certificate, "--tls-key", pair.privateKey,
        ])
        let server = try #require(launched.server, "vault-server did not start: \(launched.stderr)")
        #expect(server.scheme == "https")
        return Setup(server: server, remote: "https://127.0.0.1:\(server.port)", pki: pki, directory: directory)
    }

    @Test("vault sync over HTTPS with --ca-bundle: exit 0; without it the certificate is refused with its cause, exit 1")
    func syncOverHTTPS() async throws {
        let setup = try await Self.start()
        defer { Task { _ = await setup.server.terminate() } }
        let added = try await CLI.run(["vault", "add"] + setup.scope("device.sqlite")
                                      + ["--number", "4242 4242 4242 4242", "--expiry", "12/39", "--json"], in: setup.directory)
        #expect(added.status == 0, "\(added)")

        let untrusted = try await CLI.run(["vault", "sync"] + setup.scope("device.sqlite")
                                          + ["--remote", setup.remote, "--api-key", Self.merchantKey, "--json"], in: setup.directory)
        #expect(untrusted.status == 1, "\(untrusted)")
        #expect(untrusted.stderr.contains("certificate not trusted"), "\(untrusted)")
        #expect((try untrusted.object()["error"] as? [String: Any])?["code"] as? String == "untrusted-server")
        #expect(!untrusted.stderr.contains(Self.merchantKey))

        let synced = try await CLI.run(["vault", "sync"] + setup.scope("device.sqlite")
                                       + ["--remote", setup.remote, "--ca-bundle", setup.pki.caBundle, "--api-key", Self.merchantKey,
                                          "--json"], in: setup.directory)
        #expect(synced.status == 0, "\(synced)")
        #expect(try synced.object()["pushed"] as? Int == 1)
        #expect(try synced.object()["pending"] as? Int == 0)
    }

    @Test("a proxy from the environment never carries plain HTTP to loopback (the merchant key would cross it in clear)")
    func loopbackBypassesProxies() async throws {
        let directory = try CLI.temporaryDirectory()
        let launched = try await ServerProcess.launch(["--db", directory.appendingPathComponent("s.sqlite").path, "--port", "0",
                                                       "--api-key", "\(Self.merchantKey):merchant_a"])
        let server = try #require(launched.server, "\(launched.stderr)")
        defer { Task { _ = await server.terminate() } }
        #expect(server.scheme == "http")
        // Nothing listens on the discard port: a request sent through the proxy would fail.
        let proxy = "http://127.0.0.1:9"
        let result = try await CLI.run(["vault", "sync", "--db", directory.appendingPathComponent("d.sqlite").path,
                                        "--merchant", "merchant_a", "--customer", "c1",
                                        "--remote", "http://127.0.0.1:\(server.port)", "--api-key", Self.merchantKey, "--json"],
                                       in: directory,
                                       environment: ["http_proxy": proxy, "HTTP_PROXY": proxy, "https_proxy": proxy,
                                                     "all_proxy": proxy, "ALL_PROXY": proxy, "no_proxy": "", "NO_PROXY": ""])
        #expect(result.status == 0, "\(result)")
    }

    @Test("a certificate for another host name: exit 1 naming the mismatch")
    func hostMismatch() async throws {
        let setup = try await Self.start("wrong-host")
        defer { Task { _ = await setup.server.terminate() } }
        let result = try await CLI.run(["vault", "sync"] + setup.scope("device.sqlite")
                                       + ["--remote", setup.remote, "--ca-bundle", setup.pki.caBundle, "--api-key", Self.merchantKey],
                                       in: setup.directory)
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("host name mismatch"), "\(result)")
    }

    @Test("a device syncs with an ephemeral key only; another customer is not found; a revoked key is exit 1 with key-revoked")
    func ephemeralKeys() async throws {
        let setup = try await Self.start()
        defer { Task { _ = await setup.server.terminate() } }
        let tls = ["--remote", setup.remote, "--ca-bundle", setup.pki.caBundle]
        // The backend saves a card and mints a key for the customer's device.
        _ = try await CLI.run(["vault", "add"] + setup.scope("backend.sqlite")
                              + ["--number", "4242 4242 4242 4242", "--expiry", "12/39"], in: setup.directory)
        let pushed = try await CLI.run(["vault", "sync"] + setup.scope("backend.sqlite") + tls + ["--api-key", Self.merchantKey],
                                       in: setup.directory)
        #expect(pushed.status == 0, "\(pushed)")
        let created = try await CLI.run(["vault", "key", "create"] + tls
                                        + ["--api-key", Self.merchantKey, "--customer", "customer_1", "--ttl", "600", "--json"],
                                        in: setup.directory)
        #expect(created.status == 0, "\(created)")
        let key = try created.object()
        let secret = try #require(key["secret"] as? String)
        let id = try #require(key["id"] as? String)
        #expect(key["expiresAt"] is String)
        #expect(key["customer"] as? String == "customer_1")

        let device = try await CLI.run(["vault", "sync"] + setup.scope("device.sqlite") + tls + ["--ephemeral-key", secret, "--json"],
                                       in: setup.directory)
        #expect(device.status == 0, "\(device)")
        #expect(try device.object()["pulled"] as? Int == 1)

        let otherCustomer = try await CLI.run(["vault", "sync"] + setup.scope("device.sqlite", customer: "customer_2") + tls
                                              + ["--ephemeral-key", secret], in: setup.directory)
        // The client asks whoami first and refuses another customer's scope before sending
        // anything (the server would answer 404, see EphemeralKeyTests).
        #expect(otherCustomer.status == 1, "\(otherCustomer)")
        #expect(otherCustomer.stderr.contains("belongs to merchant merchant_a, customer customer_1"), "\(otherCustomer)")

        let revoked = try await CLI.run(["vault", "key", "revoke"] + tls + ["--api-key", Self.merchantKey, "--id", id, "--json"],
                                        in: setup.directory)
        #expect(revoked.status == 0, "\(revoked)")
        let refused = try await CLI.run(["vault", "sync"] + setup.scope("device.sqlite") + tls + ["--ephemeral-key", secret, "--json"],
                                        in: setup.directory)
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stderr.contains("key-revoked"), "\(refused)")
        #expect((try refused.object()["error"] as? [String: Any])?["code"] as? String == "key-revoked")
        #expect(!refused.stderr.contains(secret) && !refused.stdout.contains(secret))
    }
}
