import CheckoutDemo
import CheckoutLocking
import CheckoutTestSupport
import Foundation
import Testing

/// Runs `checkout demo` end to end, in process, against the real embedded vault server.
@Suite(.serialized) struct DemoTests {
    final class Lines: Sendable {
        let storage = Locked<[String]>([])
        func append(_ line: String) { storage.withLock { $0.append(line) } }
        var all: [String] { storage.withLock { $0 } }
    }

    func runDemo(verbose: Bool = false, workspace: URL? = nil) async throws -> [String] {
        let lines = Lines()
        let runner = DemoRunner(options: .init(verbose: verbose, workspace: workspace), write: { lines.append($0) })
        try await runner.run()
        return lines.all
    }

    @Test func demoRunsEveryStepToTheEnd() async throws {
        let lines = try await runDemo()
        let text = lines.joined(separator: "\n")
        let expected = [
            "vault server listening on https://127.0.0.1:",
            "the backend minted an ephemeral key for customer_demo",
            "never holds the merchant key",
            "session ready: 6 payment methods",
            "Choose a payment method",
            "paid €49.99 by card",
            "saved the VISA ••••4242; synced to the server",
            "declined as expected (Do not honor), failure delivered, session still ready",
            "paid with PayPal by redirect",
            "after CVV recapture",
            "offline: server stopped;",
            "back online on the same port:",
            "TLS handshakes",
            "✔ demo complete: every step passed",
        ]
        for fragment in expected { #expect(text.contains(fragment), "missing: \(fragment)\n\(text)") }
        #expect(!text.contains("✘"))
        // Secrets are never printed: not the ephemeral key's, not the merchant key.
        #expect(!text.contains("eks_") && !text.contains(DemoRunner.apiKeyPrefix))
    }

    @Test func methodRowsArePositionedByTheThemeSpacing() async throws {
        let lines = try await runDemo()
        let positions = lines.compactMap { line -> (Int, Int)? in
            guard let range = line.range(of: #"y=(\d+) h=(\d+)"#, options: .regularExpression) else { return nil }
            let parts = line[range].split(separator: " ").map { Int($0.dropFirst(2)) ?? -1 }
            return (parts[0], parts[1])
        }
        // Header 20 high, then space.medium (12), then rows of 44 separated by space.small (8).
        #expect(positions.map(\.0) == [0, 32, 84, 136, 188, 240, 292])
        #expect(positions.dropFirst().allSatisfy { $0.1 == 44 })
    }

    @Test func demoRunsTwiceInARowAndNeverPrintsACardNumber() async throws {
        let first = try await runDemo(verbose: true)
        let second = try await runDemo(verbose: true)
        for text in [first, second].map({ $0.joined(separator: "\n") }) {
            for number in ["4242424242424242", "4242 4242 4242 4242", "4000000000000002", "5555555555554444",
                           "5555 5555 5555 4444", "378282246310005"] {
                #expect(!text.contains(number))
            }
            // However written: any separators, any digit script, UTF-8 or UTF-16.
            #expect(PaymentDataByteScanner.find(Self.cardNumbers, in: Data(text.utf8)).isEmpty)
            #expect(text.contains("✔ demo complete"))
        }
    }

    @Test("the demo's databases (device vault, vault server, WAL files) hold no card number it used")
    func demoStoresNoCardNumber() async throws {
        let workspace = FileManager.default.temporaryDirectory.appendingPathComponent("demo-scan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: workspace, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: workspace) }
        _ = try await runDemo(workspace: workspace)
        let files = try #require(FileManager.default.enumerator(at: workspace, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }.filter { !$0.hasDirectoryPath }
        #expect(files.contains { $0.lastPathComponent.hasSuffix(".sqlite") }, "the demo kept no database: \(files)")
        for file in files {
            // A -wal or -shm file can be removed by its database's last close between the listing
            // and this read (its pages are then in the .sqlite file, which is read).
            guard let bytes = try? Data(contentsOf: file) else {
                #expect(!FileManager.default.fileExists(atPath: file.path), "\(file.lastPathComponent) could not be read")
                #expect(!file.lastPathComponent.hasSuffix(".sqlite"), "\(file.lastPathComponent) vanished")
                continue
            }
            for number in ["4242424242424242", "4242 4242 4242 4242", "4000000000000002", "4000 0000 0000 0002",
                           "5555555555554444", "5555 5555 5555 4444", "378282246310005"] {
                #expect(bytes.range(of: Data(number.utf8)) == nil, "\(number) in \(file.lastPathComponent)")
            }
        }
        let scan = PaymentDataByteScanner.scan(files: files, for: Self.cardNumbers)
        #expect(scan.bytesScanned > 0)
        #expect(scan.hits.isEmpty, "\(scan.hits)")
    }

    /// Every card number `DemoRunner` enters or pays with.
    static let cardNumbers: Set<String> = ["4242424242424242", "4000000000000002", "5555555555554444", "378282246310005"]
}
