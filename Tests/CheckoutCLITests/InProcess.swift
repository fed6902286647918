@testable import CheckoutCLI
import CheckoutLocking
import Foundation

/// What one in-process run of `checkout` printed, and its exit code.
struct InProcessResult: Sendable, CustomStringConvertible {
    let status: Int32
    let stdout: String
    let stderr: String
    var description: String { "exit \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }
}

/// Runs `checkout WORDS...` in this process with both streams captured (no colour).
func runCheckout(_ words: [String]) async -> InProcessResult {
    let stdout = CapturedStream()
    let stderr = CapturedStream()
    let output = Output(colorEnabled: false, standardOutput: { stdout.append($0) }, standardError: { stderr.append($0) })
    let status = await CheckoutProgram.run(words, output: output)
    return InProcessResult(status: status, stdout: stdout.text, stderr: stderr.text)
}

/// Text written to one stream, collected under a lock (a sink may be called from any task).
final class CapturedStream: Sendable {
    private let buffer = Locked("")
    func append(_ text: String) { buffer.withLock { $0 += text } }
    var text: String { buffer.withLock { $0 } }
}

/// The bytes the spawned binary printed before the rewrite (`Tests/CLIPinned`, see CLITests' PinnedOutputTests).
func pinned(_ name: String) throws -> String {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    return String(decoding: try Data(contentsOf: root.appendingPathComponent("CLIPinned/\(name)")), as: UTF8.self)
}
