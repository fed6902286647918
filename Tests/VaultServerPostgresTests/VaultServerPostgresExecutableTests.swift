import CheckoutTestSupport
import Foundation
import Testing

/// `vault-server --storage postgres://...`: two processes on one database serve one vault.
@Suite(.enabled(if: RequiredDependency.executables.runs(VaultServerBinary.url != nil), "vault-server is not built next to the tests (run `swift build` first)"))
struct VaultServerPostgresExecutableTests {
    static let key = "exe-pg-key-\(UUID().uuidString)"

    @Test("two vault-server processes with --storage postgres:// share one vault and exit 0 on SIGTERM",
          .enabled(if: PostgresTestEnvironment.isConfigured,
                   "PostgreSQL tests skipped: CHECKOUTKIT_POSTGRES_URL not set (run: scripts/with-postgres.sh swift test)"))
    func twoProcesses() async throws {
        let schema = try PostgresTestSchema()
        defer { withExtendedLifetime(schema) {} }
        let arguments = ["--port", "0", "--host", "127.0.0.1", "--storage", schema.url, "--api-key", "\(Self.key):merchant_x"]
        let first = try #require(try await ServerProcess.launch(arguments).server)
        let second = try #require(try await ServerProcess.launch(arguments).server)

        let op = #"{"ops":[{"opId":"op-1","kind":"upsert","instrumentId":"tok-1","method":{"id":"tok-1","#
            + #""paymentMethodType":"PAYMENT_CARD","paymentInstrumentType":"PAYMENT_CARD","#
            + #""paymentInstrumentData":{"first6Digits":"424242","last4Digits":"4242"},"analyticsId":"a","isDefault":true}}]}"#
        let pushed = try await first.request("POST", "/v1/customers/c1/ops", apiKey: Self.key, body: op)
        #expect(pushed.0 == 200)
        #expect(pushed.1 == #"{"results":[{"opId":"op-1","status":"applied","version":1}]}"#)
        // The same op through the other process is a replay, not a second apply.
        let replayed = try await second.request("POST", "/v1/customers/c1/ops", apiKey: Self.key, body: op)
        #expect(replayed.1 == pushed.1)
        let listed = try await second.request("GET", "/v1/customers/c1/instruments", apiKey: Self.key)
        #expect(listed.0 == 200)
        #expect(listed.1.contains(#""id":"tok-1""#))
        #expect(listed.1.contains(#""version":1"#))

        #expect(await first.terminate() == .exited(0))
        #expect(await second.terminate() == .exited(0))
    }

    struct BadStorage: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var message: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    @Test("an unusable storage choice exits 2 with a clear message and no password", arguments: [
        BadStorage(arguments: ["--storage", "mysql://u:s3cret@127.0.0.1/db"], message: "storage must be"),
        BadStorage(arguments: ["--storage", "postgres://u:s3cret@127.0.0.1/db", "--db", "x.db"], message: "not both"),
        BadStorage(arguments: ["--storage"], message: "--storage needs a value"),
    ])
    func badStorage(_ testCase: BadStorage) async throws {
        let launched = try await ServerProcess.launch(["--port", "0", "--api-key", "\(Self.key):m"] + testCase.arguments)
        #expect(launched.server == nil)
        #expect(launched.exitStatus == 2)
        #expect(launched.stderr.contains(testCase.message))
        #expect(!launched.stderr.contains("s3cret"))
    }

    @Test("--storage takes its password from libpq's PGPASSFILE or PGPASSWORD, never from the URL; without one the start fails",
          .enabled(if: PostgresTestEnvironment.isConfigured && ProcessInfo.processInfo.environment["PGPASSFILE"] != nil,
                   "needs scripts/with-postgres.sh, whose cluster asks for a password it keeps in PGPASSFILE"))
    func passwordFromLibpqEnvironment() async throws {
        let schema = try PostgresTestSchema()
        defer { withExtendedLifetime(schema) {} }
        #expect(URLComponents(string: schema.url)?.password == nil, "the URL holds no password")
        let arguments = ["--port", "0", "--host", "127.0.0.1", "--storage", schema.url, "--api-key", "\(Self.key):merchant_x"]
        // PGPASSFILE (inherited from with-postgres.sh): serves.
        let served = try #require(try await ServerProcess.launch(arguments).server)
        #expect(try await served.request("GET", "/v1/customers/c1/instruments", apiKey: Self.key).0 == 200)
        #expect(await served.terminate() == .exited(0))
        // PGPASSWORD instead: serves too.
        let passfile = try #require(ProcessInfo.processInfo.environment["PGPASSFILE"])
        let line = try String(contentsOfFile: passfile, encoding: .utf8).split(separator: "\n").first ?? ""
        let password = String(line.split(separator: ":", maxSplits: 4).last ?? "")
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("pgpass-empty-\(UUID().uuidString)").path
        #expect(FileManager.default.createFile(atPath: empty, contents: Data(), attributes: [.posixPermissions: 0o600]))
        defer { try? FileManager.default.removeItem(atPath: empty) }
        let byVariable = try #require(try await ServerProcess.launch(
            arguments, environment: ["PGPASSFILE": empty, "PGPASSWORD": password]).server)
        #expect(await byVariable.terminate() == .exited(0))
        // Neither: the server cannot authenticate, exits 1, and prints no password.
        let refused = try await ServerProcess.launch(arguments, environment: ["PGPASSFILE": empty, "PGPASSWORD": ""])
        if let server = refused.server { _ = await server.terminate() }
        #expect(refused.server == nil)
        #expect(refused.exitStatus == 1)
        #expect(refused.stderr.contains("cannot open the storage"), "\(refused.stderr)")
        #expect(!password.isEmpty && !refused.stderr.contains(password))
    }

    @Test("an unreachable PostgreSQL server exits 1 without echoing the password")
    func unreachable() async throws {
        let launched = try await ServerProcess.launch(["--port", "0", "--api-key", "\(Self.key):m", "--storage",
                                                       "postgres://u:s3cret@127.0.0.1:1/db?connect_timeout=2"])
        #expect(launched.server == nil)
        #expect(launched.exitStatus == 1)
        #expect(launched.stderr.contains("cannot open the storage"))
        #expect(!launched.stderr.contains("s3cret"))
    }
}
