/// The benchmark sections, in run order.
enum BenchSections {
    struct Section: Sendable {
        let name: String
        let run: @Sendable (BenchOptions) async throws -> [Figure]
    }

    static let all: [Section] = [
        Section(name: "card", run: CardBench.run),
        Section(name: "card-allocations", run: CardBench.allocations),
        Section(name: "theme", run: ThemeBench.run),
        Section(name: "vault", run: VaultBench.run),
        Section(name: "sessions", run: SessionBench.run),
        Section(name: "sync", run: SyncBench.run),
        Section(name: "server", run: ServerBench.run),
        Section(name: "postgres", run: PostgresBench.run),
        Section(name: "orchestration", run: OrchestrationBench.run),
        Section(name: "hosted", run: HostedBench.run),
        Section(name: "scaling", run: ScalingBench.run),
    ]
}
