import Foundation
import Spawning

/// A throwaway private CA and a server certificate for 127.0.0.1 and localhost, made with the
/// `openssl` command line in a temporary directory, so that the demo's and the benchmark's vault
/// servers speak real HTTPS on loopback and clients verify them like any production client would
/// (against a CA bundle they are given, never with verification off). Not for production.
public struct DemoCertificates: Sendable {
    /// The CA's certificate: the client's `TLSOptions.caBundle`.
    public let caBundle: String
    /// The server's certificate.
    public let certificate: String
    /// The server certificate's private key (unencrypted PEM).
    public let privateKey: String

    /// Makes the CA and the server certificate in `directory` (P-256 keys, valid for one day).
    public static func make(in directory: URL) async throws -> DemoCertificates {
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        try await openssl(["req", "-x509"] + ec + ["-keyout", path("demo-ca.key"), "-out", path("demo-ca.pem"), "-days", "1",
                                                    "-subj", "/CN=CheckoutKit demo CA",
                                                    "-addext", "basicConstraints=critical,CA:TRUE",
                                                    "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
        try await openssl(["req"] + ec + ["-keyout", path("server.key"), "-out", path("server.csr"), "-subj", "/CN=localhost"])
        try Data("subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n".utf8)
            .write(to: directory.appendingPathComponent("server.ext"))
        try await openssl(["x509", "-req", "-in", path("server.csr"), "-CA", path("demo-ca.pem"), "-CAkey", path("demo-ca.key"),
                           "-CAcreateserial", "-out", path("server.pem"), "-days", "1", "-extfile", path("server.ext")])
        return DemoCertificates(caBundle: path("demo-ca.pem"), certificate: path("server.pem"), privateKey: path("server.key"))
    }

    struct OpenSSLFailure: Error, CustomStringConvertible {
        let description: String
    }

    private static func openssl(_ arguments: [String]) async throws {
        guard let executable = ["/usr/bin/openssl", "/bin/openssl", "/usr/local/bin/openssl"]
            .first(where: FileManager.default.isExecutableFile(atPath:)) else {
            throw OpenSSLFailure(description: "the openssl command is not installed (Debian package openssl)")
        }
        let child = try ChildProcess(executable: executable, arguments: arguments, standardOutput: .discard,
                                     standardError: .discard)
        let termination = await child.waitForExit()
        guard termination.status == 0 else {
            throw OpenSSLFailure(description: "openssl \(arguments.first ?? "") failed: \(termination)")
        }
    }
}
