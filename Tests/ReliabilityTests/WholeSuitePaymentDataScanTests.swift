import CheckoutCore
import Foundation
import Testing

extension Reliability {
    /// Runs last (the serialized suite runs its children in source order and this file sorts
    /// last): scans every database, WAL, shm, log and temporary file the suite wrote under its
    /// temporary root for every card number the suite used. Each producing test also scans its
    /// own files, so nothing depends on this ordering alone.
    @Suite
    struct WholeSuitePaymentDataScan {
        @Test("no card number the suite used is in any file it wrote")
        func scan() throws {
            let files = PaymentDataScanner.files(under: ReliabilityTemp.root)
            let hits = PaymentDataScanner.scan(files, for: TestCards.numbers)
            #expect(hits.isEmpty, "card numbers on disk: \(hits)")
            let kinds = Dictionary(grouping: files) { url -> String in
                let name = url.lastPathComponent
                if name.hasSuffix("-wal") { return "wal" }
                if name.hasSuffix("-shm") { return "shm" }
                return url.pathExtension.isEmpty ? "other" : url.pathExtension
            }.mapValues(\.count)
            ReliabilityCounters.shared.add("scan.files", files.count)
            ReliabilityCounters.shared.add("scan.cardNumbers", TestCards.numbers.count)
            print("payment-data scan: \(files.count) files (\(kinds.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))), \(TestCards.numbers.count) card numbers, \(hits.count) hits")
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
