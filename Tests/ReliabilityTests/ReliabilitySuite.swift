import CheckoutTestSupport
import CheckoutCore
import Foundation
import Testing

/// The reliability and security suite: hostile input, tenant isolation, crash safety,
/// fault injection, and a payment-data scan of everything the suite wrote.
///
/// The suites that kill processes or run traffic through fault proxies (`CrashSafety`,
/// `FaultInjection`, `OrchestrationFaults`) are each serialized, so a suite's kills and proxies
/// never compete with each other for the two CPUs; the hostile-input fuzzers, pure computation,
/// run beside them. `.paymentDataScanAfterwards` runs the whole-suite payment-data scan once every child has
/// finished (a `TestScoping` trait around the suite, not an order of files). `Concurrency` lives
/// outside so the thread sanitizer can run it alone.
@Suite(.paymentDataScanAfterwards)
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
    /// The cases that gave a verdict (`verdict`), not the cases planned: a case that is skipped,
    /// or a loop that breaks off, is missing here.
    private(set) var ran = 0
    /// How the cases ended ("accepted", "refused invalid-client-token", ...), counted per verdict.
    private(set) var outcomes: [String: Int] = [:]
    /// How far past the first parse step the inputs got, judged by the test itself (an independent
    /// parser, the reference rules), never by the code under test: stage name → cases.
    private(set) var stages: [String: Int] = [:]

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

    /// Counts one case that gave its verdict: how it ended, and the stages its input reached.
    /// Called after the code under test answered and the answer was checked, never before.
    mutating func verdict(_ outcome: String, reached: [String] = []) {
        ran += 1
        outcomes[outcome, default: 0] += 1
        for stage in reached { stages[stage, default: 0] += 1 }
    }

    /// The share of the cases that gave a verdict with this outcome or stage.
    func share(_ name: String) -> Double {
        guard ran > 0 else { return 0 }
        return Double(outcomes[name] ?? stages[name] ?? 0) / Double(ran)
    }

    /// Adds the cases that ran to `counters` (what the docs quote), asserts that they are the
    /// `planned` number and that each outcome or stage in `atLeast` has at least its share of them,
    /// and records the collected failures as one issue.
    func verify(counters: [String], planned: Int, atLeast shares: KeyValuePairs<String, Double> = [:],
                sourceLocation: SourceLocation = #_sourceLocation) {
        for counter in counters { ReliabilityCounters.shared.add(counter, ran) }
        #expect(ran == planned, "\(target): \(ran) of \(planned) planned cases gave a verdict", sourceLocation: sourceLocation)
        for (name, minimum) in shares {
            #expect(share(name) >= minimum,
                    "\(target): \(name) in \(String(format: "%.1f", share(name) * 100))% of the cases, at least \(minimum * 100)% expected; outcomes \(outcomes.sorted { $0.key < $1.key }), stages \(stages.sorted { $0.key < $1.key })",
                    sourceLocation: sourceLocation)
        }
        print("\(target): \(ran) verdicts; outcomes \(outcomes.sorted { $0.key < $1.key }); stages \(stages.sorted { $0.key < $1.key })")
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

