import CheckoutTestSupport
import CheckoutCrypto
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// No shipped key, no config read unless named, keys from a file or the
/// environment, and short keys refused at start.
@Suite(.enabled(if: RequiredDependency.executables.runs(VaultServerBinary.url != nil), "vault-server is not built next to the tests (run `swift build` first)"),
       .timeLimit(.minutes(2)))
struct VaultServerKeyOptionsTests {
    /// A scratch directory removed at the end.
    final class Scratch {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("vault-keys-\(UUID().uuidString)")
        init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(at: url) }
        func path(_ name: String) -> String { url.appendingPathComponent(name).path }
        /// Writes a file private to its owner (0600), or with `mode`.
        func write(_ name: String, _ text: String, mode: Int = 0o600) throws -> String {
            try Data(text.utf8).write(to: url.appendingPathComponent(name))
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path(name))
            return path(name)
        }
    }

    static func randomKey(_ label: String) throws -> String { "\(label)-" + Hex.encode(try SecureRandom.bytes(24)) }

    @Test("a Config/vault-server.json in the working directory is not read without --config: its key gets 401")
    func strayConfigIgnored() async throws {
        let scratch = try Scratch()
        let strayKey = try Self.randomKey("stray")
        try FileManager.default.createDirectory(atPath: scratch.path("Config"), withIntermediateDirectories: true)
        _ = try scratch.write("Config/vault-server.json", """
            {"listen": {"host": "127.0.0.1", "port": 0}, "apiKeys": {"\(strayKey)": "merchant_a"},
             "tombstoneRetentionSeconds": 60, "threads": 2,
             "limits": {"maxBodyBytes": 1048576, "maxPageSize": 100, "defaultPageSize": 10, "maxOpsPerBatch": 10,
                        "rateLimitPerSecond": 100, "rateLimitBurst": 100}}
            """)
        let key = try Self.randomKey("prod")
        let launched = try await ServerProcess.launch(["--port", "0", "--db", scratch.path("vault.sqlite"),
                                                       "--api-key", "\(key):merchant_a"], workingDirectory: scratch.url.path)
        let server = try #require(launched.server, "exited \(String(describing: launched.exitStatus)): \(launched.stderr)")
        #expect(try await server.request("GET", "/v1/customers/c1/instruments", apiKey: key).0 == 200)
        #expect(try await server.request("GET", "/v1/customers/c1/instruments", apiKey: strayKey).0 == 401)
        #expect(await server.terminate() == .exited(0))
    }

    @Test("keys come from --api-key-file (comments, blank lines, sha256: entries) and CHECKOUTKIT_VAULT_API_KEYS")
    func keysFromFileAndEnvironment() async throws {
        let scratch = try Scratch()
        let fileKey = try Self.randomKey("file")
        let hashedKey = try Self.randomKey("hashed")
        let environmentKey = try Self.randomKey("env")
        let keyFile = try scratch.write("keys.txt", """
            # merchant_a's backend
            \(fileKey):merchant_a

              sha256:\(Hex.encode(Digest.sha256(Array(hashedKey.utf8)))):merchant_b\r
            """)
        let launched = try await ServerProcess.launch(["--port", "0", "--db", scratch.path("vault.sqlite"), "--api-key-file", keyFile],
                                                      environment: ["CHECKOUTKIT_VAULT_API_KEYS": "\(environmentKey):merchant_c"])
        let server = try #require(launched.server, "exited \(String(describing: launched.exitStatus)): \(launched.stderr)")
        for key in [fileKey, hashedKey, environmentKey] {
            #expect(try await server.request("GET", "/v1/customers/c1/instruments", apiKey: key).0 == 200)
        }
        #expect(await server.terminate() == .exited(0))
    }

    struct Refusal: Sendable, CustomTestStringConvertible {
        var name: String
        var arguments: [String]
        var environment: [String: String] = [:]
        var file: String?
        /// The key file's mode.
        var mode = 0o600
        /// A configuration file's `apiKeys` member, passed with --config.
        var configKeys: String?
        var message: String
        var testDescription: String { name }
    }

    static let shortKey = "short-key-\(UUID().uuidString.prefix(8))"
    static let refusals: [Refusal] = [
        Refusal(name: "short --api-key", arguments: ["--api-key", "\(shortKey):merchant_a"],
                message: "a key of merchant_a is 18 characters; an API key must be at least 32 random characters"),
        Refusal(name: "short key in the environment", arguments: [], environment: ["CHECKOUTKIT_VAULT_API_KEYS": "\(shortKey):merchant_b"],
                message: "a key of merchant_b is 18 characters"),
        Refusal(name: "short key in a file", arguments: [], file: "\(shortKey):merchant_c\n", message: "a key of merchant_c is 18 characters"),
        Refusal(name: "malformed line in a file", arguments: [], file: "# keys\n\(shortKey)\n", message: "keys.txt line 2: expected KEY:MERCHANT"),
        Refusal(name: "no key at all", arguments: [], message: "no API keys: pass --api-key-file PATH"),
        Refusal(name: "short key in --config", arguments: [], configKeys: #"{"\#(shortKey)": "merchant_d"}"#,
                message: "a key of merchant_d is 18 characters"),
        Refusal(name: "a key file others may read (0644)", arguments: [], file: "\(String(repeating: "k", count: 40)):merchant_e\n",
                mode: 0o644, message: "keys.txt has mode 644, so its group or others may read it; make it private"),
        Refusal(name: "a key file its group may read (0640)", arguments: [], file: "\(String(repeating: "k", count: 40)):merchant_e\n",
                mode: 0o640, message: "keys.txt has mode 640"),
    ]

    @Test("a short, malformed or missing key is refused at start with exit 2, naming the merchant or line, never the key",
          arguments: refusals)
    func refusedAtStart(_ refusal: Refusal) async throws {
        let scratch = try Scratch()
        var arguments = ["--port", "0", "--db", scratch.path("vault.sqlite")] + refusal.arguments
        if let file = refusal.file { arguments += ["--api-key-file", try scratch.write("keys.txt", file, mode: refusal.mode)] }
        if let keys = refusal.configKeys {
            arguments += ["--config", try scratch.write("vault-server.json", """
                {"listen": {"host": "127.0.0.1", "port": 0}, "apiKeys": \(keys), "tombstoneRetentionSeconds": 60, "threads": 2,
                 "limits": {"maxBodyBytes": 1048576, "maxPageSize": 100, "defaultPageSize": 10, "maxOpsPerBatch": 10,
                            "rateLimitPerSecond": 100, "rateLimitBurst": 100}}
                """)]
        }
        let launched = try await ServerProcess.launch(arguments, environment: refusal.environment)
        if let server = launched.server {
            Issue.record("vault-server started")
            _ = await server.terminate()
        }
        #expect(launched.exitStatus == 2)
        #expect(launched.stderr.contains(refusal.message), "\(launched.stderr)")
        #expect(!launched.stderr.contains(Self.shortKey))
    }
}
