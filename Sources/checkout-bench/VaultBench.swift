import CBenchBaselines
import CheckoutJSON
import CheckoutKit
import Foundation

/// The vault store against raw C-API code running the store's exact SQL (same statements, same
/// table and indexes, same connection settings) in the same run.
enum VaultBench {
    static let merchant = "m_bench"

    /// Instrument `index` of customer number `customer`, exactly as the C baselines generate it.
    static func method(_ index: Int, customer: Int) -> VaultedPaymentMethod {
        VaultedPaymentMethod(
            id: "vt_\(customer)_\(index)", paymentMethodType: .paymentCard, paymentInstrumentType: .paymentCard,
            paymentInstrumentData: PaymentInstrumentData(network: .visa, first6Digits: "424242",
                                                         last4Digits: String(1000 + index % 9000),
                                                         expirationMonth: 1 + index % 12, expirationYear: 2030,
                                                         cardholderName: "Holder \(index)", binData: nil),
            analyticsId: "an_\(customer)_\(index)", isDefault: false)
    }

    static func check(_ code: Int32, _ what: String) throws {
        guard code == 0 else { throw BenchFailure("vault: the C baseline (\(what)) failed with SQLite code \(code)") }
    }

    static func now() -> Int64 { WallClock.system.nowMillis }

    /// A new database path in `scratch`.
    static func freshPath(in scratch: ScratchDirectory) -> String {
        scratch.url.appendingPathComponent("db-\(SafeIdentifier.random()).sqlite").path
    }

    /// Removes a benchmark database with its WAL and shared-memory files.
    static func removeDatabase(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    static func run(_ options: BenchOptions) async throws -> [Figure] {
        let scratch = try ScratchDirectory("vault")
        defer { scratch.remove() }
        func freshPath() -> String { Self.freshPath(in: scratch) }
        let repeats = options.quick ? 2 : 7
        var figures: [Figure] = []
        let scope = VaultScope(merchantId: merchant, customerId: "c_0")

        // 1. Bulk upsert in one transaction: a pulled page (applyRemotePage), the sync write path.
        let bulkCount = options.scale(100_000, quick: 20_000)
        let changes = (0..<bulkCount).map { RemoteChange.upsert(method($0, customer: 0), version: 1) }
        let bulk = try Measure.paired(repeats) {
            let path = freshPath()
            defer { removeDatabase(path) }
            let store = try VaultStore(path: path)
            var result: RemotePageResult?
            let seconds = try Measure.seconds {
                result = try store.blocking.applyRemotePage(scope: scope, changes: changes, newCursor: "cursor")
            }
            guard result?.applied == bulkCount else { throw BenchFailure("vault: the page applied \(result?.applied ?? 0) rows") }
            return seconds
        } baseline: {
            let path = freshPath()
            defer { removeDatabase(path) }
            _ = try VaultStore(path: path)   // the store's schema, then closed
            return try Measure.seconds {
                try check(cbench_vault_apply_page(path, merchant, scope.customerId, 0, bulkCount, 1, now()), "apply page")
            }
        }
        let bulkRate = Double(bulkCount) / bulk.subject.median, bulkBaseline = Double(bulkCount) / bulk.baseline.median
        figures.append(Figure(
            name: "vault.bulk_upsert_\(bulkCount / 1000)k", value: bulkRate, unit: "rows/s", spread: bulk.subject.spread,
            baseline: bulkBaseline, baselineName: "raw C", ratio: bulk.ratio, pairs: bulk.pairs,
            target: "ratio <= 1.5x", targetMet: bulk.ratio <= 1.5,
            note: "applyRemotePage of \(bulkCount) instruments in one transaction, incl. the payment-data guard"))

        // 2. Local saves with their outbox rows: one upsert([...], scope:) call (one transaction)
        // per customer, as a device saving cards for many customers would.
        let localCustomers = options.scale(500, quick: 100)
        let localPerCustomer = 10
        let localCount = localCustomers * localPerCustomer
        let batches = (0..<localCustomers).map { customer in
            (VaultScope(merchantId: merchant, customerId: "c_\(customer)"),
             (0..<localPerCustomer).map { method($0, customer: customer) })
        }
        // Seven pairs (the issue's median of 7): a pair takes under a second, and this ratio is the
        // one with the tightest target.
        let local = try Measure.paired(options.quick ? 2 : 7) {
            let path = freshPath()
            defer { removeDatabase(path) }
            let store = try VaultStore(path: path)
            var saved = 0
            let seconds = try Measure.seconds {
                for (scope, methods) in batches { saved += try store.blocking.upsert(methods, scope: scope).count }
            }
            guard saved == localCount else { throw BenchFailure("vault: upsert returned \(saved) op ids") }
            return seconds
        } baseline: {
            let path = freshPath()
            defer { removeDatabase(path) }
            _ = try VaultStore(path: path)
            return try Measure.seconds {
                try check(cbench_vault_local_upsert(path, merchant, localCustomers, localPerCustomer, now()), "local upsert")
            }
        }
        let localRate = Double(localCount) / local.subject.median, localBaseline = Double(localCount) / local.baseline.median
        figures.append(Figure(
            name: "vault.local_upsert_with_outbox", value: localRate, unit: "rows/s",
            spread: local.subject.spread, baseline: localBaseline, baselineName: "raw C", ratio: local.ratio, pairs: local.pairs,
            target: "ratio <= 1.3x", targetMet: local.ratio <= 1.3,
            note: "upsert([...], scope:) of \(localPerCustomer) instruments for each of \(localCustomers) customers, a transaction each: "
                + "last-used counter upsert per customer, row upsert returning its version, outbox op with JSON payload; "
                + "C runs the same statements"))

        // Where the local save's time goes: the payment-data guard the store runs per method before
        // any SQL (public API: VaultDataGuard), timed alone, on payload texts made beforehand.
        let guardSample = Array(batches.flatMap(\.1).prefix(2_000))
        let guardPayloads = try guardSample.map { try JSONWriter.encodeString($0) }
        let guardTime = try Measure.repeated(repeats) {
            try Measure.seconds {
                for (method, payload) in zip(guardSample, guardPayloads) {
                    try VaultDataGuard.check(method)
                    try VaultDataGuard.checkText(payload, field: "the payload")
                }
            }
        }
        figures.append(Figure(
            name: "vault.local_upsert_payload_guard", value: guardTime.median / Double(guardSample.count) * 1e6,
            unit: "µs/row", spread: guardTime.spread,
            note: "breakdown: VaultDataGuard.check + the payload's card-number check per saved method, no SQL, no encoding "
                + "(the store's whole local save costs \(Figure.format(1e6 / localRate)) µs/row, raw C \(Figure.format(1e6 / localBaseline)) µs/row)"))

        // 3. Reads on a big table: customers x 20 rows.
        let customers = options.scale(50_000, quick: 5_000)
        let perCustomer = 20
        let rows = customers * perCustomer
        let label = rows >= 1_000_000 ? "\(rows / 1_000_000)M" : "\(rows / 1000)k"
        Measure.trimHeap()
        let rssBefore = Measure.rssBytes
        let bigPath = freshPath()
        let big = try VaultStore(path: bigPath)
        let fill = try Measure.seconds {
            try check(cbench_vault_fill(bigPath, merchant, customers, perCustomer, now()), "fill")
        }

        var random = RetryPolicy.Generator(seed: 42)
        let lists = options.scale(4_000, quick: 500)
        let picked = (0..<lists).map { _ in "c_\(Int(random.next() % UInt64(customers)))" }
        let scopes = picked.map { VaultScope(merchantId: merchant, customerId: $0) }
        let cStrings = picked.map { strdup($0) }
        defer { cStrings.forEach { free($0) } }
        let list = try Measure.paired(repeats) {
            var total = 0
            let seconds = try Measure.seconds {
                for scope in scopes { total += try big.blocking.instruments(scope: scope).count }
            }
            guard total == lists * perCustomer else { throw BenchFailure("vault: listed \(total) rows") }
            return seconds
        } baseline: {
            var total = 0
            let seconds = try Measure.seconds {
                try cStrings.map { UnsafePointer($0) }.withUnsafeBufferPointer { buffer in
                    try check(cbench_vault_list(bigPath, merchant, buffer.baseAddress, lists, &total), "list")
                }
            }
            guard total == lists * perCustomer else { throw BenchFailure("vault: C listed \(total) rows") }
            return seconds
        }
        let listTime = list.subject.median / Double(lists), listBaseline = list.baseline.median / Double(lists)
        figures.append(Figure(
            name: "vault.list_20_of_\(label)", value: listTime * 1e6, unit: "µs/list", spread: list.subject.spread,
            baseline: listBaseline * 1e6, baselineName: "raw C", ratio: list.ratio, pairs: list.pairs,
            target: "ratio <= 2x", targetMet: list.ratio <= 2,
            note: "instruments(scope:) for \(lists) random customers of \(customers), decoded into VaultedPaymentMethod; C copies every column into a struct"))

        let scanRepeats = 2
        let scan = try Measure.paired(scanRepeats) {
            var total = 0
            let seconds = try Measure.seconds { try big.blocking.forEachInstrument { _, _ in total += 1 } }
            guard total == rows else { throw BenchFailure("vault: scanned \(total) rows") }
            return seconds
        } baseline: {
            var total = 0
            let seconds = try Measure.seconds { try check(cbench_vault_full_scan(bigPath, &total), "full scan") }
            guard total == rows else { throw BenchFailure("vault: C scanned \(total) rows") }
            return seconds
        }
        let scanRate = Double(rows) / scan.subject.median, scanBaseline = Double(rows) / scan.baseline.median
        figures.append(Figure(
            name: "vault.full_scan_decode_\(label)", value: scanRate, unit: "rows/s", spread: scan.subject.spread,
            baseline: scanBaseline, baselineName: "raw C", ratio: scan.ratio, pairs: scan.pairs,
            target: "ratio <= 2x", targetMet: scan.ratio <= 2,
            note: "forEachInstrument: every row decoded into (VaultScope, StoredInstrument)"))

        let rssAfter = Measure.rssBytes
        let fileBytes = (try? FileManager.default.attributesOfItem(atPath: bigPath)[.size] as? Int) ?? 0
        figures.append(Figure(
            name: "vault.rss_growth_\(label)_rows", value: Double(rssAfter - rssBefore) / 1_048_576, unit: "MiB",
            note: "process RSS \(rssAfter / 1_048_576) MiB with the \(label)-row store open after list and scan; database file \(fileBytes / 1_048_576) MiB; C fill took \(String(format: "%.1f", fill)) s"))
        withExtendedLifetime(big) {}
        figures += try await nonblocking(options, scratch: scratch)
        return figures
    }
}
