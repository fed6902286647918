import CheckoutCore
import CheckoutJSON
import CheckoutLocking
import CheckoutVault
import Foundation
import VaultServer
import VaultServerPostgres

/// Something the simulated world did that the sync system promises never happens.
public struct SimulationViolation: Sendable, Equatable, CustomStringConvertible {
    /// The broken rule, a stable name (`converged`, `one-default`, `acked-write-lost`, ...).
    public var check: String
    /// What was seen.
    public var detail: String
    /// The step after which it was seen; nil when seen after the network healed.
    public var step: Int?

    /// One line.
    public var description: String {
        "\(check)\(step.map { " (after step \($0))" } ?? " (after healing)"): \(detail)"
    }
}

/// What one run of a schedule did and found.
public struct SimulationResult: Sendable {
    /// Every rule broken (empty: the run passed).
    public var violations: [SimulationViolation]
    /// A digest of every request, fault and answer: two runs of one schedule give the same one.
    public var traceDigest: UInt64
    /// Requests that crossed the simulated network, and faults injected among them.
    public var requests: Int
    public var faults: Int
    /// Ops the server applied (every delivery counted once per op id).
    public var appliedOps: Int
    /// The healing pass after which a whole pass over the devices moved nothing.
    public var quiescentAfterPasses: Int?
    /// The most passes allowed for that.
    public var passBound: Int

    /// True when no rule was broken.
    public var passed: Bool { violations.isEmpty }
}

/// The deterministic simulator of the whole sync system (the approach of FoundationDB's
/// simulation testing and TigerBeetle's VOPR).
///
/// A run builds, in one process: the real `VaultServer` (admission, credentials, ephemeral keys,
/// handler, `VaultService`) on real storage (in memory, SQLite or PostgreSQL); N devices, each a
/// real `VaultStore` on its own SQLite file and a real `SyncEngine` with a real `HTTPRemoteVault`
/// holding ephemeral customer keys minted by a backend with the merchant key; and between them a
/// `SimulatedNetwork` that refuses, holds back (delivering later, after newer requests),
/// duplicates and cuts requests after the server applied them. Devices crash (the store is
/// dropped and reopened from its file) and the server restarts. Time is `SimulatedTime`. Every
/// decision comes from the schedule's seed, and nothing runs concurrently, so a seed replays the
/// same run, request for request.
///
/// During the run, after every step: no device shows two defaults, and no device shows an
/// instrument again once it has seen it deleted. After the schedule the network heals, held
/// requests arrive, and every device syncs in passes until a whole pass moves nothing (within
/// `passBound` passes). Then: every outbox is empty; every device shows exactly the server's
/// instruments, fields and versions; there is at most one default, the same on every device and
/// on the server; no op was applied twice (every answer to one op id is the same); no write the
/// server applied was lost (it is the server's state, or a later write or a delete superseded
/// it); and the card numbers offered to the devices are in no byte of any file.
public enum VaultSimulation {
    static let merchant = "m_sim"
    static let merchantKey = "sim_merchant_key_for_the_simulated_backend_only"
    static let baseURL = URL(string: "https://vault.simulated")!
    /// Device index of the backend's link: never faulted.
    static let backendLink = 1_000

    /// Full card numbers a device is asked to store as a name: all must be refused.
    static let offeredNumbers = ["4242 4242 4242 4242", "5555-5555-5555-4444", "3782 822463 10005", "4000056655665556"]

    /// Runs `schedule` in a fresh folder under `directory` (removed afterwards). With `trace`, every
    /// step and every device's rows after it (token, version, flags, queued ops, the server's
    /// default as the device knows it) are written to it, for reading a failing seed.
    public static func run(_ schedule: SimulationSchedule, directory: URL,
                           trace: (@Sendable (String) -> Void)? = nil) async -> SimulationResult {
        let folder = directory.appendingPathComponent("sim-\(schedule.seed)-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let world = try await SimulatedWorld(schedule: schedule, folder: folder)
            world.trace = trace
            return await world.run()
        } catch {
            return SimulationResult(violations: [SimulationViolation(check: "setup", detail: "\(error)", step: nil)],
                                    traceDigest: 0, requests: 0, faults: 0, appliedOps: 0, quiescentAfterPasses: nil,
                                    passBound: 0)
        }
    }
}

/// One run's world. Used by one task, one step at a time.
final class SimulatedWorld {
    struct Device {
        let index: Int
        let path: String
        var store: VaultStore
        var engine: SyncEngine
        /// Tokens this device has seen deleted: none may show again (tokens are never reused).
        var seenDeleted: Set<String> = []
    }

    let schedule: SimulationSchedule
    let parameters: SimulationParameters
    let folder: URL
    let time = SimulatedTime()
    let scope: VaultScope
    var storage: any VaultServerStorage
    let network: SimulatedNetwork
    let backend: HTTPRemoteVault
    /// The ephemeral key ids minted for each device, newest last.
    let keyIds = KeyRegistry()
    var devices: [Device] = []
    var violations: [SimulationViolation] = []
    var adds = 0
    var trace: (@Sendable (String) -> Void)?

    init(schedule: SimulationSchedule, folder: URL) async throws {
        self.schedule = schedule
        self.parameters = schedule.parameters
        self.folder = folder
        switch schedule.storage {
        case .memory, .sqlite:
            scope = VaultScope(merchantId: VaultSimulation.merchant, customerId: "cus_sim")
        case .postgres:
            // A database shared by many runs: each run has customers of its own.
            scope = VaultScope(merchantId: VaultSimulation.merchant,
                               customerId: "cus_sim_" + UUID().uuidString.lowercased().filter { $0.isLetter })
        }
        storage = try Self.openStorage(schedule.storage, folder: folder)
        let server = try Self.makeServer(parameters, storage: storage, time: time)
        network = SimulatedNetwork(server: server)
        backend = HTTPRemoteVault(baseURL: VaultSimulation.baseURL, credentials: .apiKey(VaultSimulation.merchantKey),
                                  exchange: SimulatedLink(network: network, device: VaultSimulation.backendLink),
                                  clock: time.wallClock)
        for index in 0..<parameters.devices {
            let path = folder.appendingPathComponent("device-\(index).sqlite").path
            let (store, engine) = try await openDevice(index, path: path)
            devices.append(Device(index: index, path: path, store: store, engine: engine))
        }
    }

    static func openStorage(_ storage: SimulationStorage, folder: URL) throws -> any VaultServerStorage {
        switch storage {
        case .memory: return InMemoryVaultServerStorage()
        case .sqlite: return try SQLiteVaultServerStorage(path: folder.appendingPathComponent("server.sqlite").path)
        case .postgres(let url): return try PostgresVaultServerStorage(url: url, options: .init(poolSize: 2))
        }
    }

    static func makeServer(_ parameters: SimulationParameters, storage: any VaultServerStorage,
                           time: SimulatedTime) throws -> VaultServer {
        let limits = VaultServerConfiguration.Limits(
            maxPageSize: parameters.serverMaxPageSize, defaultPageSize: parameters.serverMaxPageSize,
            maxInstrumentsPerCustomer: parameters.maxInstruments, maxFeedPageBytes: parameters.serverMaxPageBytes)
        let configuration = VaultServerConfiguration(apiKeys: [VaultSimulation.merchantKey: VaultSimulation.merchant],
                                                     tombstoneRetentionSeconds: Double(parameters.retentionSeconds),
                                                     limits: limits.withoutRateLimits)
        try configuration.validate()
        // Refused credentials are part of the weather here (expired and revoked keys): not logged.
        return VaultServer(configuration: configuration, storage: storage, clock: time.wallClock, sleepClock: time,
                           log: VaultServerLog { _ in })
    }

    func openDevice(_ index: Int, path: String) async throws -> (VaultStore, SyncEngine) {
        let store = try await VaultStore.open(path: path, clock: time.wallClock)
        let backend = self.backend
        let keyIds = self.keyIds
        let ttl = parameters.keyTTLSeconds
        let remote = HTTPRemoteVault(
            baseURL: VaultSimulation.baseURL,
            credentials: .ephemeral { scope in
                let issued = try await backend.createEphemeralKey(customerId: scope.customerId, ttlSeconds: ttl)
                keyIds.ids.withLock { $0[index, default: []].append(issued.id) }
                return issued.vaultKey
            },
            exchange: SimulatedLink(network: network, device: index), keyRefreshMargin: .seconds(30), clock: time.wallClock)
        let configuration = SyncEngine.Configuration(
            scopes: [scope], includePendingScopes: false, pageSize: parameters.pageSize,
            pushBatchSize: parameters.pushBatchSize, interval: nil,
            retry: RetryPolicy(maxAttempts: parameters.retryAttempts), randomSeed: schedule.seed &+ UInt64(index),
            maxPagesPerRound: parameters.maxPagesPerRound, roundTimeBudget: .seconds(3600))
        let engine = await SyncEngine.open(store: store, remote: remote, configuration: configuration, clock: time,
                                           wallClock: time.wallClock)
        return (store, engine)
    }

    // MARK: Running

    func run() async -> SimulationResult {
        for (number, step) in schedule.steps {
            do {
                try await perform(step, number: number)
            } catch {
                violations.append(SimulationViolation(check: "workload", detail: "\(step): \(error)", step: number))
            }
            await checkAlways(step: number, devices: step.device.map { [$0] } ?? [])
            if let trace { await describeDevices("\(number): \(step)", to: trace) }
            if !violations.isEmpty { return result(quiescentAfter: nil, bound: 0) }
        }
        let (quiet, bound) = await heal()
        if violations.isEmpty { await checkConverged() }
        return result(quiescentAfter: quiet, bound: bound)
    }

    private func result(quiescentAfter: Int?, bound: Int) -> SimulationResult {
        let counts = network.counts
        let applied = Set(network.observedOps.filter { $0.status == "applied" }.map(\.opId)).count
        return SimulationResult(violations: violations, traceDigest: network.traceDigest, requests: counts.requests,
                                faults: counts.faults, appliedOps: applied, quiescentAfterPasses: quiescentAfter,
                                passBound: bound)
    }

    private func perform(_ step: SimulationStep, number: Int) async throws {
        switch step {
        case .add(let device, let isDefault):
            adds += 1
            try await devices[device].store.upsert(card("tok_s\(number)", number: number, isDefault: isDefault),
                                                   scope: scope)
        case .edit(let device, let pick):
            guard var method = try await shown(device, pick) else { return }
            method.paymentInstrumentData.cardholderName = "Edited at step \(number)"
            method.paymentInstrumentData.expirationMonth = 1 + number % 12
            try await devices[device].store.upsert(method, scope: scope)
        case .delete(let device, let pick):
            guard let method = try await shown(device, pick) else { return }
            try await devices[device].store.delete(token: method.id, scope: scope)
        case .setDefault(let device, let pick):
            guard let method = try await shown(device, pick) else { return }
            try await devices[device].store.setDefault(token: method.id, scope: scope)
        case .offerCardNumber(let device):
            var method = card("tok_s\(number)", number: number, isDefault: false)
            method.paymentInstrumentData.cardholderName = VaultSimulation.offeredNumbers[number % VaultSimulation.offeredNumbers.count]
            do {
                try await devices[device].store.upsert(method, scope: scope)
                violations.append(SimulationViolation(check: "card-number-accepted",
                                                      detail: "a name holding a card number was saved", step: number))
            } catch let error as CheckoutError where [.invalidPaymentData, .sensitiveDataRejected].contains(error.code) {}
        case .sync(let device, let faults):
            network.beginRound(faults: parameters.faults, seed: faults)
            _ = try? await devices[device].engine.syncNow(scope: scope)
            network.beginRound(faults: .none, seed: 0)
            if network.takeCrash(device) { try await reopen(device) }
        case .crash(let device):
            try await reopen(device)
        case .restartServer:
            if case .sqlite = schedule.storage {
                storage = try Self.openStorage(.sqlite, folder: folder)
            }
            network.replaceServer(try Self.makeServer(parameters, storage: storage, time: time))
        case .revokeKey(let device):
            if let id = keyIds.ids.withLock({ $0[device]?.last }) { try await backend.revokeEphemeralKey(id: id) }
        case .advanceClock(let seconds):
            time.advance(by: .seconds(seconds))
        case .deliverHeld:
            network.deliverHeld()
        }
    }

    /// The device's process dies: its engine and store are dropped, then opened again from the file.
    private func reopen(_ device: Int) async throws {
        let path = devices[device].path
        let seen = devices[device].seenDeleted
        // Nothing else holds the engine or the store: removing them closes the store's connections.
        devices.remove(at: device)
        let (store, engine) = try await openDevice(device, path: path)
        devices.insert(Device(index: device, path: path, store: store, engine: engine, seenDeleted: seen), at: device)
    }

    /// The `pick`-th instrument the device shows, by token (wrapping); nil when it shows none.
    private func shown(_ device: Int, _ pick: Int) async throws -> VaultedPaymentMethod? {
        let methods = try await devices[device].store.instruments(scope: scope).sorted { $0.id < $1.id }
        return methods.isEmpty ? nil : methods[pick % methods.count]
    }

    private func card(_ token: String, number: Int, isDefault: Bool) -> VaultedPaymentMethod {
        let bins: [(CardNetwork, String)] = [(.visa, "424242"), (.mastercard, "555555"), (.amex, "378282")]
        let (network, first6) = bins[number % bins.count]
        return VaultedPaymentMethod(
            id: token, paymentMethodType: .paymentCard, paymentInstrumentType: .paymentCard,
            paymentInstrumentData: PaymentInstrumentData(network: network, first6Digits: first6,
                                                         last4Digits: String(format: "%04d", (number * 37) % 10_000),
                                                         expirationMonth: 1 + number % 12, expirationYear: 2030 + number % 6,
                                                         cardholderName: "Card of step \(number)"),
            analyticsId: "an_\(token)", isDefault: isDefault)
    }

    // MARK: Healing

    /// The network calms, held requests arrive, and every device syncs in passes until one whole
    /// pass moves nothing. Returns that pass and the bound.
    private func heal() async -> (Int?, Int) {
        network.beginRound(faults: .none, seed: 0)
        network.deliverHeld()
        // A pass pulls at least `maxPagesPerRound` changes per device (a page holds at least one);
        // the feed holds at most one entry per card ever added. Two more passes carry one device's
        // last push to the others, and one confirms that nothing moves.
        let bound = 4 + (adds + parameters.maxPagesPerRound - 1) / parameters.maxPagesPerRound
        for pass in 1...bound {
            var moved = false
            for device in devices.indices {
                do {
                    let report = try await devices[device].engine.syncNow(scope: scope)
                    if report.pulled > 0 || report.pushed > 0 || report.rejected > 0 || report.isPartial || report.didReset {
                        moved = true
                    }
                    trace?("  pass \(pass), device \(device): pulled \(report.pulled), pushed \(report.pushed), "
                           + "refused \(report.rejections.map { "\($0.kind.rawValue) \($0.token) \($0.reason)" })")
                } catch {
                    violations.append(SimulationViolation(check: "healed-round-failed",
                                                          detail: "device \(device): \(error)", step: nil))
                    return (nil, bound)
                }
            }
            await checkAlways(step: nil, devices: Array(devices.indices))
            if let trace { await describeDevices("healing pass \(pass)", to: trace) }
            if !moved { return (pass, bound) }
        }
        violations.append(SimulationViolation(check: "quiescence", detail: "still moving after \(bound) passes", step: nil))
        return (nil, bound)
    }

    /// Every device's rows, queue and knowledge of the server's default, one line each.
    private func describeDevices(_ heading: String, to trace: @Sendable (String) -> Void) async {
        trace(heading)
        for device in devices {
            let rows = (try? await device.store.storedInstruments(scope: scope, includeDeleted: true)) ?? []
            let pending = (try? await device.store.pendingOps(scope: scope, limit: 1000)) ?? []
            let known: String?? = (try? await device.store.knownServerDefault(scope: scope)) ?? nil
            let shown = rows.sorted { $0.method.id < $1.method.id }.map { row in
                "\(row.method.id)@\(row.version)\(row.isDeleted ? "✝" : "")\(row.method.isDefault ? "*" : "")"
            }
            let queued = pending.map { "\($0.kind.rawValue) \($0.token)@\($0.baseVersion)" }
            let serverDefault = known.map { $0 ?? "none" } ?? "unknown"
            trace("  device \(device.index): [\(shown.joined(separator: " "))] queue [\(queued.joined(separator: ", "))] "
                  + "server default \(serverDefault)")
        }
    }

    // MARK: Checks

    /// What must hold after every step: at most one default per device, and nothing shown again
    /// after the device saw it deleted. Checked on the devices the step could change (a step
    /// changes its own device's store only; the server's steps change none).
    private func checkAlways(step: Int?, devices indices: [Int]) async {
        for device in indices where devices.indices.contains(device) {
            guard let rows = try? await devices[device].store.storedInstruments(scope: scope, includeDeleted: true) else {
                violations.append(SimulationViolation(check: "store-readable", detail: "device \(device)", step: step))
                continue
            }
            let defaults = rows.filter { !$0.isDeleted && $0.method.isDefault }.map(\.method.id)
            if defaults.count > 1 {
                violations.append(SimulationViolation(check: "one-default",
                                                      detail: "device \(device) shows \(defaults.sorted()) as defaults", step: step))
            }
            for row in rows where !row.isDeleted && devices[device].seenDeleted.contains(row.method.id) {
                violations.append(SimulationViolation(check: "deleted-shown",
                                                      detail: "device \(device) shows \(row.method.id) again", step: step))
            }
            devices[device].seenDeleted.formUnion(rows.filter(\.isDeleted).map(\.method.id))
        }
    }

    /// After quiescence: every device is the server, and the network's record agrees.
    private func checkConverged() async {
        do {
            let server = try await backend.instruments(scope: scope)
            let serverView = Dictionary(uniqueKeysWithValues: server.map { ($0.id, $0) })
            let serverDefaults = server.filter(\.method.isDefault).map(\.id).sorted()
            if serverDefaults.count > 1 {
                violations.append(SimulationViolation(check: "one-default", detail: "the server holds \(serverDefaults)", step: nil))
            }
            for device in devices {
                let pending = try await device.store.pendingCount(scope: scope)
                if pending > 0 {
                    violations.append(SimulationViolation(check: "outbox-empty",
                                                          detail: "device \(device.index) still queues \(pending) ops", step: nil))
                }
                let rows = try await device.store.storedInstruments(scope: scope)
                let shown = Dictionary(uniqueKeysWithValues: rows.map { ($0.method.id, $0) })
                for token in Set(shown.keys).union(serverView.keys).sorted() {
                    let local = shown[token]
                    let remote = serverView[token]
                    guard local?.version != remote?.version || local?.method != remote?.method else { continue }
                    violations.append(SimulationViolation(
                        check: "converged",
                        detail: "device \(device.index) shows \(token) as \(Self.describe(local)), the server as \(Self.describe(remote))",
                        step: nil))
                }
                let defaults = rows.filter(\.method.isDefault).map(\.method.id).sorted()
                if defaults != serverDefaults {
                    violations.append(SimulationViolation(
                        check: "default-agrees",
                        detail: "device \(device.index) shows default \(defaults), the server \(serverDefaults)", step: nil))
                }
            }
            try await checkAnswers()
        } catch {
            violations.append(SimulationViolation(check: "server-readable", detail: "\(error)", step: nil))
        }
        checkFiles()
    }

    /// No op applied twice, and no applied write lost. The server's state is read as raw JSON so
    /// the comparison with what was sent does not go through the client's decoding.
    private func checkAnswers() async throws {
        let answer = network.serverAnswer(to: VaultServerRequest(
            method: "GET", target: "/v1/customers/\(scope.customerId)/instruments",
            headers: [VaultServerHeader(name: "Authorization", value: "Bearer \(VaultSimulation.merchantKey)")]))
        guard answer.status == 200, let list = try? JSONReader.read(answer.body)["instruments"]?.arrayValue else {
            throw SimulationSetupError("the server's instrument list could not be read (\(answer.status))")
        }
        var live: [String: (version: Int, method: JSONValue)] = [:]
        for item in list {
            guard let id = item["id"]?.stringValue, let version = item["version"]?.intValue, let method = item["method"] else { continue }
            live[id] = (version, SimulatedNetwork.withoutNulls(method))
        }
        var firstAnswer: [String: SimulatedNetwork.ObservedOp] = [:]
        var deletedByOp = Set<String>()
        for op in network.observedOps {
            if let first = firstAnswer[op.opId] {
                if first.status != op.status || first.version != op.version {
                    violations.append(SimulationViolation(
                        check: "applied-twice",
                        detail: "op \(op.opId) (\(op.kind) \(op.instrumentId)) was answered \(first.status) v\(first.version ?? 0), "
                            + "then \(op.status) v\(op.version ?? 0)", step: nil))
                }
                continue
            }
            firstAnswer[op.opId] = op
            if op.kind == "delete", op.status == "applied" { deletedByOp.insert(op.instrumentId) }
        }
        for op in firstAnswer.values.sorted(by: { $0.opId < $1.opId }) where op.status == "applied" {
            guard let version = op.version else { continue }
            guard let now = live[op.instrumentId] else {
                if !deletedByOp.contains(op.instrumentId) {
                    violations.append(SimulationViolation(
                        check: "acked-write-lost",
                        detail: "\(op.kind) of \(op.instrumentId) was applied at v\(version) but the instrument is gone "
                            + "and no delete of it was applied", step: nil))
                }
                continue
            }
            if op.kind == "delete" {
                violations.append(SimulationViolation(
                    check: "acked-write-lost", detail: "\(op.instrumentId) was deleted at v\(version) but is live at v\(now.version)",
                    step: nil))
            } else if now.version < version {
                violations.append(SimulationViolation(
                    check: "acked-write-lost", detail: "\(op.kind) of \(op.instrumentId) was applied at v\(version); "
                        + "the server is back at v\(now.version)", step: nil))
            } else if now.version == version, op.kind == "upsert", let sent = op.method, sent != now.method {
                violations.append(SimulationViolation(
                    check: "acked-write-lost", detail: "upsert of \(op.instrumentId) at v\(version): the server holds other fields",
                    step: nil))
            } else if now.version == version, op.kind == "setDefault", now.method["isDefault"] != .bool(true) {
                violations.append(SimulationViolation(
                    check: "acked-write-lost", detail: "setDefault of \(op.instrumentId) at v\(version): not the default",
                    step: nil))
            }
        }
    }

    /// The card numbers offered to the devices are in no byte of any store or server file.
    private func checkFiles() {
        let targets = VaultSimulation.offeredNumbers.map { Array($0.utf8.filter { (0x30...0x39).contains($0) }) }
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in files.sorted() {
            guard let bytes = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path) else { continue }
            for number in DigitRuns.find(targets, in: Array(bytes)) {
                violations.append(SimulationViolation(check: "card-number-stored",
                                                      detail: "\(name) holds an offered card number ending \(number.suffix(4))",
                                                      step: nil))
            }
        }
    }

    private static func describe(_ row: StoredInstrument?) -> String {
        guard let row else { return "absent" }
        return "v\(row.version)\(row.method.isDefault ? " default" : "") \"\(row.method.paymentInstrumentData.cardholderName ?? "")\""
    }

    private static func describe(_ row: RemoteInstrument?) -> String {
        guard let row else { return "absent" }
        return "v\(row.version)\(row.method.isDefault ? " default" : "") \"\(row.method.paymentInstrumentData.cardholderName ?? "")\""
    }
}

/// The ephemeral key ids the backend minted for each device (shared with the key providers).
final class KeyRegistry: Sendable {
    let ids = Locked<[Int: [String]]>([:])
}

/// A run that could not be set up or read.
struct SimulationSetupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Finds given digit strings in raw bytes, whatever separators stand between their digits (up to
/// three non-digit bytes between two digits keep a run going), as a byte-level oracle that shares
/// nothing with the product's detector.
enum DigitRuns {
    static func find(_ numbers: [[UInt8]], in bytes: [UInt8]) -> [String] {
        var found = Set<String>()
        var run: [UInt8] = []
        var gap = 0
        func close() {
            if run.count >= 12 {
                for number in numbers where !number.isEmpty && run.count >= number.count {
                    for start in 0...(run.count - number.count) where run[start..<(start + number.count)].elementsEqual(number) {
                        found.insert(String(decoding: number, as: UTF8.self))
                    }
                }
            }
            run.removeAll(keepingCapacity: true)
            gap = 0
        }
        for byte in bytes {
            if (0x30...0x39).contains(byte) {
                run.append(byte)
                gap = 0
            } else if !run.isEmpty {
                gap += 1
                if gap > 3 { close() }
            }
        }
        close()
        return found.sorted()
    }
}
