import CheckoutKit
import Foundation

extension ScalingBench {
    /// Theme resolution of the theme section's synthetic themes (alias chains of depth 10, every
    /// other link an arithmetic +1px) at three token counts; the figure is one resolution.
    static func scaleTheme(_ options: BenchOptions) async throws -> [Figure] {
        let sizes = options.quick ? [100, 500, 2_000] : [1_000, 5_000, 20_000]
        var themes: [Int: Data] = [:]
        for size in sizes {
            let theme = ThemeBench.syntheticTheme(tokens: size)
            // Correctness first: the last chain (starting at size - 10) ends 4 x 1px above its start.
            let resolved = try ThemeResolver.resolveTokens(layers: [theme])
            let expected = Double((size - 10) % 7 + 1 + 4)
            guard resolved.count == size, resolved.value(at: "group.t\(size - 1)") == .dimension(expected) else {
                throw BenchFailure("scaling: the synthetic \(size)-token theme resolved wrongly")
            }
            themes[size] = theme
        }
        let largest = sizes.last ?? 1
        let samples = try await rounds(options.repeats, sizes: sizes, warmUp: sizes) { size in
            guard let theme = themes[size] else { throw BenchFailure("scaling: no theme of \(size) tokens") }
            let batch = max(1, largest / size)   // about the same time per sample at every size
            let seconds = try Measure.seconds {
                for _ in 0..<batch { _ = try ThemeResolver.resolveTokens(layers: [theme]) }
            }
            return seconds / Double(batch) * 1e3
        }
        return figures("theme_resolve", unit: "ms", sizes: sizes, samples: samples, growth: .linear(slack: 1.2),
                       noun: "tokens", quick: options.quick,
                       what: "ThemeResolver.resolveTokens of a synthetic theme, alias chains of depth 10") { size in
            let median = Measure.summarize(samples[size] ?? []).median
            return "\(Figure.format(median * 1e3 / Double(size))) µs/token"
        }
    }
}
