import Foundation
import Testing

/// JSON output written through the `Encodable` types: the exact bytes (sorted keys, `null`, booleans,
/// escaping), in-process.
@Suite struct CommandJSONTests {
    @Test func vaultAddDefaultAndDeletePrintTheirExactJSON() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cli-json-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let scope = ["--merchant", "merchant_a", "--customer", "customer_1", "--db", directory.appendingPathComponent("v.sqlite").path]
        let added = await runCheckout(["vault", "add"] + scope + ["--number", "5555555555554444", "--expiry", "11/38", "--json"])
        #expect(added.status == 0, "\(added)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(added.stdout.utf8)) as? [String: Any], "\(added)")
        let id = try #require(object["id"] as? String)
        let madeDefault = await runCheckout(["vault", "default"] + scope + ["--id", id, "--json"])
        #expect(madeDefault.status == 0, "\(madeDefault)")
        #expect(madeDefault.stdout == "{\"id\":\"\(id)\",\"isDefault\":true}\n", "\(madeDefault)")
        let deleted = await runCheckout(["vault", "delete"] + scope + ["--id", id, "--json"])
        #expect(deleted.status == 0, "\(deleted)")
        #expect(deleted.stdout == "{\"deleted\":true,\"id\":\"\(id)\"}\n", "\(deleted)")
    }

    /// `network` has no value: `null`, key kept; no `--locale`: each error's `message` key left out.
    @Test func aNullableIsNullAndAnAbsentOptionalIsLeftOut() async throws {
        let result = await runCheckout(["card", "validate", "--number", "1234", "--json"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout == """
            {"errors":[{"code":"invalid-card-number","field":"cardNumber"}],"formatted":"1234","masked":"1234","network":null,"valid":false}

            """, "\(result)")
    }
}
