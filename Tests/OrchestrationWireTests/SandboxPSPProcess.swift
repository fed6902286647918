import CheckoutLocking
import CheckoutOrchestration
import Foundation
import HTTPTransport
import Spawning
import Testing

/// A `sandbox-psp` child process (the built executable next to the test bundle), stopped with
/// SIGTERM by `stop()`.
struct SandboxPSPProcess {
    static let binary = ChildProcess.builtExecutable("sandbox-psp")

    let process: ChildProcess
    let port: Int
    let scheme: String

    /// The base URL the server printed.
    var baseURL: URL { URL(string: "\(scheme)://127.0.0.1:\(port)")! }

    /// Starts `sandbox-psp --port 0 --name NAME [--behaviour JSON] [TLS]` and waits for its address line.
    static func start(name: String, behaviour: String? = nil, tls: (certificate: String, privateKey: String)? = nil) async throws
        -> SandboxPSPProcess {
        let binary = try #require(binary, "sandbox-psp is not built next to the tests")
        var arguments = ["--port", "0", "--name", name]
        if let behaviour { arguments += ["--behaviour", behaviour] }
        if let tls { arguments += ["--tls-cert", tls.certificate, "--tls-key", tls.privateKey] }
        let process = try ChildProcess(executable: binary.path, arguments: arguments, standardOutput: .pipe, standardError: .pipe)
        let line = await process.firstOutputLine()
        for scheme in ["http", "https"] {
            let prefix = "listening on \(scheme)://127.0.0.1:"
            if line.hasPrefix(prefix), let port = Int(line.dropFirst(prefix.count)) {
                return SandboxPSPProcess(process: process, port: port, scheme: scheme)
            }
        }
        process.kill()
        _ = await process.waitForExit()
        throw SandboxPSPError(description: "sandbox-psp did not start: \(line)")
    }

    struct SandboxPSPError: Error, CustomStringConvertible { let description: String }

    /// What the sandbox behind the server charged (`GET /v1/sandbox/ledger`).
    func ledger(caBundle: String? = nil) async throws -> ProcessorAPI.SandboxLedger {
        let transport = HTTPTransport(baseURL: baseURL, configuration: HTTPTransportConfiguration(tls: TLSOptions(caBundle: caBundle)))
        let response = try await transport.send(HTTPRequest(method: "GET", path: "/v1/sandbox/ledger"))
        try #require(response.status == 200)
        return try JSONDecoder().decode(ProcessorAPI.SandboxLedger.self, from: Data(response.body))
    }

    /// SIGTERM, then waits for the exit.
    func stop() async {
        process.terminate()
        _ = await process.waitForExit()
    }
}
