import CheckoutTestSupport
import CheckoutLocking
import Foundation
import Testing

/// Request bodies were buffered before authentication, so 300 connections
/// with a wrong key, each sending 1 MiB, took the server from 29 MB to 472 MB. Now the head alone
/// decides: the body of a refused request is never read.
@Suite(.enabled(if: RequiredDependency.executables.runs(VaultServerBinary.url != nil), "vault-server is not built next to the tests (run `swift build` first)"),
       .timeLimit(.minutes(2)))
struct UnauthenticatedMemoryTests {
    /// A field of /proc/PID/status in kB (`VmRSS`, `VmHWM`: the peak resident size).
    static func status(_ pid: pid_t, _ field: String) throws -> Int {
        let text = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix(field + ":") })
        return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? ""))
    }

    @Test("300 concurrent unauthenticated 1 MiB uploads grow the server's peak RSS by less than 50 MB")
    func unauthenticatedUploads() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vault-rss-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // 300 connections from one address are allowed, and every one is judged (no failure budget):
        // what keeps the memory down is that the body is never read.
        let config = directory.appendingPathComponent("vault-server.json")
        try Data("""
            {"listen": {"host": "127.0.0.1", "port": 0}, "apiKeys": {}, "tombstoneRetentionSeconds": 60, "threads": 4,
             "limits": {"maxBodyBytes": 1048576, "maxPageSize": 100, "defaultPageSize": 10, "maxOpsPerBatch": 10,
                        "rateLimitPerSecond": 100, "rateLimitBurst": 100, "maxConnectionsPerIP": 1024, "failedAuthBurst": 0}}
            """.utf8).write(to: config)
        let launched = try await ServerProcess.launch([
            "--config", config.path, "--db", directory.appendingPathComponent("vault.sqlite").path,
            "--api-key", "rss-test-key-\(UUID().uuidString):merchant_a",
        ])
        let server = try #require(launched.server, "exited \(String(describing: launched.exitStatus)): \(launched.stderr)")
        let pid = server.process.pid
        let port = UInt16(server.port)
        let before = try Self.status(pid, "VmRSS")
        let clock = ContinuousClock()
        let started = clock.now

        let connections = 300
        let bodyBytes = 1 << 20
        // Every connection sends its head and all of its body but the last byte, and stays open:
        // a server that buffers bodies before authenticating holds all 300 at once.
        let sockets = try await onOwnThread { () throws -> [Int32] in
            let head = Array("POST /v1/customers/c1/ops HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer not-a-key\r\n".utf8)
                + Array("Content-Type: application/json\r\nContent-Length: \(bodyBytes)\r\n\r\n".utf8)
            let body = [UInt8](repeating: UInt8(ascii: "1"), count: bodyBytes - 1)
            var sockets: [Int32] = []
            for _ in 0..<connections {
                let fd = try RawHTTP.connect(port: port, timeoutSeconds: 2)
                sockets.append(fd)
                if RawHTTP.writeAll(fd, head) { RawHTTP.writeAll(fd, body) }
            }
            return sockets
        }
        usleep(300_000)
        let peak = try Self.status(pid, "VmHWM")
        let answered = await onOwnThread { () -> Int in
            var answered = 0
            for fd in sockets {
                if let message = RawHTTP.parse(RawHTTP.readUntilClosed(fd, timeoutSeconds: 1).bytes), message.status == 401 {
                    answered += 1
                }
                close(fd)
            }
            return answered
        }
        let elapsed = clock.now - started
        let growthMB = Double(peak - before) / 1024
        print("unauthenticated uploads: RSS \(before) kB before, peak \(peak) kB, growth \(growthMB) MB, "
              + "\(answered) of \(connections) answered 401, in \(elapsed)")
        #expect(growthMB < 50, "peak RSS grew by \(growthMB) MB")
        #expect(answered > 0)
        #expect(await server.terminate() == .exited(0))
    }
}
