import CheckoutCrypto
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

struct VaultServerExecutableTests {
    static let key = "exe-test-key-\(UUID().uuidString)"

    @Test("vault-server prints its address, serves, and exits 0 on SIGTERM",
          .enabled(if: VaultServerBinary.url != nil, "vault-server is not built next to the tests (run `swift build` first)"))
    func launchAndTerminate() async throws {
        let database = FileManager.default.temporaryDirectory.appendingPathComponent("vault-server-exe-\(UUID().uuidString).sqlite")
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database.path + suffix) }
        }
        let launched = try await ServerProcess.launch(["--port", "0", "--db", database.path,
                                                       "--api-key", "\(Self.key):merchant_x", "--host", "127.0.0.1"])
        // It must announce its address on the first line.
        let server = try #require(launched.server, "vault-server exited \(String(describing: launched.exitStatus)): \(launched.stderr)")
        #expect(server.port > 0)

        let listed = try await server.request("GET", "/v1/customers/c1/instruments", apiKey: Self.key)
        #expect(listed.0 == 200)
        #expect(listed.1 == #"{"instruments":[]}"#)

        #expect(await server.terminate() == .exited(0))
    }

    @Test("--api-key takes sha256:HEX:MERCHANT; a malformed digest exits 2 naming the merchant, not the key",
          .enabled(if: VaultServerBinary.url != nil, "vault-server is not built next to the tests (run `swift build` first)"))
    func hashedKeyOption() async throws {
        let database = FileManager.default.temporaryDirectory.appendingPathComponent("vault-server-exe-\(UUID().uuidString).sqlite")
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database.path + suffix) }
        }
        let digest = Hex.encode(Digest.sha256(Array(Self.key.utf8)))
        let launched = try await ServerProcess.launch(["--port", "0", "--db", database.path, "--host", "127.0.0.1",
                                                       "--api-key", "sha256:\(digest):merchant_x"])
        let server = try #require(launched.server, "vault-server exited \(String(describing: launched.exitStatus)): \(launched.stderr)")
        #expect(try await server.request("GET", "/v1/customers/c1/instruments", apiKey: Self.key).0 == 200)
        #expect(try await server.request("GET", "/v1/customers/c1/instruments", apiKey: "sha256:\(digest)").0 == 401)
        #expect(await server.terminate() == .exited(0))

        let refused = try await ServerProcess.launch(["--port", "0", "--db", database.path,
                                                      "--api-key", "sha256:\(digest.prefix(40)):merchant_x"])
        #expect(refused.server == nil)
        #expect(refused.exitStatus == 2)
        #expect(refused.stderr.contains("merchant_x starts with sha256: but is not followed by exactly 64 lowercase hex digits"))
        #expect(!refused.stderr.contains(String(digest.prefix(40))))
    }
}
