import CBenchBaselines
import CheckoutKit
import Foundation

/// The vault's async calls (`VaultStore`'s own methods, which `VaultProvider` and the sync
/// engine use): the old workloads through them against the blocking calls, and session starts
/// while the vault is locked by another connection against session starts on an idle vault.
extension VaultBench {
    static func nonblocking(_ options: BenchOptions, scratch: ScratchDirectory) async throws -> [Figure] {
        let repeats = options.quick ? 2 : 7
        var figures: [Figure] = []
        func freshPath() -> String { Self.freshPath(in: scratch) }

        // 1. The local-save workload of `vault.local_upsert_with_outbox`, awaited.
        let customers = options.scale(500, quick: 100)
        let perCustomer = 10
        let batches = (0..<customers).map { customer in
            (VaultScope(merchantId: merchant, customerId: "c_\(customer)"), (0..<perCustomer).map { method($0, customer: customer) })
        }
        let save = try await Measure.paired(repeats) {
            let path = freshPath()
            defer { removeDatabase(path) }
            let store = try VaultStore(path: path)
            var saved = 0
            let seconds = try await Measure.seconds {
                for (scope, methods) in batches { saved += try await store.upsert(methods, scope: scope).count }
            }
            guard saved == customers * perCustomer else { throw BenchFailure("vault: upsert returned \(saved) op ids") }
            return seconds
        } baseline: {
            let path = freshPath()
            defer { removeDatabase(path) }
            let store = try VaultStore(path: path)
            return try Measure.seconds {
                for (scope, methods) in batches { _ = try store.blocking.upsert(methods, scope: scope) }
            }
        }
        let saveCost = (save.subject.median - save.baseline.median) / Double(customers) * 1e6
        figures.append(Figure(
            name: "vault.local_upsert_nonblocking", value: Double(customers * perCustomer) / save.subject.median, unit: "rows/s",
            spread: save.subject.spread, baseline: Double(customers * perCustomer) / save.baseline.median,
            baselineName: "blocking call", ratio: save.ratio, pairs: save.pairs,
            target: "ratio <= 1.1x", targetMet: save.ratio <= 1.1,
            note: "the local-save workload through store.upsert (the writer's queue, the task suspended) "
                + "against the blocking upsert on the calling thread; \(Self.microseconds(saveCost)) per call "
                + "of \(perCustomer) rows, the two thread hand-offs (a fixed cost, so the ratio falls as the work per call grows)"))

        // 2. Lists of 20 through the readers' queue.
        let listCustomers = options.scale(5_000, quick: 500)
        let listPath = freshPath()
        defer { removeDatabase(listPath) }
        let listStore = try VaultStore(path: listPath)
        try check(cbench_vault_fill(listPath, merchant, listCustomers, 20, now()), "fill")
        var random = RetryPolicy.Generator(seed: 43)
        let lists = options.scale(4_000, quick: 500)
        let scopes = (0..<lists).map { _ in VaultScope(merchantId: merchant, customerId: "c_\(Int(random.next() % UInt64(listCustomers)))") }
        let list = try await Measure.paired(repeats) {
            var total = 0
            let seconds = try await Measure.seconds {
                for scope in scopes { total += try await listStore.instruments(scope: scope).count }
            }
            guard total == lists * 20 else { throw BenchFailure("vault: listed \(total) rows") }
            return seconds
        } baseline: {
            try Measure.seconds { for scope in scopes { _ = try listStore.blocking.instruments(scope: scope) } }
        }
        let listCost = (list.subject.median - list.baseline.median) / Double(lists) * 1e6
        figures.append(Figure(
            name: "vault.list_20_nonblocking", value: list.subject.median / Double(lists) * 1e6, unit: "µs/list",
            spread: list.subject.spread, baseline: list.baseline.median / Double(lists) * 1e6,
            baselineName: "blocking call", ratio: list.ratio, pairs: list.pairs,
            target: "ratio <= 1.25x", targetMet: list.ratio <= 1.25,
            note: "instruments(scope:) of \(lists) random customers of \(listCustomers) through store.nonblocking "
                + "(a reader permit awaited, the read on the readers' queue) against the blocking call; "
                + "\(Self.microseconds(listCost)) per list, the two thread hand-offs"))

        figures.append(try await sessionsWhileLocked(options, repeats: repeats, path: freshPath()))
        figures += await handOff(options, repeats: repeats)
        return figures
    }

    /// The hand-off alone, with no SQLite: a body that busy-waits a fixed time, awaited on a serial
    /// queue (as the pool's async calls run their work), against the same body run with `sync` on
    /// the calling thread. The difference per call is what a non-blocking call adds; it grows with
    /// the body's length because the waiting thread's processor goes idle and waking an idle
    /// processor costs more (on a virtual machine, a halted vCPU is woken through the host).
    private static func handOff(_ options: BenchOptions, repeats: Int) async -> [Figure] {
        let calls = options.scale(2_000, quick: 200)
        let queue = DispatchQueue(label: "checkout-bench.hand-off")
        @Sendable func body(_ micros: UInt64) {
            let end = DispatchTime.now().uptimeNanoseconds + micros * 1_000
            while DispatchTime.now().uptimeNanoseconds < end {}
        }
        var figures: [Figure] = []
        for (micros, label, shown) in [(UInt64(20), "20us", "20 µs"), (UInt64(1_000), "1ms", "1 ms")] {
            let paired = await Measure.paired(repeats) {
                await Measure.seconds {
                    for _ in 0..<calls {
                        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                            queue.async {
                                body(micros)
                                done.resume()
                            }
                        }
                    }
                }
            } baseline: {
                Measure.seconds { for _ in 0..<calls { queue.sync { body(micros) } } }
            }
            figures.append(Figure(
                name: "vault.hand_off_\(label)_body", value: (paired.subject.median - paired.baseline.median) / Double(calls) * 1e6,
                unit: "µs/call",
                note: "what an awaited hop to a serial queue and back adds to a \(shown) body, against queue.sync on the "
                    + "calling thread (\(calls) calls, medians of \(paired.pairs) alternated pairs; no SQLite)"))
        }
        return figures
    }

    /// A signed per-call cost for a figure's note, e.g. "+13.3 µs".
    private static func microseconds(_ value: Double) -> String {
        (value < 0 ? "" : "+") + String(format: "%.1f µs", value)
    }

    /// Session starts (each lists the customer's saved methods) while another connection holds the
    /// vault's write lock and saves wait for it, against the same starts on an idle vault.
    private static func sessionsWhileLocked(_ options: BenchOptions, repeats: Int, path: String) async throws -> Figure {
        var configuration = VaultStore.Configuration()
        // The waiting saves outlast the measurement instead of failing with `busy`.
        configuration.busyTimeoutMilliseconds = 120_000
        let store = try VaultStore(path: path, configuration: configuration)
        let base = try SessionBench.fiftyMethods()
        let tokenScope = VaultScope(merchantId: "merchant_a", customerId: "customer_1")
        _ = try await store.upsert((0..<5).map { method($0, customer: 1) }, scope: tokenScope)
        let count = options.scale(5_000, quick: 500)
        let concurrency = 64
        let waitingSaves = 4 * ProcessInfo.processInfo.activeProcessorCount

        @Sendable func startSessions() async throws -> Double {
            try await Measure.seconds {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for worker in 0..<concurrency {
                        group.addTask {
                            for _ in stride(from: worker, to: count, by: concurrency) {
                                let session = CheckoutSession(clientToken: base.token, configuration: base.configuration,
                                                              registry: base.registry, processor: base.processor, vault: store)
                                await session.start()
                                guard session.phase == .ready, session.selection?.vaultedPaymentMethods.count == 5 else {
                                    throw BenchFailure("vault: a session beside the locked vault did not load its 5 saved methods")
                                }
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            }
        }

        var round = 0
        let paired = try await Measure.paired(repeats) {
            round += 1
            guard let lock = cbench_hold_write_lock(path) else { throw BenchFailure("vault: cannot take the write lock") }
            let busyScope = VaultScope(merchantId: merchant, customerId: "busy_\(round)")
            let saves = Task {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<waitingSaves {
                        group.addTask { try await store.upsert(method(index, customer: 9), scope: busyScope) }
                    }
                    try await group.waitForAll()
                }
            }
            // The saves are queued behind the lock before the sessions start.
            try await Task.sleep(for: .milliseconds(50))
            let seconds: Double
            do {
                seconds = try await startSessions()
            } catch {
                cbench_release_write_lock(lock)
                _ = await saves.result
                throw error
            }
            cbench_release_write_lock(lock)
            try await saves.value
            guard try await store.instruments(scope: busyScope).count == waitingSaves else {
                throw BenchFailure("vault: the saves behind the lock did not all land")
            }
            return seconds
        } baseline: {
            try await startSessions()
        }
        return Figure(
            name: "vault.sessions_while_vault_locked", value: Double(count) / paired.subject.median, unit: "starts/s",
            spread: paired.subject.spread, baseline: Double(count) / paired.baseline.median, baselineName: "idle vault",
            ratio: paired.ratio, pairs: paired.pairs, target: "ratio <= 1.2x", targetMet: paired.ratio <= 1.2,
            note: "\(count) session starts (50 methods, 5 saved cards listed from the vault), \(concurrency) at a time, "
                + "while another connection holds the vault's write lock and \(waitingSaves) saves wait for it "
                + "(with blocking SQLite calls those saves held every cooperative thread until the lock went: no start ran)")
    }
}
