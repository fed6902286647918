import CheckoutCore
import CheckoutTestSupport
import CheckoutVault
import Foundation
import SQLiteKit
import HTTPTransport
import TLSTestSupport
import Testing

extension Reliability {
    /// Two devices sync through a proxy that drops, delays, truncates, duplicates, fails and
    /// reorders on a seeded schedule (over HTTPS: a relay that refuses, cuts and delays the
    /// encrypted stream); once the faults stop, everything converges and no op was applied twice.
    @Suite(.serialized, .timeLimit(.minutes(30)))
    struct FaultInjection {
        static let scope = VaultScope(merchantId: ReliabilityServer.merchantA, customerId: "fault-customer")

        /// One device: its own store and engine, talking through the proxy.
        struct Device {
            let name: String
            let store: VaultStore
            let engine: SyncEngine

            init(name: String, directory: URL, proxyPort: UInt16, seed: UInt64, caBundle: String? = nil) throws {
                self.name = name
                store = try VaultStore(path: directory.appendingPathComponent("\(name).sqlite").path)
                let url = try #require(URL(string: "\(caBundle == nil ? "http" : "https")://127.0.0.1:\(proxyPort)"))
                engine = SyncEngine(store: store, remote: HTTPRemoteVault(baseURL: url, apiKey: ReliabilityServer.keyA, timeout: 5,
                                                                          tls: TLSOptions(caBundle: caBundle)),
                                    configuration: .init(scopes: [FaultInjection.scope], pageSize: 3, pushBatchSize: 4,
                                                         interval: nil,
                                                         retry: RetryPolicy(baseDelay: .milliseconds(2), maxDelay: .milliseconds(20),
                                                                            maxAttempts: 4),
                                                         randomSeed: seed))
            }
        }

        /// Every op a device queued: id -> (kind, token).
        typealias OpLedger = [String: (kind: OutboxOperation.Kind, token: String)]

        static func recordQueued(_ device: Device, into ledger: inout OpLedger) throws {
            for op in try device.store.blocking.pendingOps(scope: scope, limit: 100_000) { ledger[op.id] = (op.kind, op.token) }
        }

        /// One round of local edits: new cards, an edit of an own card, a delete of a card this
        /// device learnt from the other one.
        static func edit(_ device: Device, round: Int, random: inout SeededRandom) throws {
            for index in 0..<2 {
                try device.store.blocking.upsert(ReliabilityFixture.card("\(device.name)-\(round)-\(index)", last4: String(format: "%04d", round)),
                                                 scope: scope)
            }
            let live = try device.store.blocking.instruments(scope: scope)
            let own = live.filter { $0.id.hasPrefix(device.name) }
            if !own.isEmpty {
                var edited = random.pick(own)
                edited.paymentInstrumentData.cardholderName = "Edited \(round)"
                try device.store.blocking.upsert(edited, scope: scope)
            }
            let others = live.filter { !$0.id.hasPrefix(device.name) }
            if !others.isEmpty && random.chance(1, in: 2) {
                try device.store.blocking.delete(token: random.pick(others).id, scope: scope)
            }
        }

        @Test("seeded fault schedules: after the faults stop, server and both devices hold identical data, no op applied twice")
        func schedules() async throws {
            let only = ProcessInfo.processInfo.environment["CHECKOUTKIT_FAULT_SCHEDULE"].flatMap { Int($0) }
            for schedule in 0..<ReliabilityBudget.faultSchedules where only == nil || only == schedule {
                try await run(schedule: schedule)
                ReliabilityCounters.shared.add("faults.schedules")
            }
        }

        @Test("over HTTPS: seeded faults on the encrypted stream (refused, cut in the handshake, the request or the response, delayed); everything converges, no op applied twice")
        func schedulesOverHTTPS() async throws {
            let only = ProcessInfo.processInfo.environment["CHECKOUTKIT_FAULT_SCHEDULE"].flatMap { Int($0) }
            let pki = try await TestPKI.shared()
            for schedule in 0..<ReliabilityBudget.faultSchedules where only == nil || only == schedule {
                try await run(schedule: schedule, pki: pki)
                ReliabilityCounters.shared.add("faults.httpsSchedules")
            }
        }

        func run(schedule: Int, pki: TestPKI? = nil) async throws {
            let seed = ReliabilityBudget.seed &+ (pki == nil ? 100 : 200) &+ UInt64(schedule)
            var random = SeededRandom(seed: seed)
            let directory = try ReliabilityTemp.directory("faults-\(pki == nil ? "http" : "https")-\(schedule)")
            let pair = pki?.pair("server")
            let server = try ReliabilityServer(directory: directory,
                                               tls: pair.map { ($0.certificate, $0.privateKey, pki?.caBundle ?? "") })
            defer { server.server.stop() }
            let injector: any FaultInjector = pki == nil
                ? try FaultProxy(upstreamPort: server.port, seed: seed, faultPercent: 50)
                : try TLSFaultRelay(upstreamPort: server.port, seed: seed)
            defer { injector.stop() }
            let a = try Device(name: "a", directory: directory, proxyPort: injector.port, seed: seed &+ 1, caBundle: server.caBundle)
            let b = try Device(name: "b", directory: directory, proxyPort: injector.port, seed: seed &+ 2, caBundle: server.caBundle)
            var ledger: OpLedger = [:]

            for round in 0..<10 {
                try Self.edit(a, round: round, random: &random)
                try Self.edit(b, round: round, random: &random)
                try Self.recordQueued(a, into: &ledger)
                try Self.recordQueued(b, into: &ledger)
                async let syncA: Void = { _ = try? await a.engine.syncNow(scope: Self.scope) }()
                async let syncB: Void = { _ = try? await b.engine.syncNow(scope: Self.scope) }()
                _ = await (syncA, syncB)
            }

            injector.setFaults(enabled: false)
            for _ in 0..<4 {
                for device in [a, b] { _ = try? await device.engine.syncNow(scope: Self.scope) }
            }
            for device in [a, b] {
                let report = try await device.engine.syncNow(scope: Self.scope)
                #expect(report.pending == 0, "device \(device.name) still has queued ops (schedule \(schedule))")
            }

            // Identical data everywhere.
            let direct = server.remote()
            let serverInstruments = try await direct.instruments(scope: Self.scope).map(\.method).sorted { $0.id < $1.id }
            for device in [a, b] {
                let local = try await device.store.instruments(scope: Self.scope).sorted { $0.id < $1.id }
                #expect(local == serverInstruments, "device \(device.name) differs from the server (schedule \(schedule))")
            }
            #expect(!serverInstruments.isEmpty)

            // No op applied twice: every queued op was answered once, and each instrument's
            // versions 1...v were each produced by exactly one op (repeated deletes of a tombstone aside).
            let database = try Database(path: server.databasePath)
            let opLog = try database.withStatement(
                "SELECT op_id, result_json FROM op_log WHERE merchant = ? AND customer = ?") { statement in
                try statement.bind(Self.scope.merchantId, at: 1)
                try statement.bind(Self.scope.customerId, at: 2)
                var rows: [String: String] = [:]
                while try statement.step() { rows[statement.string(at: 0)] = statement.string(at: 1) }
                return rows
            }
            let versions = try database.withStatement(
                "SELECT id, version FROM instrument WHERE merchant = ? AND customer = ?") { statement in
                try statement.bind(Self.scope.merchantId, at: 1)
                try statement.bind(Self.scope.customerId, at: 2)
                var rows: [String: Int64] = [:]
                while try statement.step() { rows[statement.string(at: 0)] = statement.int64(at: 1) }
                return rows
            }
            #expect(Set(ledger.keys).isSubset(of: Set(opLog.keys)), "an op was never answered by the server")
            var produced: [String: [Int64]] = [:]
            var repeatedDeletes: [String: Int] = [:]
            for (opId, json) in opLog {
                guard let op = ledger[opId] else {
                    Issue.record("the server applied an op no device queued: \(opId)")
                    continue
                }
                let result = try JSONDecoder().decode(OpResult.self, from: Data(json.utf8))
                guard result.status == .applied, let version = result.version else { continue }
                if op.kind == .delete && produced[op.token, default: []].contains(version) {
                    repeatedDeletes[op.token, default: 0] += 1
                    continue
                }
                produced[op.token, default: []].append(version)
            }
            for (token, version) in versions {
                let made = (produced[token] ?? []).sorted()
                #expect(made == Array(Int64(1)...max(1, version)),
                        "\(token): server version \(version), versions produced by ops \(made) (schedule \(schedule))")
            }
            let edited = versions.values.filter { $0 > 2 }.count
            ReliabilityCounters.shared.add("faults.opsQueued", ledger.count)
            ReliabilityCounters.shared.add("faults.opsAppliedOrAnswered", opLog.count)
            ReliabilityCounters.shared.add("faults.instrumentsChecked", versions.count)
            #expect(edited > 0 || versions.values.contains(2), "the schedule never changed an instrument twice")
            let counts = injector.faultCounts
            for (fault, count) in counts { ReliabilityCounters.shared.add("faults.\(fault)", count) }
            let injected = counts.filter { $0.key != "pass" }.values.reduce(0, +)
            #expect(injected > 0, "the schedule injected no fault")
            let missing = injector.faultKinds.filter { (counts[$0] ?? 0) == 0 }
            #expect(missing.isEmpty, "fault kinds that never occurred in schedule \(schedule): \(missing)")
            print("fault schedule \(schedule)\(pki == nil ? "" : " over HTTPS") (seed \(seed)): \(ledger.count) ops, \(versions.count) instruments, \(repeatedDeletes.values.reduce(0, +)) repeated deletes; \(counts.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))")
        }
    }
}

/// A fault injector between the devices and the server: the HTTP fault proxy, or the relay that
/// cuts and delays encrypted streams.
protocol FaultInjector: Sendable {
    var port: UInt16 { get }
    func setFaults(enabled: Bool)
    func stop()
    /// How often each fault was injected, by name (`pass` for none).
    var faultCounts: [String: Int] { get }
    /// Every fault kind the injector can inject (`pass` excluded): each must occur in a schedule.
    var faultKinds: [String] { get }
}

extension FaultProxy: FaultInjector {
    var faultCounts: [String: Int] { Dictionary(uniqueKeysWithValues: counts.map { ($0.key.rawValue, $0.value) }) }
    var faultKinds: [String] { Fault.allCases.filter { $0 != .pass }.map(\.rawValue) }
}

extension TLSFaultRelay: FaultInjector {
    var faultCounts: [String: Int] { Dictionary(uniqueKeysWithValues: counts.map { ($0.key.rawValue, $0.value) }) }
    var faultKinds: [String] { Fault.allCases.filter { $0 != .pass }.map(\.rawValue) }
}
