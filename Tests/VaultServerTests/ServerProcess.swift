import CheckoutLocking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Spawning
import Testing

/// Finds the built `vault-server` next to the test bundle.
enum VaultServerBinary {
    static let url: URL? = {
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").standardizedFileURL
        let candidates = [
            executable.deletingLastPathComponent().appendingPathComponent("vault-server"),
            Bundle.main.bundleURL.appendingPathComponent("vault-server"),
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("vault-server"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()
}

/// A `vault-server` process; stopped with SIGTERM by `terminate()`.
///
/// This file is also compiled into VaultServerPostgresTests and CLITests (through symbolic links
/// there).
struct ServerProcess {
    let process: ChildProcess
    let port: Int
    /// `http` or `https`, as the startup line said.
    let scheme: String

    /// Starts the binary with `arguments` (in `workingDirectory`, with `environment` added to
    /// the parent's); returns nil with the exit status when it exits before printing its address.
    static func launch(_ arguments: [String], environment: [String: String] = [:], workingDirectory: String? = nil) async throws
        -> (server: ServerProcess?, exitStatus: Int32?, stderr: String) {
        let binary = try #require(VaultServerBinary.url)
        let process = try ChildProcess(executable: binary.path, arguments: arguments,
                                       environment: environment.isEmpty ? nil
                                           : ProcessInfo.processInfo.environment.merging(environment) { $1 },
                                       workingDirectory: workingDirectory, standardOutput: .pipe, standardError: .pipe)
        let line = await process.firstOutputLine()
        for scheme in ["http", "https"] {
            let prefix = "listening on \(scheme)://127.0.0.1:"
            if line.hasPrefix(prefix), let port = Int(line.dropFirst(prefix.count)) {
                return (ServerProcess(process: process, port: port, scheme: scheme), nil, "")
            }
        }
        let errors = try #require(process.standardError)
        let message = await onOwnThread { String(decoding: errors.readDataToEndOfFile(), as: UTF8.self) }
        return (nil, await process.waitForExit().status, message)
    }

    /// Sends SIGTERM and returns how the process ended.
    func terminate() async -> ChildProcess.Termination {
        process.terminate()
        return await process.waitForExit()
    }

    /// Sends a request authenticated with `apiKey`; returns the status and the body.
    func request(_ method: String, _ path: String, apiKey: String, body: String? = nil) async throws -> (Int, String) {
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)\(path)")))
        request.httpMethod = method
        request.setValue("close", forHTTPHeaderField: "Connection") // why: TestServer.send
        request.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization")
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }
}
