import CheckoutCore
import CheckoutTestSupport
import CheckoutVault
import CheckoutLocking
import Foundation
import Spawning
import Testing

extension Reliability {
    /// SIGKILL at random points: the local store (child process) and the server process.
    @Suite(.serialized, .timeLimit(.minutes(30)))
    struct CrashSafety {
        static let scope = VaultScope(merchantId: "merchant_a", customerId: "crash-customer")

        /// A started child process with its stdout pipe.
        ///
        /// `@unchecked Sendable`: a child is handed from the test's task to one detached task at a
        /// time (which reads its pipe or kills it) and never used by two tasks at once.
        final class Child: @unchecked Sendable {
            let process: ChildProcess
            private let output: FileHandle
            private var buffer: [UInt8] = []

            /// Starts `executable`; its stderr goes to `log` and SQLite's temporary files to the
            /// log's directory, so the payment-data scan sees everything the process wrote.
            init(executable: URL, arguments: [String], log: URL) throws {
                var environment = ProcessInfo.processInfo.environment
                environment["SQLITE_TMPDIR"] = log.deletingLastPathComponent().path
                process = try ChildProcess(executable: executable.path, arguments: arguments, environment: environment,
                                           standardOutput: .pipe, standardError: .file(log.path))
                guard let output = process.standardOutput else { throw SpawnError(step: "stdout pipe", code: EBADF) }
                self.output = output
            }

            /// The next complete line, or nil at EOF.
            func readLine() -> String? {
                while true {
                    if let newline = buffer.firstIndex(of: 10) {
                        let line = String(decoding: buffer[..<newline], as: UTF8.self)
                        buffer.removeFirst(newline + 1)
                        return line
                    }
                    let chunk = output.availableData
                    if chunk.isEmpty {
                        if buffer.isEmpty { return nil }
                        defer { buffer.removeAll() }
                        return String(decoding: buffer, as: UTF8.self)
                    }
                    buffer += chunk
                }
            }

            func kill() {
                process.kill()
                _ = process.waitUntilExit()
            }
        }

        /// What the children reported committed, over every run.
        struct Ledger {
            var upserted: Set<String> = []
            var deleted: Set<String> = []

            mutating func record(_ line: String) {
                let parts = line.split(separator: " ")
                guard parts.count == 2 else { return }
                if parts[0] == "U" { upserted.insert(String(parts[1])) }
                if parts[0] == "D" { deleted.insert(String(parts[1])) }
            }
        }

        /// Checks the reopened store against what was reported: every committed write present
        /// exactly once, nothing unknown, and a consistent outbox.
        ///
        /// One write may have committed without its report: the kill can land between a delete's
        /// commit and its `D` line. Only the delete the child makes right after the last upsert it
        /// reported (of token `i - 2` after `U i`, for `i % 5 == 4`) can be that one; it is
        /// recorded in the ledger as committed. Any other deleted row is a failure.
        static func verify(storePath: String, ledger: inout Ledger, run: Int, lastLine: String?,
                           attempted: Set<String>) throws {
            let store = try VaultStore(path: storePath)
            let rows = try store.blocking.storedInstruments(scope: scope, includeDeleted: true)
            let byToken = Dictionary(grouping: rows, by: \.method.id)
            #expect(byToken.values.allSatisfy { $0.count == 1 }, "a token is stored twice")
            if let lastLine, lastLine.hasPrefix("U r\(run)-"), let index = Int(lastLine.dropFirst("U r\(run)-".count)),
               index % 5 == 4 {
                let victim = "r\(run)-\(index - 2)"
                if byToken[victim]?.first?.isDeleted == true { ledger.deleted.insert(victim) }
            }
            for token in ledger.upserted {
                guard let row = byToken[token]?.first else {
                    Issue.record("reported write \(token) is missing after the kill")
                    continue
                }
                #expect(row.isDeleted == ledger.deleted.contains(token), "\(token): deleted flag is wrong")
            }
            for token in byToken.keys { #expect(attempted.contains(token), "unknown row \(token)") }
            let ops = try store.blocking.pendingOps(scope: scope, limit: 1_000_000)
            #expect(Set(ops.map(\.id)).count == ops.count, "duplicate op ids in the outbox")
            for op in ops {
                #expect(byToken[op.token] != nil, "outbox op \(op.kind) refers to a missing row \(op.token)")
            }
            for kind in [OutboxOperation.Kind.upsert, .delete] {
                let tokens = ops.filter { $0.kind == kind }.map(\.token)
                #expect(Set(tokens).count == tokens.count, "a \(kind) is queued twice for one token")
            }
        }

        /// Syncs until the outbox is empty, then checks the server holds exactly the local data and
        /// applied every op once (new instruments at version 1, tombstones at version 2).
        static func verifyConvergence(storePath: String, remote: HTTPRemoteVault, ledger: Ledger) async throws {
            let store = try VaultStore(path: storePath)
            let engine = SyncEngine(store: store, remote: remote,
                                    configuration: .init(scopes: [scope], interval: nil, retry: .noRetry))
            var pending = -1
            for _ in 0..<5 where pending != 0 {
                pending = (try? await engine.syncNow(scope: scope))?.pending ?? -1
            }
            #expect(pending == 0, "the final sync did not empty the outbox")
            let local = try await store.instruments(scope: scope)
            let server = try await remote.instruments(scope: scope)
            #expect(local.map(\.id).sorted() == server.map(\.id).sorted(), "server and client hold different instruments")
            let serverById = Dictionary(uniqueKeysWithValues: server.map { ($0.id, $0) })
            for method in local { #expect(serverById[method.id]?.method == method, "\(method.id) differs on the server") }
            for token in ledger.upserted where !ledger.deleted.contains(token) {
                #expect(serverById[token] != nil, "committed write \(token) never reached the server")
            }
            var cursor: String?
            var feed: [RemoteChange] = []
            repeat {
                let page = try await remote.changes(scope: scope, cursor: cursor, limit: 500)
                feed += page.changes
                cursor = page.cursor
                if !page.hasMore { break }
            } while true
            for change in feed {
                #expect(change.version == (change.isDeleted ? 2 : 1), "\(change.token) has version \(change.version): an op was applied twice")
            }
            for token in ledger.deleted { #expect(feed.contains { $0.token == token && $0.isDeleted }, "\(token) not deleted on the server") }
        }

        @Test("a child killed with SIGKILL mid-write and mid-sync loses and doubles nothing")
        func childKills() async throws {
            let executable = try BuiltExecutable.require("vault-crash-child")
            let directory = try ReliabilityTemp.directory("crash-child")
            let storePath = directory.appendingPathComponent("client.sqlite").path
            // 50 runs of writes to one customer pass the default instrument cap (not under test here).
            let server = try ReliabilityServer(directory: directory, limits: ReliabilityServer.defaultLimits(maxInstrumentsPerCustomer: 100_000))
            defer { server.server.stop() }
            var random = SeededRandom(seed: ReliabilityBudget.seed &+ 8)
            var ledger = Ledger()
            var attempted = Set<String>()
            let count = 400
            for run in 0..<ReliabilityBudget.childKills {
                var arguments = ["--db", storePath, "--run", String(run), "--count", String(count)]
                // Every other run syncs, so kills land in pushes and pulls too.
                if run % 2 == 1 { arguments += ["--server", server.baseURL.absoluteString, "--api-key", ReliabilityServer.keyA] }
                for index in 0..<count { attempted.insert("r\(run)-\(index)") }
                let child = try Child(executable: executable, arguments: arguments,
                                      log: directory.appendingPathComponent("child-\(run).log"))
                let killAfter = 1 + random.below(run % 2 == 1 ? 60 : 250)
                let (lines, exited) = await onOwnThread { () -> ([String], Bool) in
                    var lines: [String] = []
                    while lines.count < killAfter, let line = child.readLine() { lines.append(line) }
                    // End of output before the kill point means the child exited on its own.
                    // (`Process.isRunning` is not used: on Linux it can read false for a live child.)
                    let exited = lines.count < killAfter
                    child.kill()
                    while let line = child.readLine() { lines.append(line) }
                    return (lines, exited)
                }
                if exited {
                    let log = (try? String(contentsOf: directory.appendingPathComponent("child-\(run).log"), encoding: .utf8)) ?? ""
                    Issue.record("the child finished before the kill (run \(run), \(child.process.ended.map(String.init(describing:)) ?? "still running")): \(log)")
                }
                for line in lines { ledger.record(line) }
                try Self.verify(storePath: storePath, ledger: &ledger, run: run,
                                lastLine: lines.last { $0.hasPrefix("U ") || $0.hasPrefix("D ") }, attempted: attempted)
                ReliabilityCounters.shared.add("crash.childKills")
            }
            #expect(ledger.upserted.count > ReliabilityBudget.childKills)
            try await Self.verifyConvergence(storePath: storePath, remote: server.remote(), ledger: ledger)
        }

        /// `vault-server` did not print its address.
        struct StartFailure: Error {}

        /// A running `vault-server` process (`@unchecked Sendable` for the same reason as `Child`).
        final class ServerProcess: @unchecked Sendable {
            let child: Child
            let port: Int

            /// The configuration of the killed server: the shipped defaults, with an instrument cap
            /// above what 50 cycles of writes to one customer reach (the cap is not under test here).
            static let configuration = """
                {"listen": {"host": "127.0.0.1", "port": 0}, "tombstoneRetentionSeconds": 2592000, "threads": 4,
                 "limits": {"maxBodyBytes": 1048576, "maxPageSize": 1000, "defaultPageSize": 200, "maxOpsPerBatch": 500,
                            "rateLimitPerSecond": 2000, "rateLimitBurst": 4000, "maxInstrumentsPerCustomer": 100000}}
                """

            init(executable: URL, database: String, log: URL) throws {
                let configuration = log.deletingLastPathComponent().appendingPathComponent("vault-server.json")
                try Data(Self.configuration.utf8).write(to: configuration)
                child = try Child(executable: executable, arguments: [
                    "--db", database, "--port", "0", "--host", "127.0.0.1", "--config", configuration.path,
                    "--api-key", "\(ReliabilityServer.keyA):merchant_a",
                ], log: log)
                guard let line = child.readLine(), let port = Int(line.split(separator: ":").last ?? "") else {
                    child.kill()
                    throw StartFailure()
                }
                self.port = port
            }
        }

        @Test("vault-server killed with SIGKILL mid-batch: after a restart the client converges, nothing lost or doubled")
        func serverKills() async throws {
            let executable = try BuiltExecutable.require("vault-server")
            let directory = try ReliabilityTemp.directory("crash-server")
            let serverDatabase = directory.appendingPathComponent("server.sqlite").path
            let storePath = directory.appendingPathComponent("client.sqlite").path
            let store = try VaultStore(path: storePath)
            var random = SeededRandom(seed: ReliabilityBudget.seed &+ 9)
            var ledger = Ledger()
            var lastPort = 0
            var midSync = 0
            for cycle in 0..<ReliabilityBudget.serverKills {
                let server = try ServerProcess(executable: executable, database: serverDatabase,
                                               log: directory.appendingPathComponent("server-\(cycle).log"))
                lastPort = server.port
                // A burst of local writes, then a sync in batches while the server is killed.
                for index in 0..<60 {
                    let token = "s\(cycle)-\(index)"
                    try await store.upsert(ReliabilityFixture.card(token, last4: String(format: "%04d", index)), scope: Self.scope)
                    ledger.upserted.insert(token)
                    if index % 6 == 5, try await store.delete(token: "s\(cycle)-\(index - 3)", scope: Self.scope) {
                        ledger.deleted.insert("s\(cycle)-\(index - 3)")
                    }
                }
                let remote = HTTPRemoteVault(baseURL: try #require(URL(string: "http://127.0.0.1:\(server.port)")), apiKey: ReliabilityServer.keyA,
                                             timeout: 10)
                let engine = SyncEngine(store: store, remote: remote,
                                        configuration: .init(scopes: [Self.scope], pushBatchSize: 5, interval: nil, retry: .noRetry))
                let pendingBefore = try await store.pendingCount(scope: Self.scope)
                #expect(pendingBefore > 0)
                // The kill lands after a seeded number of ops has been pushed (anywhere from the
                // first batch to the last), and records whether the round was still in flight then.
                let round = Locked<(started: Bool, finished: Bool)>((false, false))
                let sync = Task {
                    round.withLock { $0.started = true }
                    defer { round.withLock { $0.finished = true } }
                    return try? await engine.syncNow(scope: Self.scope)
                }
                let killAt = pendingBefore - 1 - random.below(max(1, pendingBefore - 1))
                let inFlight = await onOwnThread { () -> Bool in
                    _ = eventuallyBlocking(poll: .milliseconds(1)) {
                        round.withLock { $0.finished } || ((try? store.blocking.pendingCount(scope: Self.scope)) ?? 0) <= killAt
                    }
                    let state = round.withLock { $0 }
                    server.child.kill()
                    return state.started && !state.finished
                }
                _ = await sync.value
                ReliabilityCounters.shared.add("crash.serverKills")
                if inFlight {
                    midSync += 1
                    ReliabilityCounters.shared.add("crash.serverKillsMidSync")
                }
            }
            // At least half of the kills must have landed while a sync round was in flight, or the
            // test would be about restarts, not about kills mid-batch.
            #expect(midSync * 2 >= ReliabilityBudget.serverKills,
                    "only \(midSync) of \(ReliabilityBudget.serverKills) kills landed while a sync round was in flight")
            // Restart on the same database; the client must converge with nothing lost or doubled.
            let server = try ServerProcess(executable: executable, database: serverDatabase,
                                           log: directory.appendingPathComponent("server-final.log"))
            #expect(server.port > 0 && lastPort > 0)
            defer { server.child.kill() }
            let remote = HTTPRemoteVault(baseURL: try #require(URL(string: "http://127.0.0.1:\(server.port)")), apiKey: ReliabilityServer.keyA,
                                         timeout: 10)
            try await Self.verifyConvergence(storePath: storePath, remote: remote, ledger: ledger)
        }
    }
}
