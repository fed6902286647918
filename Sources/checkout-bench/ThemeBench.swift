import CheckoutKit
import Foundation

/// Theme resolution: the default theme plus a merchant override layer, and how a synthetic theme
/// with alias chains of depth 10 scales from 1,000 to 5,000 tokens (the two sizes paired).
enum ThemeBench {
    /// A typical merchant layer: a new spacing and radius base, a brand colour, a typeface.
    static var merchantOverrides: ThemeOverrides {
        var overrides = ThemeOverrides()
        overrides.set("space.base", .dimension(5))
        overrides.set("radius.base", .dimension(6))
        overrides.set("palette.brand", .color(hex: "#6a1b9a"))
        overrides.set("palette.blue.900", .alias("palette.brand"))
        overrides.set("font.family.base", .fontFamily(["Helvetica Neue", "Arial"]))
        overrides.set("component.button.height", .expression("{size.base} * 12"))
        return overrides
    }

    /// `count` tokens in chains of depth 10 (as in Tests/CheckoutThemeTests/ScalingTests.swift):
    /// each chain starts at a dimension and every next token aliases, or adds 1px to, the previous one.
    static func syntheticTheme(tokens count: Int) -> Data {
        var members: [String] = []
        members.reserveCapacity(count)
        for index in 0..<count {
            let name = "\"t\(index)\""
            if index % 10 == 0 {
                members.append(#"\#(name): { "$type": "dimension", "$value": { "value": \#(index % 7 + 1), "unit": "px" } }"#)
            } else if index % 2 == 0 {
                members.append(#"\#(name): { "$value": "{group.t\#(index - 1)} + 1px" }"#)
            } else {
                members.append(#"\#(name): { "$value": "{group.t\#(index - 1)}" }"#)
            }
        }
        return Data(#"{ "group": { "$type": "dimension", \#(members.joined(separator: ",")) } }"#.utf8)
    }

    /// The base and dark token files: from the config directory, or the embedded copies.
    static func tokenFiles(_ options: BenchOptions) throws -> (base: Data, dark: Data) {
        guard let directory = options.configDirectory else {
            return (Data(EmbeddedConfig.themeLight.utf8), Data(EmbeddedConfig.themeDark.utf8))
        }
        return (try Data(contentsOf: directory.appendingPathComponent(ThemeFiles.baseFileName)),
                try Data(contentsOf: directory.appendingPathComponent(ThemeFiles.darkFileName)))
    }

    /// Median seconds per call of `body`, timing batches of `batch` calls.
    static func perCall(_ options: BenchOptions, batch: Int, _ body: () throws -> Void) throws -> (median: Double, spread: Double) {
        let (seconds, spread) = try Measure.repeated(options.repeats) {
            try Measure.seconds { for _ in 0..<batch { try body() } }
        }
        return (seconds / Double(batch), spread)
    }

    static func run(_ options: BenchOptions) async throws -> [Figure] {
        let files = try tokenFiles(options)
        let overrides = merchantOverrides
        var figures: [Figure] = []

        // Correctness first: the override must flow through aliases, or the timing means nothing.
        let check = try ThemeResolver.resolve(layers: [.json(files.base, name: "base"), .overrides(overrides)])
        guard check.space.medium == 15 else {
            throw BenchFailure("theme: space.medium is \(check.space.medium) with space.base 5, expected 15")
        }

        let batch = options.scale(150, quick: 40)
        let light = try perCall(options, batch: batch) {
            _ = try ThemeResolver.resolve(layers: [.json(files.base, name: ThemeFiles.baseFileName),
                                                   .overrides(overrides, name: "merchant")])
        }
        figures.append(Figure(name: "theme.default_plus_merchant_light", value: light.median * 1e6, unit: "µs",
                              spread: light.spread,
                              note: "parse theme.tokens.json + merchant ThemeOverrides layer, merge, resolve, typed theme"))
        let dark = try perCall(options, batch: batch) {
            _ = try ThemeResolver.resolve(layers: [.json(files.base, name: ThemeFiles.baseFileName),
                                                   .json(files.dark, name: ThemeFiles.darkFileName),
                                                   .overrides(overrides, name: "merchant")])
        }
        figures.append(Figure(name: "theme.default_plus_merchant_dark", value: dark.median * 1e6, unit: "µs",
                              spread: dark.spread, note: "base + dark + merchant layers"))
        if let directory = options.configDirectory {
            let fromFiles = try perCall(options, batch: batch) {
                _ = try ResolvedTheme.load(configDirectory: directory, mode: .light,
                                           overrides: [.overrides(overrides, name: "merchant")])
            }
            figures.append(Figure(name: "theme.load_from_files_plus_merchant", value: fromFiles.median * 1e6, unit: "µs",
                                  spread: fromFiles.spread, note: "ResolvedTheme.load: reads the token file each call"))
        }

        // Scaling: 1,000 vs 5,000 tokens, chains of depth 10.
        let small = syntheticTheme(tokens: 1_000), large = syntheticTheme(tokens: 5_000)
        let largeCheck = try ThemeResolver.resolveTokens(layers: [large])
        guard largeCheck.count == 5_000, largeCheck.value(at: "group.t4999") == .dimension(11) else {
            throw BenchFailure("theme: the synthetic 5,000-token theme resolved wrongly")
        }
        // Paired: the two sizes run alternately, and the ratio is the median of the pair ratios.
        let smallBatch = options.scale(15, quick: 5), largeBatch = options.scale(3, quick: 1)
        let scaling = try Measure.paired(options.repeats) {
            try Measure.seconds { for _ in 0..<largeBatch { _ = try ThemeResolver.resolveTokens(layers: [large]) } }
                / Double(largeBatch)
        } baseline: {
            try Measure.seconds { for _ in 0..<smallBatch { _ = try ThemeResolver.resolveTokens(layers: [small]) } }
                / Double(smallBatch)
        }
        figures.append(Figure(name: "theme.synthetic_1000_tokens", value: scaling.baseline.median * 1e3, unit: "ms",
                              spread: scaling.baseline.spread))
        let ratio = scaling.ratio
        figures.append(Figure(name: "theme.synthetic_5000_tokens", value: scaling.subject.median * 1e3, unit: "ms",
                              spread: scaling.subject.spread, baseline: scaling.baseline.median * 1e3,
                              baselineName: "1,000 tokens", ratio: ratio, pairs: scaling.pairs,
                              target: "ratio ~5 (linear; quadratic would be ~25)", targetMet: ratio < 7,
                              note: "alias chains of depth 10, every other link an arithmetic +1px"))
        return figures
    }
}
