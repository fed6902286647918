import CheckoutTestSupport
import CheckoutCore
import Foundation
import Testing

/// The reliability and security suite: hostile input, tenant isolation, crash safety,
/// fault injection, and a payment-data scan of everything the suite wrote.
///
/// Serialized, so the process kills and proxies never compete with each other for the two CPUs.
/// `.paymentDataScanAfterwards` runs the whole-suite payment-data scan once every child has
/// finished (a `TestScoping` trait around the suite, not an order of files). `Concurrency` lives
/// outside so the thread sanitizer can run it alone.
@Suite(.serialized, .paymentDataScanAfterwards)
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
    /// The cases that actually ran (counted as each one starts), not the cases planned.
    private(set) var ran = 0

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

    /// Counts one case that ran.
    mutating func ranCase() { ran += 1 }

    /// Adds the cases that ran to `counters` (what the docs quote), asserts that they are the
    /// `planned` number, and records the collected failures as one issue.
    func verify(counters: [String], planned: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        for counter in counters { ReliabilityCounters.shared.add(counter, ran) }
        #expect(ran == planned, "\(target): \(ran) of \(planned) planned cases ran", sourceLocation: sourceLocation)
        verify(sourceLocation: sourceLocation)
    }

    /// Records the collected failures (at most five examples) as one issue.
    func verify(sourceLocation: SourceLocation = #_sourceLocation) {
        if count > 0 {
            let text = "\(target): \(count) failing cases\n" + examples.joined(separator: "\n")
            Issue.record(Comment(rawValue: text), sourceLocation: sourceLocation)
        }
    }
}

