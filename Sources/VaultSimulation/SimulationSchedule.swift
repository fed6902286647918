/// Where the simulated server keeps its data.
public enum SimulationStorage: Sendable, Equatable, CustomStringConvertible {
    /// The server's in-memory storage (fastest).
    case memory
    /// The server's SQLite storage, on a file reopened at every server restart.
    case sqlite
    /// The server's PostgreSQL storage at this URL (slower; each run uses customers of its own).
    case postgres(String)

    /// The name used on the command line (`memory`, `sqlite`, `postgres`).
    public var description: String {
        switch self {
        case .memory: "memory"
        case .sqlite: "sqlite"
        case .postgres: "postgres"
        }
    }
}

/// The shape of one simulated world, drawn from the seed: how many devices, how small the pages
/// and batches, how stormy the network, how tight the server's limits.
public struct SimulationParameters: Sendable, Equatable, CustomStringConvertible {
    /// Devices of the one customer (1–5), each with its own store file and engine.
    public var devices: Int
    /// Changes each device asks for per feed page.
    public var pageSize: Int
    /// Feed pages one round may pull (small, so rounds end partial).
    public var maxPagesPerRound: Int
    /// Ops each device sends per batch.
    public var pushBatchSize: Int
    /// Attempts per request within a round (1: a failure ends the round).
    public var retryAttempts: Int
    /// The server's largest page and its byte bound on a page.
    public var serverMaxPageSize: Int
    public var serverMaxPageBytes: Int
    /// The server's cap on the customer's live instruments (adds past it are refused).
    public var maxInstruments: Int
    /// Lifetime of the ephemeral keys the backend mints for devices, in seconds.
    public var keyTTLSeconds: Int
    /// How long the server keeps tombstones and op records, in seconds.
    public var retentionSeconds: Int
    /// The network's faults while the world is stormy.
    var faults: SimulatedNetwork.Faults

    /// One line naming every parameter.
    public var description: String {
        "devices=\(devices) page=\(pageSize)x\(maxPagesPerRound) batch=\(pushBatchSize) attempts=\(retryAttempts) "
            + "serverPage=\(serverMaxPageSize)/\(serverMaxPageBytes)B cap=\(maxInstruments) keyTTL=\(keyTTLSeconds)s "
            + "retention=\(retentionSeconds)s faults(refuse=\(Self.percent(faults.refuse)) delay=\(Self.percent(faults.delay)) "
            + "dup=\(Self.percent(faults.duplicate)) lose=\(Self.percent(faults.loseAnswer)) crash=\(Self.percent(faults.crash)))"
    }

    private static func percent(_ rate: Double) -> String { "\(Int((rate * 100).rounded()))%" }
}

/// One thing that happens in the simulated world.
public enum SimulationStep: Sendable, Equatable, CustomStringConvertible {
    /// A device saves a new card (the token is named after the step), maybe as its default.
    case add(device: Int, isDefault: Bool)
    /// A device edits one of the cards it shows (the `pick`-th by token, wrapping).
    case edit(device: Int, pick: Int)
    /// A device deletes one of the cards it shows.
    case delete(device: Int, pick: Int)
    /// A device makes one of the cards it shows its default.
    case setDefault(device: Int, pick: Int)
    /// A device is asked to save a card whose name holds a full card number: the store must refuse it.
    case offerCardNumber(device: Int)
    /// A device runs one sync round; `faults` seeds the network's decisions during it.
    case sync(device: Int, faults: UInt64)
    /// A device's process dies: its store and engine are dropped and reopened from the file.
    case crash(device: Int)
    /// The server restarts on the same storage (rate limits, caches and in-flight state are new).
    case restartServer
    /// The backend revokes the device's current ephemeral key.
    case revokeKey(device: Int)
    /// Time passes (keys expire, tombstones age).
    case advanceClock(seconds: Int)
    /// Requests the network held back reach the server now, after newer ones.
    case deliverHeld

    /// The device whose store the step can change; nil for the server's and the world's steps.
    public var device: Int? {
        switch self {
        case .add(let device, _), .edit(let device, _), .delete(let device, _), .setDefault(let device, _),
             .offerCardNumber(let device), .sync(let device, _), .crash(let device):
            device
        case .restartServer, .revokeKey, .advanceClock, .deliverHeld:
            nil
        }
    }

    /// The step as the shrunk schedule prints it.
    public var description: String {
        switch self {
        case .add(let device, let isDefault): "device \(device) adds a card\(isDefault ? " as its default" : "")"
        case .edit(let device, let pick): "device \(device) edits card #\(pick)"
        case .delete(let device, let pick): "device \(device) deletes card #\(pick)"
        case .setDefault(let device, let pick): "device \(device) makes card #\(pick) its default"
        case .offerCardNumber(let device): "device \(device) is offered a card number as a name"
        case .sync(let device, let faults): "device \(device) syncs (faults \(faults))"
        case .crash(let device): "device \(device) crashes and reopens its store"
        case .restartServer: "the server restarts"
        case .revokeKey(let device): "device \(device)'s key is revoked"
        case .advanceClock(let seconds): "\(seconds) s pass"
        case .deliverHeld: "held requests arrive"
        }
    }
}

/// A whole run: the world's parameters and its steps, all from one seed. `only` keeps a subset of
/// the steps (a shrunk schedule); every step keeps the number it had in the full schedule, so a
/// card added by step 12 is `tok_s12` whatever was removed around it.
public struct SimulationSchedule: Sendable, CustomStringConvertible {
    /// The seed everything was drawn from.
    public let seed: UInt64
    /// The server's storage.
    public let storage: SimulationStorage
    /// The world's parameters.
    public let parameters: SimulationParameters
    /// The steps, each with its number in the full schedule.
    public let steps: [(number: Int, step: SimulationStep)]

    /// The schedule of `seed`, keeping only the step numbers in `only` when given.
    public init(seed: UInt64, storage: SimulationStorage = .memory, only: Set<Int>? = nil) {
        var random = SimulationRandom(seed: seed)
        let parameters = Self.parameters(&random)
        let count = random.int(20...70)
        var steps: [(Int, SimulationStep)] = []
        for number in 0..<count {
            let step = Self.step(&random, devices: parameters.devices)
            if only?.contains(number) ?? true { steps.append((number, step)) }
        }
        self.seed = seed
        self.storage = storage
        self.parameters = parameters
        self.steps = steps
    }

    private init(seed: UInt64, storage: SimulationStorage, parameters: SimulationParameters,
                 steps: [(number: Int, step: SimulationStep)]) {
        self.seed = seed
        self.storage = storage
        self.parameters = parameters
        self.steps = steps
    }

    /// The same world with only the steps whose numbers are in `numbers`.
    public func keeping(_ numbers: Set<Int>) -> SimulationSchedule {
        SimulationSchedule(seed: seed, storage: storage, parameters: parameters,
                           steps: steps.filter { numbers.contains($0.number) })
    }

    /// The step numbers, in order.
    public var numbers: [Int] { steps.map(\.number) }

    /// The parameters and one line per step.
    public var description: String {
        (["seed \(seed) (\(storage)): \(parameters)"] + steps.map { "  \($0.number): \($0.step)" }).joined(separator: "\n")
    }

    private static func parameters(_ random: inout SimulationRandom) -> SimulationParameters {
        let devices = [1, 2, 2, 3, 3, 3, 4, 5][random.int(0...7)]
        return SimulationParameters(
            devices: devices, pageSize: random.int(1...6), maxPagesPerRound: random.int(1...4),
            pushBatchSize: random.int(1...5), retryAttempts: random.int(1...3),
            serverMaxPageSize: random.int(2...8), serverMaxPageBytes: random.int(500...4000),
            maxInstruments: random.int(3...8), keyTTLSeconds: random.int(120...900),
            retentionSeconds: random.int(600...7200),
            faults: SimulatedNetwork.Faults(refuse: random.rate(0...0.25), delay: random.rate(0...0.15),
                                            duplicate: random.rate(0...0.2), loseAnswer: random.rate(0...0.35),
                                            crash: random.rate(0...0.05)))
    }

    private static func step(_ random: inout SimulationRandom, devices: Int) -> SimulationStep {
        let device = random.int(0...(devices - 1))
        let pick = random.int(0...7)
        switch random.int(0...99) {
        case 0..<36: return .sync(device: device, faults: random.next())
        case 36..<50: return .add(device: device, isDefault: random.chance(0.3))
        case 50..<59: return .edit(device: device, pick: pick)
        case 59..<68: return .delete(device: device, pick: pick)
        case 68..<80: return .setDefault(device: device, pick: pick)
        case 80..<83: return .crash(device: device)
        case 83..<85: return .restartServer
        case 85..<88: return .revokeKey(device: device)
        case 88..<94: return .advanceClock(seconds: [5, 30, 90, 400, 1200][random.int(0...4)])
        case 94..<98: return .deliverHeld
        default: return .offerCardNumber(device: device)
        }
    }
}
