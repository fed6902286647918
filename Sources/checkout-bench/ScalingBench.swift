import Foundation

/// `--only scaling`: how each cost grows with the size of what it works on. Each series measures
/// one operation at three sizes with the set-up of its own section (VaultBench, VaultServerHarness
/// and ServerBench's load generator, SyncBench's engine round, SessionBench, ThemeBench):
///
/// - vault: list 20 of one customer, and save one, in stores of 10k, 100k and 1M rows (flat);
/// - server change feed latency with 10k, 100k and 1M stored instruments across 10k customers (flat);
/// - sync: initial pull of 1k, 10k and 100k instruments (linear);
/// - sessions: memory and start time of 1k, 10k and 50k ready sessions held at once (linear);
/// - theme resolution at 1k, 5k and 20k tokens (linear).
///
/// The sizes of a series are measured in rounds that rotate their order, so a drift of the machine
/// hits every size; the largest size's figure carries the smallest as its baseline and the median
/// of the per-round ratios. Figures are named `scaling.<series>_at_<size>`, which
/// `scripts/plot-scaling.py` reads from the `--json` document to draw the charts.
enum ScalingBench {
    static func run(_ options: BenchOptions) async throws -> [Figure] {
        var figures: [Figure] = []
        figures += try await scaleVault(options)
        figures += try await scaleFeed(options)
        figures += try await scaleSync(options)
        figures += try await scaleSessions(options)
        figures += try await scaleTheme(options)
        return figures
    }

    /// How a cost should grow from the smallest size to the largest.
    enum Growth {
        /// The same cost at every size: the ratio largest/smallest stays within `limit`.
        case flat(limit: Double)
        /// Proportional to the size: the ratio is about largest/smallest, at most `slack` times that.
        case linear(slack: Double)
        /// Proportional to the size at every step: each size against the one before it, at most
        /// `slack` times their ratio (a cost that grows only past the middle size shows).
        case linearEachStep(slack: Double)
    }

    /// Samples (in the series' unit) per size, one per round. Each round measures every size once,
    /// starting at a different size each round; `warmUp` sizes are measured once first, unrecorded.
    static func rounds(_ count: Int, sizes: [Int], warmUp: [Int],
                       _ measure: (Int) async throws -> Double) async throws -> [Int: [Double]] {
        for size in warmUp { _ = try await measure(size) }
        var samples: [Int: [Double]] = [:]
        for round in 0..<count {
            for offset in 0..<sizes.count {
                let size = sizes[(round + offset) % sizes.count]
                samples[size, default: []].append(try await measure(size))
            }
        }
        return samples
    }

    /// `1000` -> "1k", `1000000` -> "1M" (sizes in notes and targets).
    static func label(_ size: Int) -> String {
        if size >= 1_000_000, size % 1_000_000 == 0 { return "\(size / 1_000_000)M" }
        if size >= 1_000, size % 1_000 == 0 { return "\(size / 1_000)k" }
        return "\(size)"
    }

    /// One figure per size (`scaling.<series>_at_<size>`, the median of its rounds); the largest
    /// size's figure has the smallest as baseline, the median of the per-round ratios and the target.
    /// Targets are judged in full runs only: quick sizes are too small to show a growth.
    static func figures(_ series: String, unit: String, sizes: [Int], samples: [Int: [Double]], growth: Growth,
                        noun: String, quick: Bool, what: String, detail: (Int) -> String = { _ in "" }) -> [Figure] {
        guard let smallest = sizes.first, let largest = sizes.last else { return [] }
        var figures: [Figure] = []
        let small = samples[smallest] ?? [], large = samples[largest] ?? []
        let ratios = zip(large, small).map { $0 / $1 }
        let ratio = Measure.summarize(ratios).median
        for (index, size) in sizes.enumerated() {
            let summary = Measure.summarize(samples[size] ?? [])
            let extra = detail(size)
            var figure = Figure(name: "scaling.\(series)_at_\(size)", value: summary.median, unit: unit,
                                spread: summary.spread,
                                note: "\(label(size)) \(noun): \(what)" + (extra.isEmpty ? "" : "; \(extra)"))
            // A quick run's sizes are smoke sizes: a reading of zero there (the RSS of a few hundred
            // sessions can land in pages the allocator already holds) leaves the figure without a
            // ratio instead of failing the run. In a full run a zero baseline is a missing figure.
            if case .linearEachStep(let slack) = growth {
                if index > 0 {
                    let previous = sizes[index - 1]
                    let stepRatios = zip(samples[size] ?? [], samples[previous] ?? []).map { $0 / $1 }
                    let step = Measure.summarize(stepRatios).median
                    let span = Double(size) / Double(previous)
                    figure.baseline = Measure.summarize(samples[previous] ?? []).median
                    figure.baselineName = "the same at \(label(previous)) \(noun)"
                    figure.ratio = step
                    figure.pairs = stepRatios.count
                    figure.target = "linear: ratio ~\(Figure.format(span)) (\(label(size)) / \(label(previous))), "
                        + "at most \(Figure.format(span * slack))"
                    figure.targetMet = quick ? nil : step <= span * slack
                }
            } else if size == largest, sizes.count > 1, !(quick && !ratio.isFinite) {
                figure.baseline = Measure.summarize(small).median
                figure.baselineName = "the same at \(label(smallest)) \(noun)"
                figure.ratio = ratio
                figure.pairs = ratios.count
                let span = Double(largest) / Double(smallest)
                switch growth {
                case .flat(let limit):
                    figure.target = "flat: ratio <= \(Figure.format(limit))x from \(label(smallest)) to \(label(largest))"
                    figure.targetMet = quick ? nil : ratio <= limit
                case .linear(let slack):
                    figure.target = "linear: ratio ~\(Figure.format(span)) (\(label(largest)) / \(label(smallest))), "
                        + "at most \(Figure.format(span * slack))"
                    figure.targetMet = quick ? nil : ratio <= span * slack
                case .linearEachStep:
                    break
                }
            }
            figures.append(figure)
        }
        return figures
    }
}
