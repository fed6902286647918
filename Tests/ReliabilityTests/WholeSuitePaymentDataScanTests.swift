import CheckoutCore
import CheckoutLocking
import Foundation
import Testing

extension Reliability {
    /// The whole-suite payment-data scan: every database, WAL, shm, log and temporary file the
    /// suite wrote under its temporary root, searched for every card number the suite used.
    ///
    /// It is not a test of its own that must sort last: `Reliability` carries the
    /// `.paymentDataScanAfterwards` trait, a Swift Testing `TestScoping` trait whose scope wraps
    /// the whole suite, so the scan runs after the suite's last test has returned, whatever order
    /// the tests ran in. Each producing test also scans its own files.
    enum WholeSuitePaymentDataScan {
        /// Scans, records the findings as issues, and cleans up after a clean scan.
        ///
        /// Asserted: the scan runs after every test of the suite (started == finished, at least
        /// one), every directory a test made holds at least one scanned file (so the scan cannot
        /// pass on zero files), and no file holds a card number.
        static func run(testsStarted: Int, testsFinished: Int) {
            #expect(testsStarted > 0 && testsFinished == testsStarted,
                    "the scan ran while tests were still running (\(testsFinished) of \(testsStarted) finished)")
            let files = PaymentDataScanner.files(under: ReliabilityTemp.root)
            let directories = ReliabilityTemp.made
            for directory in directories where !directory.lastPathComponent.hasPrefix("concurrency-") {
                let inside = files.filter { $0.path.hasPrefix(directory.path + "/") }
                #expect(!inside.isEmpty, "the scan found no file of \(directory.lastPathComponent)")
            }
            let minimum = directories.filter { !$0.lastPathComponent.hasPrefix("concurrency-") }.count
            #expect(files.count >= minimum, "scanned \(files.count) files, fewer than the \(minimum) directories the tests made")
            let hits = PaymentDataScanner.scan(files, for: TestCards.numbers)
            #expect(hits.isEmpty, "card numbers on disk: \(hits)")
            let kinds = Dictionary(grouping: files) { url -> String in
                let name = url.lastPathComponent
                if name.hasSuffix("-wal") { return "wal" }
                if name.hasSuffix("-shm") { return "shm" }
                return url.pathExtension.isEmpty ? "other" : url.pathExtension
            }.mapValues(\.count)
            ReliabilityCounters.shared.add("scan.files", files.count)
            ReliabilityCounters.shared.add("scan.directories", minimum)
            ReliabilityCounters.shared.add("scan.cardNumbers", TestCards.numbers.count)
            print("payment-data scan after \(testsFinished) tests: \(files.count) files in \(minimum) test directories (\(kinds.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))), \(TestCards.numbers.count) card numbers, \(hits.count) hits")
            print("reliability counts:\n\(ReliabilityCounters.shared.report)")
            // Clean up after a clean scan (CHECKOUTKIT_KEEP_TEST_FILES=1 keeps everything for a look).
            // `Concurrency` runs beside this suite and removes its own directory.
            if hits.isEmpty && ProcessInfo.processInfo.environment["CHECKOUTKIT_KEEP_TEST_FILES"] != "1" {
                let children = (try? FileManager.default.contentsOfDirectory(at: ReliabilityTemp.root,
                                                                            includingPropertiesForKeys: nil)) ?? []
                for child in children where !child.lastPathComponent.hasPrefix("concurrency-") {
                    try? FileManager.default.removeItem(at: child)
                }
                if (try? FileManager.default.contentsOfDirectory(atPath: ReliabilityTemp.root.path))?.isEmpty == true {
                    try? FileManager.default.removeItem(at: ReliabilityTemp.root)
                }
            }
        }
    }
}

/// Runs `Reliability.WholeSuitePaymentDataScan` once the suite it is attached to has finished.
///
/// Recursive, so it also sees every test of the suite start and end: the scan asserts that all
/// of them had ended before it ran. Swift Testing runs a suite's `TestScoping` trait around the
/// suite's whole run, children included (the documented contract of `provideScope`), which is what
/// makes "the scan runs last" hold without relying on the order of files or declarations.
/// (`TestTrait` too: Swift Testing requires a recursive suite trait to be a test trait as well,
/// swift-testing #1048.)
struct PaymentDataScanAfterwards: SuiteTrait, TestTrait, TestScoping {
    /// Tests of the suite that started and that finished, for the scan's ordering assertion.
    private static let progress = Locked<(started: Int, finished: Int)>((0, 0))

    var isRecursive: Bool { true }

    /// A scope around the `Reliability` suite itself and around every test case in it (the
    /// default for a recursive trait would skip the suite).
    func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        if test.isSuite { return test.name == String(describing: Reliability.self) ? self : nil }
        return testCase == nil ? nil : self
    }

    func provideScope(for test: Test, testCase: Test.Case?,
                      performing function: @Sendable () async throws -> Void) async throws {
        if test.isSuite {
            try await function()
            let progress = Self.progress.withLock { $0 }
            Reliability.WholeSuitePaymentDataScan.run(testsStarted: progress.started, testsFinished: progress.finished)
        } else {
            Self.progress.withLock { $0.started += 1 }
            defer { Self.progress.withLock { $0.finished += 1 } }
            try await function()
        }
    }
}

extension Trait where Self == PaymentDataScanAfterwards {
    /// Scans every file the suite wrote for card numbers after the suite's last test.
    static var paymentDataScanAfterwards: Self { PaymentDataScanAfterwards() }
}
