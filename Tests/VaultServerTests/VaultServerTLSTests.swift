import Foundation
import Spawning
import TLSTestSupport
import Testing

/// `vault-server` with TLS: the options, clear start-up errors for unusable certificate files,
/// and TLS 1.2 as the oldest protocol it speaks (checked with the openssl command line as an
/// independent client).
@Suite(.timeLimit(.minutes(3))) struct VaultServerTLSTests {
    static let key = "tls-test-key-\(UUID().uuidString)"

    static func launch(_ extra: [String]) async throws -> (server: ServerProcess?, exitStatus: Int32?, stderr: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return try await ServerProcess.launch(["--db", directory.appendingPathComponent("v.sqlite").path, "--port", "0",
                                               "--api-key", "\(Self.key):merchant_a"] + extra)
    }

    @Test("--tls-cert without --tls-key is a usage error")
    func halfConfigured() async throws {
        let pki = try await TestPKI.shared()
        let launched = try await Self.launch(["--tls-cert", pki.pair("server").certificate])
        #expect(launched.server == nil)
        #expect(launched.exitStatus == 2)
        #expect(launched.stderr.contains("--tls-cert and --tls-key go together"), "\(launched.stderr)")
    }

    @Test("unusable certificate files stop the start with a message naming the file", arguments: [
        ("a key as the certificate", "server.key", "server.key", "holds no PEM certificate"),
        ("a certificate as the key", "server.pem", "server.pem", "holds no unencrypted PEM private key"),
        ("a missing key file", "server.pem", "missing.key", "cannot read the TLS private key"),
        ("a key that is not the certificate's", "server.pem", "wrong-host.key", "GnuTLS refused"),
    ])
    func unusableFiles(_ name: String, _ certificate: String, _ key: String, _ message: String) async throws {
        let pki = try await TestPKI.shared()
        let launched = try await Self.launch(["--tls-cert", pki.path(certificate), "--tls-key", pki.path(key)])
        if let server = launched.server { _ = await server.terminate() }
        #expect(launched.server == nil, "\(name): started")
        #expect(launched.exitStatus == 1, "\(name)")
        #expect(launched.stderr.contains(message), "\(name): \(launched.stderr)")
    }

    /// Runs `openssl s_client` against the server with one protocol version; true when the
    /// handshake completed.
    static func handshake(port: Int, version: String, caBundle: String) async throws -> Bool {
        let command = "openssl s_client -connect 127.0.0.1:\(port) -\(version) -cipher 'DEFAULT@SECLEVEL=0' "
            + "-CAfile '\(caBundle)' -verify_return_error -brief < /dev/null"
        let child = try ChildProcess(executable: "/bin/sh", arguments: ["-c", command], standardOutput: .discard,
                                     standardError: .discard)
        return await child.waitForExit().status == 0
    }

    @Test("the server speaks TLS 1.2 and 1.3 and refuses TLS 1.1 and 1.0")
    func protocolVersions() async throws {
        let pki = try await TestPKI.shared()
        let pair = pki.pair("server")
        let launched = try await Self.launch(["--tls-cert", pair.certificate, "--tls-key", pair.privateKey])
        let server = try #require(launched.server, "\(launched.stderr)")
        defer { Task { _ = await server.terminate() } }
        #expect(server.scheme == "https")
        #expect(try await Self.handshake(port: server.port, version: "tls1_3", caBundle: pki.caBundle))
        #expect(try await Self.handshake(port: server.port, version: "tls1_2", caBundle: pki.caBundle))
        #expect(try await !Self.handshake(port: server.port, version: "tls1_1", caBundle: pki.caBundle))
        #expect(try await !Self.handshake(port: server.port, version: "tls1", caBundle: pki.caBundle))
    }
}
