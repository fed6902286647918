import CheckoutJSON
import Foundation

/// Where a command writes. stdout carries results (JSON with `--json`); stderr carries diagnostics.
///
/// The sinks are injected, so a test runs a command in-process and captures both streams;
/// `Output.process()` is the process's own stdout and stderr.
public struct Output: Sendable {
    /// Receives text exactly as it is to be written (line breaks included).
    public typealias Sink = @Sendable (String) -> Void

    /// Whether colour may be used on stdout.
    public let colorEnabled: Bool
    private let standardOutput: Sink
    private let standardError: Sink

    /// An output writing to the given sinks.
    /// - Parameter colorEnabled: whether ANSI styles may be used on stdout.
    public init(colorEnabled: Bool, standardOutput: @escaping Sink, standardError: @escaping Sink) {
        self.colorEnabled = colorEnabled
        self.standardOutput = standardOutput
        self.standardError = standardError
    }

    /// The process's stdout and stderr; colour when stdout is a terminal and `NO_COLOR` is unset or empty.
    public static func process(environment: [String: String] = ProcessInfo.processInfo.environment) -> Output {
        let noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        return Output(colorEnabled: !noColor && isatty(STDOUT_FILENO) == 1,
                      standardOutput: { FileHandle.standardOutput.write(Data($0.utf8)) },
                      standardError: { FileHandle.standardError.write(Data($0.utf8)) })
    }

    func line(_ text: String) {
        standardOutput(text + "\n")
    }

    func error(_ text: String) {
        standardError(text + "\n")
    }

    /// Wraps `text` in an ANSI style when colour is enabled.
    func styled(_ text: String, _ code: String) -> String {
        colorEnabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    /// Encodes `value` with sorted keys and prints it on one line (`/` escaped, non-ASCII as is,
    /// integral doubles without `.0`).
    func json<Value: Encodable>(_ value: Value) throws {
        standardOutput(try JSONWriter.encodeString(value) + "\n")
    }
}
