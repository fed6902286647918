import CheckoutKit
import Foundation

extension ScalingBench {
    /// Ready sessions held at once, three counts: the session section's standard set-up (the real
    /// plugins, `Config/checkout.json`) started one after the other by `SessionBench.idleSessions`
    /// and kept alive; per count the time to start them all and the RSS growth per session. Each
    /// count's sessions are released before the next count starts.
    static func scaleSessions(_ options: BenchOptions) async throws -> [Figure] {
        let sizes = options.quick ? [100, 500, 2_000] : [1_000, 10_000, 50_000]
        let setup = try SessionBench.standard(options)
        var memory: [Int: [Double]] = [:], heap: [Int: [Double]] = [:]
        let start = try await rounds(options.quick ? 1 : 3, sizes: sizes, warmUp: [sizes[0]]) { size in
            let held = try await SessionBench.idleSessions(setup, count: size)
            memory[size, default: []].append(Double(held.rss) / Double(size) / 1024)
            heap[size, default: []].append(Double(held.heap) / Double(size) / 1024)
            withExtendedLifetime(held.sessions) {}
            return held.seconds * 1e3
        }
        // The warm-up run is each list's first entry for the smallest count only.
        memory[sizes[0]] = Array((memory[sizes[0]] ?? []).dropFirst())
        heap[sizes[0]] = Array((heap[sizes[0]] ?? []).dropFirst())
        let what = "ready sessions (\(setup.methodCount) methods, the real plugins) started one after the other and held"
        return figures("session_start", unit: "ms", sizes: sizes, samples: start, growth: .linear(slack: 1.5),
                       noun: "sessions", quick: options.quick, what: "time to start \(what)") { size in
            let median = Measure.summarize(start[size] ?? []).median
            return "\(Figure.format(median * 1e3 / Double(size))) µs/session"
        }
            + figures("session_memory", unit: "KB/session", sizes: sizes, samples: memory, growth: .flat(limit: 1.5),
                      noun: "sessions", quick: options.quick, what: "RSS growth per session of \(what)") { size in
                "glibc heap growth \(Figure.format(Measure.summarize(heap[size] ?? []).median)) KB/session"
            }
    }
}
