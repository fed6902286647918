import CheckoutCrypto
import CheckoutLocking
import CheckoutTestSupport
import CheckoutVault
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Spawning
import Testing

struct VaultServerExecutableTests {
    static let key = "exe-test-key-\(UUID().uuidString)"

    @Test("vault-server prints its address, serves, and exits 0 on SIGTERM",
          .enabled(if: RequiredDependency.executables.runs(VaultServerBinary.url != nil), "vault-server is not built next to the tests (run `swift build` first)"))
    func launchAndTerminate() async throws {
        let database = TemporaryDatabase("vault-server-exe")
        defer { database.remove() }
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

    @Test("a SIGTERM sent the moment the address is printed is never lost: 40 starts, each exits 0",
          .enabled(if: RequiredDependency.executables.runs(VaultServerBinary.url != nil), "vault-server is not built next to the tests (run `swift build` first)"))
    func signalRightAfterStartIsNeverLost() async throws {
        // A stop signal that arrived before the server's handling was in place used to be dropped
        // (about one start in forty): the process served on and its parent waited forever.
        let database = TemporaryDatabase("vault-server-sig")
        defer { database.remove() }
        var stopped = 0
        for _ in 0..<40 {
            let launched = try await ServerProcess.launch(["--port", "0", "--db", database.path,
                                                           "--api-key", "\(Self.key):merchant_x", "--host", "127.0.0.1"])
            let server = try #require(launched.server, "vault-server exited: \(launched.stderr)")
            server.process.terminate()
            let termination = Locked<ChildProcess.Termination?>(nil)
            let waiter = Task { let ended = await server.process.waitForExit(); termination.withLock { $0 = ended } }
            if await eventually(timeout: .seconds(20), poll: .milliseconds(5), { termination.withLock { $0 } != nil }) {
                stopped += 1
            } else {
                server.process.kill()
                Issue.record("vault-server ignored a SIGTERM sent right after it printed its address")
            }
            await waiter.value
            #expect(termination.withLock { $0 } == .exited(0))
        }
        #expect(stopped == 40)
    }

    @Test("SIGTERM while a request is in flight: new requests get 503, the in-flight one is answered and applied, exit 0",
          .enabled(if: RequiredDependency.executables.runs(VaultServerBinary.url != nil), "vault-server is not built next to the tests (run `swift build` first)"))
    func sigtermDrainsInFlight() async throws {
        let database = TemporaryDatabase("vault-server-drain")
        defer { database.remove() }
        let launched = try await ServerProcess.launch(["--port", "0", "--db", database.path, "--host", "127.0.0.1",
                                                       "--api-key", "exe-drain-key-0123456789abcdef0123456789:merchant_a"])
        let server = try #require(launched.server, "vault-server exited \(String(describing: launched.exitStatus)): \(launched.stderr)")
        struct Body: Encodable { var ops: [OutboundOp] }
        let body = Array(try JSONEncoder().encode(Body(ops: [Fixture.upsert("op-drain", Fixture.card("tok-drain"))])))
        // `Expect: 100-continue` makes the server's admission observable: libmicrohttpd sends the
        // interim 100 only after the head went through the access handler, which counts the
        // request as in flight. (A /health answer on another connection proved nothing: it can
        // come before this connection's head was read, and the server then drained nothing.)
        let request = RawHTTP.request("POST", path: Array("/v1/customers/c1/ops".utf8),
                                      headers: [("Authorization", "Bearer exe-drain-key-0123456789abcdef0123456789"),
                                                ("Expect", "100-continue")], body: body)
        let headBytes = request.count - body.count
        let port = UInt16(server.port)
        let (inFlight, refusedWhileDraining, answer) = try await onOwnThread {
            () throws -> (Bool, RawHTTP.Message?, RawHTTP.Message?) in
            let fd = try RawHTTP.connect(port: port)
            defer { close(fd) }
            guard RawHTTP.writeAll(fd, Array(request[..<headBytes])) else { return (false, nil, nil) }
            let interim = RawHTTP.readHead(fd).flatMap(RawHTTP.parse)
            let admitted = interim?.status == 100
            server.process.terminate()
            // Draining: a new request is refused with 503 while the first one is still open.
            var refused: RawHTTP.Message?
            _ = eventuallyBlocking {
                refused = try? RawHTTP.call(port: port, "GET", "/health", key: nil)
                return refused?.status == 503
            }
            guard RawHTTP.writeAll(fd, body) else { return (admitted, refused, nil) }
            return (admitted, refused, RawHTTP.parse(RawHTTP.readToEnd(fd)))
        }
        #expect(inFlight, "the server never answered 100 Continue to the request's head")
        #expect(refusedWhileDraining?.status == 503, "no 503 while draining: \(String(describing: refusedWhileDraining))")
        #expect(refusedWhileDraining?.errorCode == "draining")
        let response = try #require(answer, "the in-flight request got no answer")
        #expect(response.status == 200, "\(response.text)")
        #expect(response.text.contains(#""status":"applied""#), "\(response.text)")
        #expect(await server.process.waitForExit() == .exited(0))
    }

    @Test("--api-key takes sha256:HEX:MERCHANT; a malformed digest exits 2 naming the merchant, not the key",
          .enabled(if: RequiredDependency.executables.runs(VaultServerBinary.url != nil), "vault-server is not built next to the tests (run `swift build` first)"))
    func hashedKeyOption() async throws {
        let database = TemporaryDatabase("vault-server-exe")
        defer { database.remove() }
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

    @Test("a storage URL's credentials never reach the output: password, sslpassword and passfile are masked, in the URL and in libpq's error")
    func storageCredentialsMasked() async throws {
        let secret = "S3cret-\(UUID().uuidString.prefix(8))"
        let launched = try await ServerProcess.launch([
            "--storage", "postgres://u:\(secret)-pw@127.0.0.1:1/db?sslpassword=\(secret)&passfile=/\(secret)&sslmode=bogus",
            "--api-key", "\(String(repeating: "k", count: 40)):merchant_a",
        ])
        if let server = launched.server { _ = await server.terminate() }
        #expect(launched.exitStatus == 1)
        #expect(launched.stderr.contains("cannot open the storage"), "\(launched.stderr)")
        #expect(!launched.stderr.contains(secret), "\(launched.stderr)")
    }
}

/// A fresh database path for one launch, and the removal of its files (SQLite's `-wal` and `-shm`
/// beside it).
private struct TemporaryDatabase {
    let path: String

    init(_ prefix: String) {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString).sqlite").path
    }

    func remove() {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}
