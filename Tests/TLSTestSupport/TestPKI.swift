import Foundation
import Spawning

/// A throwaway PKI made once per test process by `scripts/make-test-pki.sh` (the openssl command
/// line): a CA, a server certificate for localhost / 127.0.0.1 / ::1, one for another host name,
/// an expired one, a self-signed one, and SPKI pins. Real certificates, so the TLS tests exercise
/// libcurl's and GnuTLS's real verification.
public struct TestPKI: Sendable {
    /// The folder holding the PEM files and pins.
    public let directory: String

    /// The PKI of this test process, made on first use.
    public static func shared() async throws -> TestPKI { try await made.value }

    private static let made = Task<TestPKI, any Error> {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("checkoutkit-pki-\(UUID().uuidString)").path
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let script = repository.appendingPathComponent("scripts/make-test-pki.sh").path
        let child = try ChildProcess(executable: "/bin/bash", arguments: [script, directory], standardOutput: .discard)
        let termination = await child.waitForExit()
        guard termination.status == 0 else { throw PKIError(description: "make-test-pki.sh failed: \(termination)") }
        return TestPKI(directory: directory)
    }

    struct PKIError: Error, CustomStringConvertible { let description: String }

    /// The path of file `name` in the PKI's folder.
    public func path(_ name: String) -> String { directory + "/" + name }

    /// The CA that signed `server`, `wrong-host` and `expired`.
    public var caBundle: String { path("ca.pem") }

    /// The certificate and key files of `name` (`server`, `wrong-host`, `expired`, `self-signed`).
    public func pair(_ name: String) -> (certificate: String, privateKey: String) {
        (path("\(name).pem"), path("\(name).key"))
    }

    /// The base64 SHA-256 of a SubjectPublicKeyInfo (`server` or `other`), as openssl computed it.
    public func pin(_ name: String) throws -> String {
        try String(contentsOfFile: path("\(name).pin"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
