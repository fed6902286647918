/// The benchmark sections, in run order.
enum BenchSections {
    struct Section: Sendable {
        let name: String
        let run: @Sendable (BenchOptions) async throws -> [Figure]
    }

    static let all: [Section] = [
        Section(name: "sessions", run: SessionBench.run),
    ]
}
