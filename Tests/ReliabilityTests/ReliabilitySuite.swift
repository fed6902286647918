import PaymentDataTestSupport
import CheckoutCore
import Foundation
import Testing

/// The reliability and security suite (issue 10): hostile input, tenant isolation, crash safety,
/// fault injection, and a payment-data scan of everything the suite wrote.
///
/// Serialized, so the children run in source order (files sort by name: the whole-suite
/// payment-data scan is declared last) and the process kills and proxies never compete with each
/// other for the two CPUs. `Concurrency` lives outside so the thread sanitizer can run it alone.
@Suite(.serialized)
struct Reliability {
    /// The Config directory of the package (`Config/` next to `Tests/`).
    static let configDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Config", isDirectory: true)

    static func config(_ name: String) throws -> Data {
        try Data(contentsOf: configDirectory.appendingPathComponent(name))
    }
}

/// Every printable form of an error: what a log line, `print`, `debugPrint` or `dump` would show.
func errorStrings(_ error: any Error) -> [String] {
    var dumped = ""
    dump(error, to: &dumped)
    return [String(describing: error), String(reflecting: error), dumped, error.localizedDescription]
}

/// Collects fuzz failures, recording only the first few as issues so a broken target does not
/// flood the log with 100,000 copies of the same problem.
struct FuzzFailures {
    let target: String
    let seed: UInt64
    private(set) var count = 0
    private(set) var examples: [String] = []

    init(target: String, seed: UInt64) {
        self.target = target
        self.seed = seed
    }

    mutating func fail(_ index: Int, _ problem: String) {
        count += 1
        if examples.count < 5 { examples.append("case \(index) (seed \(seed)): \(PaymentDataRedactor.redact(problem))") }
    }

    /// Checks every printable form of `error` for card numbers.
    mutating func checkStrings(of error: any Error, _ index: Int) {
        for text in errorStrings(error) where ReferenceCardNumberDetector.containsCardNumber(text) {
            fail(index, "a card number is echoed by \(type(of: error)): \(text)")
            return
        }
    }

    /// Records the collected failures (at most five examples) as one issue.
    func verify(sourceLocation: SourceLocation = #_sourceLocation) {
        if count > 0 {
            let text = "\(target): \(count) failing cases\n" + examples.joined(separator: "\n")
            Issue.record(Comment(rawValue: text), sourceLocation: sourceLocation)
        }
    }
}

