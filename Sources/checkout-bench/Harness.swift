import CBenchBaselines
import CheckoutJSON
import CheckoutKit
import Foundation

/// One printed benchmark figure: `name: value unit (baseline: value, ratio: x)`.
struct Figure: Sendable {
    /// `section.what`, stable across runs (scripts compare JSON documents by it).
    var name: String
    /// The median of the measured samples, in `unit`.
    var value: Double
    var unit: String
    /// (max - min) / median of the samples; nil or NaN when there was only one sample.
    var spread: Double?
    /// The same work done by the baseline in the same run, in `unit`.
    var baseline: Double?
    /// What the baseline is, e.g. "raw C".
    var baselineName: String?
    /// How many times slower than the baseline (for times) or baseline/value for rates; nil without baseline.
    var ratio: Double?
    /// When the ratio is the median of per-pair ratios (subject and baseline run alternately, in
    /// pairs): how many pairs. Nil: the ratio is the ratio of the two medians, measured one after
    /// the other.
    var pairs: Int?
    var target: String?
    /// Whether the figure meets `target`; nil when there is no target or it cannot be judged.
    var targetMet: Bool?
    /// A quoted figure that is not measured in this run (e.g. a published range), shown for context.
    var reference: String?
    /// How the figure was measured, when the name alone does not say.
    var note: String?
    /// A section that could not run here on purpose (PostgreSQL without a database) reports one
    /// skipped figure; it is not counted as missing.
    var skipped = false

    /// Why this figure is missing (a value or a baseline that was not measured), or nil when it
    /// is complete. A missed target is not a missing figure.
    var missing: String? {
        if skipped { return nil }
        if !value.isFinite { return "no value" }
        if baselineName != nil {
            guard let baseline, baseline.isFinite else { return "no baseline" }
            guard let ratio, ratio.isFinite else { return "no ratio" }
        }
        return nil
    }

    var line: String {
        var text = "\(name): \(Self.format(value)) \(unit)"
        if let spread, spread.isFinite { text += " (±\(Self.format(spread * 100))%)" }
        if let baseline, let ratio {
            let how = pairs.map { "median of \($0) pair ratios" } ?? "ratio of medians, not paired"
            text += " (baseline\(baselineName.map { " \($0)" } ?? ""): \(Self.format(baseline)) \(unit), ratio: \(Self.format(ratio))x, \(how))"
        }
        if let reference { text += " (reference: \(reference))" }
        if let target {
            let verdict = targetMet.map { $0 ? ", met" : ", MISSED" } ?? ""
            text += " [target: \(target)\(verdict)]"
        }
        if let note { text += " {\(note)}" }
        return text
    }

    var json: JSONValue {
        // JSON has no NaN: a value that could not be measured is null.
        var object: JSONObject = ["name": .string(name), "value": value.isFinite ? .number(value) : .null, "unit": .string(unit)]
        if let spread, spread.isFinite { object["spread"] = .number(spread) }
        if let baseline, baseline.isFinite { object["baseline"] = .number(baseline) }
        if let baselineName { object["baselineName"] = .string(baselineName) }
        if let ratio, ratio.isFinite { object["ratio"] = .number(ratio) }
        if let pairs { object["pairs"] = .number(Double(pairs)) }
        if let target { object["target"] = .string(target) }
        if let targetMet { object["targetMet"] = .bool(targetMet) }
        if let reference { object["reference"] = .string(reference) }
        if let note { object["note"] = .string(note) }
        return .object(object)
    }

    static func format(_ value: Double) -> String {
        if value.isNaN || value.isInfinite { return "n/a" }
        if abs(value) >= 100 { return String(format: "%.0f", value) }
        if abs(value) >= 10 { return String(format: "%.1f", value) }
        return String(format: "%.2f", value)
    }
}

/// Options shared by all sections.
struct BenchOptions: Sendable {
    var quick: Bool
    /// The `Config/` directory to read (checkout.json, card-networks.json, theme tokens); nil uses
    /// the copies embedded in the binary.
    var configDirectory: URL?
    /// The built `checkout-bench` executable, for sections that spawn a second process.
    var executablePath: String
    /// Measured runs per figure (after one warm-up run); sections with long runs use fewer.
    var repeats: Int { quick ? 2 : 7 }
    /// `full` in a full run, `quickValue` with `--quick`.
    func scale(_ full: Int, quick quickValue: Int) -> Int { quick ? quickValue : full }

    /// The configuration files the sections run on.
    func defaults() throws -> CheckoutDefaults { try CheckoutDefaults.resolve(configDirectory: configDirectory) }
}

/// A benchmark could not run as designed (a wrong result, a failed setup): the section fails loudly.
struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Timing helpers: warm up once, repeat, report the median and the spread (max-min over median).
enum Measure {
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    static func seconds(_ body: () async throws -> Void) async rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try await body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    /// Runs `body` once to warm up, then `repeats` times; returns (median, spread).
    static func repeated(_ repeats: Int, _ body: () throws -> Double) rethrows -> (median: Double, spread: Double) {
        _ = try body()
        var samples: [Double] = []
        for _ in 0..<repeats { samples.append(try body()) }
        return summarize(samples)
    }

    static func repeated(_ repeats: Int, _ body: () async throws -> Double) async rethrows -> (median: Double, spread: Double) {
        _ = try await body()
        var samples: [Double] = []
        for _ in 0..<repeats { samples.append(try await body()) }
        return summarize(samples)
    }

    /// A subject and its baseline, each with its median and spread, and the median of the
    /// per-pair ratios subject/baseline (for times: how many times slower the subject is).
    struct Paired {
        var subject: (median: Double, spread: Double)
        var baseline: (median: Double, spread: Double)
        var ratio: Double
        /// How many measured pairs the ratio is the median of (`Figure.pairs`).
        var pairs: Int
    }

    /// Runs `subject` and `baseline` (each returning seconds for the same work) once each to warm
    /// up, then `repeats` pairs in alternating order, so slow drifts of a shared machine hit both.
    static func paired(_ repeats: Int, _ subject: () throws -> Double, baseline: () throws -> Double) rethrows -> Paired {
        _ = try subject()
        _ = try baseline()
        var subjects: [Double] = [], baselines: [Double] = [], ratios: [Double] = []
        for index in 0..<repeats {
            let first = try index % 2 == 0 ? subject() : baseline()
            let second = try index % 2 == 0 ? baseline() : subject()
            let (s, b) = index % 2 == 0 ? (first, second) : (second, first)
            subjects.append(s)
            baselines.append(b)
            ratios.append(s / b)
        }
        return Paired(subject: summarize(subjects), baseline: summarize(baselines), ratio: summarize(ratios).median,
                      pairs: ratios.count)
    }

    /// `paired` for async work (the sync section's HTTP and HTTPS rounds).
    static func paired(_ repeats: Int, _ subject: () async throws -> Double,
                       baseline: () async throws -> Double) async rethrows -> Paired {
        _ = try await subject()
        _ = try await baseline()
        var subjects: [Double] = [], baselines: [Double] = [], ratios: [Double] = []
        for index in 0..<repeats {
            let s: Double, b: Double
            if index % 2 == 0 {
                s = try await subject()
                b = try await baseline()
            } else {
                b = try await baseline()
                s = try await subject()
            }
            subjects.append(s)
            baselines.append(b)
            ratios.append(s / b)
        }
        return Paired(subject: summarize(subjects), baseline: summarize(baselines), ratio: summarize(ratios).median,
                      pairs: ratios.count)
    }

    static func summarize(_ samples: [Double]) -> (median: Double, spread: Double) {
        let sorted = samples.sorted()
        guard !sorted.isEmpty else { return (.nan, .nan) }
        let middle = sorted.count / 2
        let median = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        guard sorted.count > 1 else { return (median, .nan) }
        let spread = median == 0 ? 0 : ((sorted.last ?? median) - (sorted.first ?? median)) / median
        return (median, spread)
    }

    static var rssBytes: Int { cbench_rss_bytes() }

    /// Hands free heap memory back to the system, so RSS growth measured next is new memory.
    static func trimHeap() { cbench_trim_heap() }

    /// Heap allocations made by the calling thread so far (see `cbench_thread_allocations`).
    static var threadAllocations: UInt64 { cbench_thread_allocations() }

    /// Bytes currently allocated from glibc's heap (`mallinfo2().uordblks`).
    static var heapInUse: Int { cbench_heap_in_use() }

    /// The value at fraction `q` (0...1) of sorted samples (nearest rank).
    static func percentile(_ sorted: [Double], _ q: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((q * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }
}

/// A temporary directory removed when the benchmark ends.
struct ScratchDirectory {
    let url: URL
    init(_ name: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("checkout-bench-\(name)-\(SafeIdentifier.random())")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    func remove() { try? FileManager.default.removeItem(at: url) }
}
