import CheckoutTestSupport
import CheckoutCore
import CheckoutLocking
import CheckoutVault
import Foundation
import Testing
import VaultServer
@testable import VaultServerPostgres

/// A `RemoteVault` that sends each request to the next server in turn, like a round-robin
/// load balancer: a client's consecutive requests land on different instances.
final class AlternatingRemote: RemoteVault {
    private let remotes: [HTTPRemoteVault]
    private let next = Locked(0)

    init(_ remotes: [HTTPRemoteVault]) { self.remotes = remotes }

    private var remote: HTTPRemoteVault {
        remotes[next.withLock { index in defer { index += 1 }; return index % remotes.count }]
    }

    func identity(scope: VaultScope) async throws -> VaultIdentity {
        try await remote.identity(scope: scope)
    }

    func changes(scope: VaultScope, cursor: String?, limit: Int) async throws -> ChangePage {
        try await remote.changes(scope: scope, cursor: cursor, limit: limit)
    }

    func push(scope: VaultScope, ops: [OutboundOp]) async throws -> [OpResult] {
        try await remote.push(scope: scope, ops: ops)
    }

    func instruments(scope: VaultScope) async throws -> [RemoteInstrument] {
        try await remote.instruments(scope: scope)
    }
}

/// A counter shared by concurrent tasks.
final class SharedCounter: Sendable {
    private let value = Locked(0)
    func increment() { value.withLock { $0 += 1 } }
    var current: Int { value.withLock { $0 } }
}

/// Two `VaultServer` instances, on two ports, over one PostgreSQL database: what a load balancer
/// in front of several `vault-server` processes looks like to clients.
@Suite(.enabled(if: PostgresTestEnvironment.isConfigured,
                "PostgreSQL tests skipped: CHECKOUTKIT_POSTGRES_URL not set (run: scripts/with-postgres.sh swift test)"))
struct PostgresMultiInstanceTests {
    /// Two instances sharing a fresh schema.
    private static func instances() throws -> (TestServer, TestServer) {
        let first = try TestServer(.postgres)
        return (first, try TestServer(.postgres, schema: first.schema))
    }

    @Test("devices syncing through either instance, alternately, converge")
    func devicesConverge() async throws {
        let (one, two) = try Self.instances()
        let scope = Fixture.scope("shopper-1")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pg-converge-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let configuration = SyncEngine.Configuration(scopes: [scope], pageSize: 5, pushBatchSize: 4, interval: nil,
                                                     randomSeed: TestSeed.derived(7))
        let devices = try ["phone", "laptop"].map { name in
            SyncEngine(store: try VaultStore(path: directory.appendingPathComponent("\(name).sqlite").path),
                       remote: AlternatingRemote([one.remote(), two.remote()]), configuration: configuration)
        }
        var random = TestSeed.generator(42, for: "PostgresMultiInstanceTests")  // printed, so a failing round replays
        var created = 0
        for round in 0..<12 {
            // Offline edits on both devices, then both sync (concurrently on odd rounds).
            for (index, device) in devices.enumerated() {
                let live = try await device.store.instruments(scope: scope).map(\.id).sorted()
                for _ in 0..<3 {
                    switch Int.random(in: 0..<6, using: &random) {
                    case 0, 1, 2:
                        created += 1
                        try await device.store.upsert(Fixture.card("tok-\(index)-\(created)", last4: String(format: "%04d", created),
                                                                   isDefault: Bool.random(using: &random)), scope: scope)
                    case 3 where !live.isEmpty:
                        let token = live[Int.random(in: 0..<live.count, using: &random)]
                        try await device.store.upsert(Fixture.card(token, name: "round \(round) device \(index)"), scope: scope)
                    case 4 where !live.isEmpty:
                        _ = try await device.store.delete(token: live[Int.random(in: 0..<live.count, using: &random)], scope: scope)
                    case 5 where !live.isEmpty:
                        try await device.store.setDefault(token: live[Int.random(in: 0..<live.count, using: &random)], scope: scope)
                    default:
                        break
                    }
                }
            }
            if round % 2 == 1 {
                async let first = devices[0].syncNow(scope: scope)
                async let second = devices[1].syncNow(scope: scope)
                _ = try await (first, second)
            } else {
                _ = try await devices[0].syncNow(scope: scope)
                _ = try await devices[1].syncNow(scope: scope)
            }
        }
        // Quiet rounds: everything pushed, everything pulled.
        for _ in 0..<2 {
            for device in devices { _ = try await device.syncNow(scope: scope) }
        }

        func snapshot(_ methods: [VaultedPaymentMethod]) -> [VaultedPaymentMethod] { methods.sorted { $0.id < $1.id } }
        let server = snapshot(try await one.remote().instruments(scope: scope).map(\.method))
        #expect(snapshot(try await two.remote().instruments(scope: scope).map(\.method)) == server)
        #expect(server.count >= 5, "the scenario should leave several instruments")
        #expect(server.filter(\.isDefault).count <= 1)
        for device in devices {
            #expect(snapshot(try await device.store.instruments(scope: scope)) == server)
            #expect(try await device.store.pendingCount(scope: scope) == 0)
        }
    }

    @Test("concurrent batches for one customer on both instances keep one default and apply each op once")
    func concurrentBatches() async throws {
        let (one, two) = try Self.instances()
        let scope = Fixture.scope("contended")
        let seeded = try await one.remote().push(scope: scope, ops: (0..<4).map {
            Fixture.upsert("seed-\($0)", Fixture.card("tok-\($0)", isDefault: $0 == 0))
        })
        #expect(seeded.allSatisfy { $0.status == .applied })

        for round in 0..<25 {
            // The op both instances receive at once (a client retrying through the other instance).
            let shared = Fixture.upsert("shared-\(round)", Fixture.card("shared-\(round)"))
            func batch(_ side: String, _ pick: Int) -> [OutboundOp] {
                [
                    Fixture.setDefault("\(side)-def-\(round)", "tok-\(pick)"),
                    shared,
                    Fixture.upsert("\(side)-new-\(round)", Fixture.card("\(side)-\(round)", isDefault: round % 3 == 0)),
                ]
            }
            async let fromOne = one.remote().push(scope: scope, ops: batch("one", round % 4))
            async let fromTwo = two.remote().push(scope: scope, ops: batch("two", (round + 1) % 4))
            let (resultsOne, resultsTwo) = try await (fromOne, fromTwo)

            // The shared op: applied once (version 1), the other instance replays the same result.
            #expect(resultsOne[1] == OpResult(opId: "shared-\(round)", status: .applied, version: 1))
            #expect(resultsTwo[1] == resultsOne[1])
            // Each instance's own ops were applied (nothing lost to the race).
            for result in [resultsOne[0], resultsOne[2], resultsTwo[0], resultsTwo[2]] {
                #expect(result.status == .applied, "round \(round): \(result)")
            }
            let live = try await (round % 2 == 0 ? one : two).remote().instruments(scope: scope)
            #expect(live.filter(\.method.isDefault).count == 1, "round \(round): exactly one default")
            #expect(live.first?.method.isDefault == true)
        }
        let live = try await one.remote().instruments(scope: scope)
        #expect(live.count == 4 + 25 * 3)
        #expect(live.filter { $0.id.hasPrefix("shared-") }.allSatisfy { $0.version == 1 })
        // The feed holds every instrument exactly once (compacted), and agrees with the list.
        let feed = try await Fixture.allChanges(two.remote(), scope, limit: 50)
        #expect(feed.count == live.count)
        #expect(Set(feed.map(\.token)) == Set(live.map(\.id)))
    }

    @Test("a feed reader racing writers on both instances misses nothing", arguments: 0..<6)
    func feedReaderMissesNothing(_ round: Int) async throws {
        let (one, two) = try Self.instances()
        let scope = Fixture.scope("feed-\(round)")
        let writers = 4
        let batches = 8
        let opsPerBatch = 16
        let done = SharedCounter()

        // Writers: fresh tokens only, so a skipped change is never covered by a later one.
        let committed = try await withThrowingTaskGroup(of: Set<String>.self) { group in
            for writer in 0..<writers {
                let server = writer % 2 == 0 ? one : two
                group.addTask {
                    defer { done.increment() }
                    var tokens = Set<String>()
                    let remote = server.remote()
                    for batch in 0..<batches {
                        let ids = (0..<opsPerBatch).map { "w\(writer)-b\(batch)-\($0)" }
                        let results = try await remote.push(scope: scope, ops: ids.map { Fixture.upsert("op-\($0)", Fixture.card($0)) })
                        for (id, result) in zip(ids, results) where result.status == .applied { tokens.insert(id) }
                    }
                    return tokens
                }
            }
            // The reader pages through alternating instances while the writers run.
            group.addTask {
                let remotes = [one.remote(), two.remote()]
                var seen = Set<String>()
                var cursor: String?
                var requests = 0
                var writersDone = false
                // Bounded by progress: on a loaded machine the writers may take longer than one
                // bound in all, and a reader that spins while caught up only slows them further.
                let caughtUp = try await eventually(progressing: {
                    let page = try await remotes[requests % 2].changes(scope: scope, cursor: cursor, limit: 4)
                    requests += 1
                    let before = seen.count
                    seen.formUnion(page.changes.map(\.token))
                    cursor = page.cursor
                    if seen.count > before { return .progressed }
                    // One more full pass after the last writer finished, then stop.
                    if !page.hasMore {
                        if writersDone { return .done }
                        writersDone = done.current == writers
                    }
                    return .idle
                })
                #expect(caughtUp, "the reader saw nothing new for \(TestWait.timeout) before the writers finished")
                return seen.union(["reader"])
            }
            var committed = Set<String>()
            var read = Set<String>()
            for try await set in group {
                if set.contains("reader") { read = set.subtracting(["reader"]) } else { committed.formUnion(set) }
            }
            return (committed, read)
        }
        #expect(committed.0.count == writers * batches * opsPerBatch)
        let missed = committed.0.subtracting(committed.1)
        #expect(missed.isEmpty, "the reader missed \(missed.count) committed changes, e.g. \(missed.sorted().prefix(3))")
        #expect(committed.1.subtracting(committed.0).isEmpty, "the reader saw changes nobody committed")
    }
}
