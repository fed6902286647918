import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// Finds the built `vault-server` next to the test bundle.
enum VaultServerBinary {
    static let url: URL? = {
        var candidates: [URL] = []
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").standardizedFileURL
        // .build/debug/<Package>PackageTests.xctest (a file on Linux, a bundle on macOS).
        candidates.append(executable.deletingLastPathComponent().appendingPathComponent("vault-server"))
        candidates.append(Bundle.main.bundleURL.appendingPathComponent("vault-server"))
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("vault-server"))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()
}

struct VaultServerExecutableTests {
    @Test("vault-server prints its address, serves, and exits 0 on SIGTERM",
          .enabled(if: VaultServerBinary.url != nil, "vault-server is not built next to the tests (run `swift build` first)"))
    func launchAndTerminate() async throws {
        let binary = try #require(VaultServerBinary.url)
        let database = FileManager.default.temporaryDirectory.appendingPathComponent("vault-server-exe-\(UUID().uuidString).sqlite")
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database.path + suffix) }
        }
        let process = Process()
        process.executableURL = binary
        process.arguments = ["--port", "0", "--db", database.path, "--api-key", "exe-test-key:merchant_x", "--host", "127.0.0.1"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()

        // Read the first line: it must announce the address.
        let line = try await Task.detached { () throws -> String in
            var bytes: [UInt8] = []
            while !bytes.contains(0x0A) {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                bytes += chunk
            }
            return String(decoding: bytes.prefix { $0 != 0x0A }, as: UTF8.self)
        }.value
        let prefix = "listening on http://127.0.0.1:"
        #expect(line.hasPrefix(prefix))
        let port = try #require(Int(line.dropFirst(prefix.count)))
        #expect(port > 0)

        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)/v1/customers/c1/instruments")))
        request.setValue("Bearer exe-test-key", forHTTPHeaderField: "Authorization")
        let (body, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: body, as: UTF8.self) == #"{"instruments":[]}"#)

        process.terminate()  // SIGTERM
        await Task.detached { process.waitUntilExit() }.value
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
    }
}
