import CheckoutTestSupport
import Foundation
import Testing

/// `checkout vault add` is a vault-only save: tokenize, verify with a zero-amount authorisation at
/// the sandbox, then save. `--cvv` goes to the verification and is never stored.
@Suite struct VaultAddVerificationTests {
    static func scope(_ db: String) -> [String] { ["--db", db, "--merchant", "merchant_a", "--customer", "customer_1"] }

    /// The database, WAL and shm files of `db`.
    static func files(_ db: String) -> [URL] { ["", "-wal", "-shm"].map { URL(fileURLWithPath: db + $0) } }

    /// `bytes` with every UUID (8-4-4-4-12 hex digits) blanked: the ids the vault mints are random,
    /// and one of their groups can be the CVV's four digits (about one run in two thousand).
    static func withoutUUIDs(_ bytes: [UInt8]) -> [UInt8] {
        var bytes = bytes
        func isHex(_ byte: UInt8) -> Bool { (48...57).contains(byte) || (97...102).contains(byte) || (65...70).contains(byte) }
        var start = 0
        while start + 36 <= bytes.count {
            let matches = (0..<36).allSatisfy { offset in
                [8, 13, 18, 23].contains(offset) ? bytes[start + offset] == 45 : isHex(bytes[start + offset])
            }
            if matches {
                for offset in 0..<36 { bytes[start + offset] = 120 }
                start += 36
            } else {
                start += 1
            }
        }
        return bytes
    }

    /// True when `cvv` occurs outside the output's UUIDs.
    static func prints(_ cvv: String, _ output: String) -> Bool {
        String(decoding: withoutUUIDs(Array(output.utf8)), as: UTF8.self).contains(cvv)
    }

    /// True when `cvv` occurs in the files as a token of its own (not inside a longer digit or hex
    /// run, nor inside a UUID).
    static func holdsToken(_ cvv: String, in files: [URL]) -> Bool {
        let needle = Array(cvv.utf8)
        func isWordByte(_ byte: UInt8) -> Bool {
            (48...57).contains(byte) || (97...102).contains(byte) || (65...70).contains(byte)
        }
        for file in files {
            guard let data = try? Data(contentsOf: file) else { continue }
            let bytes = withoutUUIDs([UInt8](data))
            guard bytes.count >= needle.count else { continue }
            for start in 0...(bytes.count - needle.count) where bytes[start..<(start + needle.count)].elementsEqual(needle) {
                let before = start > 0 ? bytes[start - 1] : 0
                let after = start + needle.count < bytes.count ? bytes[start + needle.count] : 0
                if !isWordByte(before) && !isWordByte(after) { return true }
            }
        }
        return false
    }

    @Test("vault add verifies the card with the CVV, saves the masked card, and stores neither the number nor the CVV")
    func verifiedSaveStoresNoPANOrCVV() async throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let db = directory.appendingPathComponent("vault.sqlite").path
        let added = try await CLI.run(["vault", "add"] + Self.scope(db) + ["--number", "3782 822463 10005", "--expiry", "11/38",
                                                                           "--cvv", "7319", "--json"], in: directory)
        #expect(added.status == 0, "\(added)")
        let item = try added.object()
        #expect((item["id"] as? String)?.hasPrefix("vt_") == true)
        #expect(!Self.prints("7319", added.stdout))
        // Piped: number and CVV both from standard input, one line each.
        let piped = try await CLI.run(["vault", "add"] + Self.scope(db) + ["--number", "-", "--cvv", "-", "--expiry", "11/38",
                                                                           "--json"], in: directory,
                                      standardInput: "5555 5555 5555 4444\n8264\n")
        #expect(piped.status == 0, "\(piped)")
        let listed = try await CLI.run(["vault", "list"] + Self.scope(db) + ["--json"], in: directory)
        #expect(try listed.array().count == 2, "\(listed)")
        let (hits, scanned) = PaymentDataByteScanner.scan(files: Self.files(db), for: ["378282246310005", "5555555555554444"])
        #expect(scanned > 0)
        #expect(hits.isEmpty, "\(hits)")
        #expect(!Self.holdsToken("7319", in: Self.files(db)))
        #expect(!Self.holdsToken("8264", in: Self.files(db)))
    }

    struct Declined: Sendable, CustomStringConvertible {
        let label: String
        let number: String
        let cvv: String?
        let reason: String
        var description: String { label }
    }

    @Test("a declined verification is exit 1 and saves nothing", arguments: [
        Declined(label: "the sandbox's declining card", number: "4000 0000 0000 0002", cvv: "123", reason: "declined"),
        Declined(label: "a failed CVV check", number: "4242 4242 4242 4242", cvv: "000", reason: "CVV check failed"),
        Declined(label: "a card that needs a challenge", number: "4000 0000 0000 3220", cvv: nil, reason: "3-D Secure"),
    ])
    func declinedSavesNothing(_ example: Declined) async throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let db = directory.appendingPathComponent("vault.sqlite").path
        let result = try await CLI.run(["vault", "add"] + Self.scope(db) + ["--number", example.number, "--expiry", "11/38"]
                                       + (example.cvv.map { ["--cvv", $0] } ?? []) + ["--json"], in: directory)
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains(example.reason), "\(result)")
        #expect(!result.stderr.contains(example.number.filter { $0 != " " }))
        // However spelt (grouped as typed, digits only, any script or encoding): not in the
        // output, and not in any byte of the database it refused to save into.
        let digits: Set<String> = [example.number.filter { $0 != " " }]
        #expect(PaymentDataByteScanner.find(digits, in: Data((result.stdout + result.stderr).utf8)).isEmpty, "\(result)")
        let listed = try await CLI.run(["vault", "list"] + Self.scope(db) + ["--json"], in: directory)
        #expect(try listed.array().isEmpty, "\(listed)")
        #expect(PaymentDataByteScanner.scan(files: Self.files(db), for: digits).hits.isEmpty)
    }
}
