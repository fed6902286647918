import Foundation
import Testing

/// `checkout vault sync`, the happy path, against a real `vault-server` process on loopback over
/// plain HTTP: two devices of one customer converge through the server, adds and deletes alike.
@Suite(.timeLimit(.minutes(5))) struct VaultSyncTests {
    static let merchantKey = "cli-sync-merchant-key-a-0123456789abcdef"

    @Test("vault sync: a card added on one device reaches the other; a delete there comes back; both end equal")
    func twoDevicesConverge() async throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let launched = try await ServerProcess.launch([
            "--db", directory.appendingPathComponent("server.sqlite").path, "--port", "0",
            "--api-key", "\(Self.merchantKey):merchant_a",
        ])
        let server = try #require(launched.server, "vault-server did not start: \(launched.stderr)")
        defer { Task { _ = await server.terminate() } }
        #expect(server.scheme == "http")
        func scope(_ device: String) -> [String] {
            ["--db", directory.appendingPathComponent("\(device).sqlite").path, "--merchant", "merchant_a", "--customer", "customer_1"]
        }
        let remote = ["--remote", "http://127.0.0.1:\(server.port)", "--api-key", Self.merchantKey, "--json"]

        let added = try await CLI.run(["vault", "add"] + scope("a") + ["--number", "4242 4242 4242 4242", "--expiry", "12/39",
                                                                      "--name", "Jo Doe", "--json"], in: directory)
        #expect(added.status == 0, "\(added)")
        let id = try #require(try added.object()["id"] as? String)

        let pushed = try await CLI.run(["vault", "sync"] + scope("a") + remote, in: directory)
        #expect(pushed.status == 0, "\(pushed)")
        #expect(try pushed.object()["pushed"] as? Int == 1)
        #expect(try pushed.object()["pending"] as? Int == 0)

        let pulled = try await CLI.run(["vault", "sync"] + scope("b") + remote, in: directory)
        #expect(pulled.status == 0, "\(pulled)")
        #expect(try pulled.object()["pulled"] as? Int == 1)
        let onB = try await CLI.run(["vault", "list"] + scope("b") + ["--json"], in: directory).array()
        #expect(onB.compactMap { $0["id"] as? String } == [id])
        let data = try #require(onB.first?["paymentInstrumentData"] as? [String: Any])
        #expect(data["last4Digits"] as? String == "4242")
        #expect(data["cardholderName"] as? String == "Jo Doe")

        let deleted = try await CLI.run(["vault", "delete"] + scope("b") + ["--id", id, "--json"], in: directory)
        #expect(deleted.status == 0, "\(deleted)")
        let pushedDelete = try await CLI.run(["vault", "sync"] + scope("b") + remote, in: directory)
        #expect(pushedDelete.status == 0, "\(pushedDelete)")
        #expect(try pushedDelete.object()["pushed"] as? Int == 1)
        let back = try await CLI.run(["vault", "sync"] + scope("a") + remote, in: directory)
        #expect(back.status == 0, "\(back)")
        #expect(try await CLI.run(["vault", "list"] + scope("a") + ["--json"], in: directory).stdout == "[]\n")
        #expect(try await CLI.run(["vault", "list"] + scope("b") + ["--json"], in: directory).stdout == "[]\n")
        let (status, body) = try await server.request("GET", "/v1/customers/customer_1/instruments", apiKey: Self.merchantKey)
        #expect(status == 200 && body.contains(#""instruments":[]"#), "the server still lists the card: \(body)")
        #expect(!pushed.stdout.contains("4242424242424242") && !pulled.stdout.contains("4242424242424242"))
    }
}
