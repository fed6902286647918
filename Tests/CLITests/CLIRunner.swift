import Foundation
import Spawning
import Testing

/// What one run of the `checkout` binary produced.
struct CLIResult: Sendable, CustomStringConvertible {
    /// The exit status.
    let status: Int32
    /// Everything written to stdout.
    let stdout: String
    /// Everything written to stderr.
    let stderr: String

    /// stdout's lines, without the trailing empty one.
    var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty } }

    /// stdout parsed as JSON.
    func json() throws -> Any {
        try JSONSerialization.jsonObject(with: Data(stdout.utf8), options: [.fragmentsAllowed])
    }

    /// stdout parsed as one JSON object.
    func object() throws -> [String: Any] {
        try #require(try json() as? [String: Any], "stdout is not a JSON object: \(stdout)")
    }

    /// stdout parsed as a JSON array of objects.
    func array() throws -> [[String: Any]] {
        try #require(try json() as? [[String: Any]], "stdout is not a JSON array of objects: \(stdout)")
    }

    var description: String { "exit \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }
}

/// Runs the BUILT `checkout` executable as a subprocess, in a fresh temporary working directory
/// (so no `./Config` is found and the embedded defaults are exercised).
enum CLI {
    /// Why the binary cannot be run.
    struct Missing: Error, CustomStringConvertible {
        let searched: [String]
        var description: String {
            "the checkout executable was not found (looked at \(searched.joined(separator: ", "))): "
                + "run `swift build --product checkout` (or `swift build --build-tests`) first"
        }
    }

    /// The package root, derived from this file's path (Tests/CLITests/CLIRunner.swift).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The candidates for the binary: `CHECKOUT_BINARY`, next to the test bundle, then `.build/debug`.
    static var candidates: [URL] {
        var urls: [URL] = []
        if let explicit = ProcessInfo.processInfo.environment["CHECKOUT_BINARY"], !explicit.isEmpty {
            urls.append(URL(fileURLWithPath: explicit))
        }
        let bundle = Bundle.main.bundleURL
        urls.append(bundle.deletingLastPathComponent().appendingPathComponent("checkout"))
        urls.append(bundle.appendingPathComponent("checkout"))
        if let executable = Bundle.main.executableURL {
            urls.append(executable.deletingLastPathComponent().appendingPathComponent("checkout"))
        }
        urls.append(packageRoot.appendingPathComponent(".build/debug/checkout"))
        return urls
    }

    /// The binary to run.
    static func binary() throws -> URL {
        let urls = candidates
        guard let found = urls.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw Missing(searched: urls.map(\.path))
        }
        return found
    }

    /// A new empty temporary directory.
    /// A fresh directory whose name has no digits: the CLI masks anything that looks like a card
    /// number in what it prints, and a UUID's digit groups sometimes do (a path in an error message
    /// then came back masked, and a test comparing it failed at random).
    static func temporaryDirectory() throws -> URL {
        let letters = UUID().uuidString.map { $0.isNumber ? Character(UnicodeScalar(UInt8(ascii: "g") + UInt8($0.wholeNumberValue ?? 0))) : $0 }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cli-tests-\(String(letters))",
                                                                                 isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Runs `checkout ARGUMENTS` in `directory` (a fresh temporary one when nil) and waits for it.
    /// A run that takes longer than `limit` seconds is killed (a hang must fail, not block the suite).
    /// `environment` adds to (or overrides) the variables the child gets.
    /// `standardInput`, when given, is what the child reads on stdin (otherwise `/dev/null`).
    static func run(_ arguments: [String], in directory: URL? = nil, limit: Double = 120,
                    environment extra: [String: String] = [:], standardInput: String? = nil) async throws -> CLIResult {
        let executable = try binary()
        let workingDirectory = try directory ?? temporaryDirectory()
        let outURL = workingDirectory.appendingPathComponent(".stdout-\(UUID().uuidString)")
        let errURL = workingDirectory.appendingPathComponent(".stderr-\(UUID().uuidString)")
        let inURL = workingDirectory.appendingPathComponent(".stdin-\(UUID().uuidString)")
        if let standardInput { try Data(standardInput.utf8).write(to: inURL) }
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
            try? FileManager.default.removeItem(at: inURL)
            if directory == nil { try? FileManager.default.removeItem(at: workingDirectory) }
        }
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        environment["HOME"] = workingDirectory.path
        environment["XDG_DATA_HOME"] = workingDirectory.path
        environment.removeValue(forKey: "VAULT_API_KEY")
        environment.merge(extra) { $1 }
        let child = try ChildProcess(executable: executable.path, arguments: arguments, environment: environment,
                                     workingDirectory: workingDirectory.path,
                                     standardInput: standardInput == nil ? nil : inURL.path,
                                     standardOutput: .file(outURL.path), standardError: .file(errURL.path))
        // A hang must fail the test, not block the suite (`kill` does nothing once the child is reaped).
        DispatchQueue.global().asyncAfter(deadline: .now() + limit) { child.kill() }
        let status = await child.waitForExit().status
        let stdout = String(decoding: try Data(contentsOf: outURL), as: UTF8.self)
        let stderr = String(decoding: try Data(contentsOf: errURL), as: UTF8.self)
        return CLIResult(status: status, stdout: stdout, stderr: stderr)
    }
}
