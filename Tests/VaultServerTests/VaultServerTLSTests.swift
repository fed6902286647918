import CheckoutLocking
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

    /// True when `openssl s_client` completes a handshake offering only `suite` (`-cipher` for
    /// TLS 1.2, `-ciphersuites` for 1.3).
    static func accepts(port: Int, suite: String, tls13: Bool) async throws -> Bool {
        let option = tls13 ? "-tls1_3 -ciphersuites '\(suite)'" : "-tls1_2 -cipher '\(suite)@SECLEVEL=0'"
        let child = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "openssl s_client -connect 127.0.0.1:\(port) \(option) -brief < /dev/null"],
                                     standardOutput: .discard, standardError: .discard)
        return await child.waitForExit().status == 0
    }

    /// Every TLS 1.2 suite this openssl knows, and the TLS 1.3 ones.
    static func allSuites() async throws -> (tls12: [String], tls13: [String]) {
        let child = try ChildProcess(executable: "/usr/bin/openssl", arguments: ["ciphers", "-tls1_2", "ALL:COMPLEMENTOFALL:@SECLEVEL=0"],
                                     standardOutput: .pipe, standardError: .discard)
        let output = try #require(child.standardOutput)
        let text = await onOwnThread { String(decoding: output.readDataToEndOfFile(), as: UTF8.self) }
        _ = await child.waitForExit()
        let tls13 = ["TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256",
                     "TLS_AES_128_CCM_SHA256", "TLS_AES_128_CCM_8_SHA256"]
        return (text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ":").map(String.init).filter { !tls13.contains($0) },
                tls13)
    }

    @Test("the default TLS profile is Mozilla's intermediate: every suite openssl knows is offered alone, and only ECDHE with AEAD (TLS 1.2) and GCM or ChaCha20 (TLS 1.3) are accepted")
    func intermediateProfile() async throws {
        let pki = try await TestPKI.shared()
        let pair = pki.pair("server")
        let launched = try await Self.launch(["--tls-cert", pair.certificate, "--tls-key", pair.privateKey])
        let server = try #require(launched.server, "\(launched.stderr)")
        defer { Task { _ = await server.terminate() } }
        let suites = try await Self.allSuites()
        #expect(suites.tls12.count > 30, "openssl listed only \(suites.tls12)")
        var accepted: [String] = []
        for suite in suites.tls12 where try await Self.accepts(port: server.port, suite: suite, tls13: false) { accepted.append(suite) }
        for suite in suites.tls13 where try await Self.accepts(port: server.port, suite: suite, tls13: true) { accepted.append(suite) }
        print("TLS suites accepted: \(accepted)")
        // The rule, stated independently of the GnuTLS priority string.
        let allowed: (String) -> Bool = { suite in
            suite.hasPrefix("TLS_") ? (suite.contains("_GCM_") || suite.contains("CHACHA20"))
                : suite.hasPrefix("ECDHE-") && (suite.contains("-GCM-") || suite.contains("CHACHA20-POLY1305"))
        }
        #expect(accepted.allSatisfy(allowed), "weak suites accepted: \(accepted.filter { !allowed($0) })")
        for needed in ["ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384", "ECDHE-ECDSA-CHACHA20-POLY1305",
                       "TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"] {
            #expect(accepted.contains(needed), "\(needed) refused")
        }
    }

    @Test("--tls-priority replaces the profile (here: CBC suites allowed again), and a priority string GnuTLS refuses stops the start")
    func priorityOverride() async throws {
        let pki = try await TestPKI.shared()
        let pair = pki.pair("server")
        let launched = try await Self.launch(["--tls-cert", pair.certificate, "--tls-key", pair.privateKey,
                                              "--tls-priority", "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"])
        let server = try #require(launched.server, "\(launched.stderr)")
        #expect(try await Self.accepts(port: server.port, suite: "ECDHE-ECDSA-AES128-SHA", tls13: false))
        _ = await server.terminate()
        let refused = try await Self.launch(["--tls-cert", pair.certificate, "--tls-key", pair.privateKey, "--tls-priority", "NOT-A-PROFILE"])
        #expect(refused.server == nil && refused.exitStatus == 1)
        #expect(refused.stderr.contains("TLS priority string"), "\(refused.stderr)")
    }

    @Test("a TLS private key its group or others may read is refused at start, naming the file and its mode")
    func sharedPrivateKey() async throws {
        let pki = try await TestPKI.shared()
        let pair = pki.pair("server")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tls-key-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for mode in [0o644, 0o640, 0o604] {
            let key = directory.appendingPathComponent("server-\(String(mode, radix: 8)).key").path
            try FileManager.default.copyItem(atPath: pair.privateKey, toPath: key)
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: key)
            let launched = try await Self.launch(["--tls-cert", pair.certificate, "--tls-key", key])
            if let server = launched.server { _ = await server.terminate() }
            #expect(launched.server == nil && launched.exitStatus == 1)
            #expect(launched.stderr.contains("\(key) has mode \(String(mode, radix: 8))"), "\(launched.stderr)")
        }
    }
}
