import CheckoutJSON
import CheckoutLocking
import HTTPTransport
import VaultServer

/// The network between the devices and the server, and everything the simulator learns by
/// watching it.
///
/// Each device talks through its own `SimulatedLink`; every request reaches the one server in
/// process (`VaultServer.respond(to:)`: the real admission, handler, service and storage). While
/// the world is stormy, a request may be refused before it leaves, held back and delivered
/// later (the client sees a timeout; the server applies it after newer requests), delivered
/// twice, or applied with its answer lost on the way back; a device may crash with an answer in
/// flight. Every decision comes from the round's own generator, drawn in request order.
///
/// Whatever the client hears, the network sees every answer the server gave: the simulator
/// checks after the run that no applied write was lost and no op applied twice.
final class SimulatedNetwork: Sendable {
    /// How likely each fault is for one request while the world is stormy.
    struct Faults: Sendable, Equatable {
        var refuse: Double = 0
        var delay: Double = 0
        var duplicate: Double = 0
        var loseAnswer: Double = 0
        var crash: Double = 0

        static let none = Faults()
    }

    /// One op the server answered, with the answer (kept for every delivery).
    struct ObservedOp: Sendable {
        var opId: String
        var kind: String
        var instrumentId: String
        /// The method as sent (upserts), members with null values dropped.
        var method: JSONValue?
        var status: String
        var version: Int?
    }

    private struct State {
        var server: VaultServer
        var faults = Faults.none
        var random = SimulationRandom(seed: 0)
        var held: [(device: Int, request: VaultServerRequest)] = []
        var crashed: Set<Int> = []
        var observed: [ObservedOp] = []
        var trace = TraceDigest()
        var requests = 0
        var faultsInjected = 0
    }

    private let state: Locked<State>

    init(server: VaultServer) {
        state = Locked(State(server: server))
    }

    /// Replaces the server (a restart on the same storage); held requests reach the new one.
    func replaceServer(_ server: VaultServer) { state.withLock { $0.server = server } }

    /// The faults for the next round, drawn from `seed` in request order (`.none` when calm).
    func beginRound(faults: Faults, seed: UInt64) {
        state.withLock {
            $0.faults = faults
            $0.random = SimulationRandom(seed: seed)
        }
    }

    /// True (once) when `device` crashed during the last round: the simulator reopens it.
    func takeCrash(_ device: Int) -> Bool { state.withLock { $0.crashed.remove(device) != nil } }

    /// Delivers every held request in the order held; their answers go nowhere (the client gave up).
    func deliverHeld() {
        let (server, held) = state.withLock { state -> (VaultServer, [(device: Int, request: VaultServerRequest)]) in
            defer { state.held.removeAll() }
            return (state.server, state.held)
        }
        for entry in held { observe(entry.request, server.respond(to: entry.request), device: entry.device, note: "late") }
    }

    /// The current server's answer to `request`, outside the simulated network (the simulator's
    /// own reads after the run).
    func serverAnswer(to request: VaultServerRequest) -> VaultServerAnswer {
        state.withLock { $0.server }.respond(to: request)
    }

    /// Every op answer the server gave, in the order given.
    var observedOps: [ObservedOp] { state.withLock { $0.observed } }

    /// A digest of every request, fault and answer so far: two runs of one schedule match.
    var traceDigest: UInt64 { state.withLock { $0.trace.value } }

    /// Requests that reached the network, and faults injected among them.
    var counts: (requests: Int, faults: Int) { state.withLock { ($0.requests, $0.faultsInjected) } }

    private enum Decision { case refuse, hold, deliver(duplicate: Bool, lose: Bool, crash: Bool) }

    /// One request from `device`: what the simulated network does with it.
    func exchange(_ request: HTTPRequest, device: Int) throws(HTTPTransportError) -> HTTPResponse {
        let serverRequest = VaultServerRequest(
            method: request.method, target: request.path,
            headers: request.headers.map { VaultServerHeader(name: $0.name, value: $0.value) },
            body: request.body ?? [], clientAddress: "127.0.1.\(device + 1)")
        let (decision, server) = state.withLock { state -> (Decision, VaultServer) in
            state.requests += 1
            if state.crashed.contains(device) { return (.refuse, state.server) }
            // The backend's calls (minting and revoking keys) are server to server: never faulted.
            if device == VaultSimulation.backendLink { return (.deliver(duplicate: false, lose: false, crash: false), state.server) }
            let faults = state.faults
            var random = state.random
            defer { state.random = random }
            let decision: Decision
            if random.chance(faults.refuse) {
                decision = .refuse
            } else if random.chance(faults.delay) {
                state.held.append((device, serverRequest))
                decision = .hold
            } else {
                let duplicate = random.chance(faults.duplicate)
                let lose = random.chance(faults.loseAnswer)
                let crash = random.chance(faults.crash)
                if crash { state.crashed.insert(device) }
                decision = .deliver(duplicate: duplicate, lose: lose || crash, crash: crash)
            }
            if case .deliver(false, false, false) = decision {} else { state.faultsInjected += 1 }
            state.trace.add("\(device) \(request.method) \(Self.route(request.path)) \(decision)")
            return (decision, state.server)
        }
        switch decision {
        case .refuse:
            throw HTTPTransportError(.connectFailed, "simulated: the connection was refused")
        case .hold:
            throw HTTPTransportError(.timedOut, "simulated: no answer in time (the request is still on its way)")
        case .deliver(let duplicate, let lose, let crash):
            var answer = server.respond(to: serverRequest)
            observe(serverRequest, answer, device: device, note: "sent")
            if duplicate {
                answer = server.respond(to: serverRequest)
                observe(serverRequest, answer, device: device, note: "duplicate")
            }
            if crash { throw HTTPTransportError(.closedBeforeResponse, "simulated: the device crashed before the answer") }
            if lose { throw HTTPTransportError(.receiveFailed, "simulated: the connection broke after the request") }
            return HTTPResponse(status: answer.status, headers: answer.headers.map { HTTPHeaderField(name: $0.name, value: $0.value) },
                                body: answer.body)
        }
    }

    /// Records the answer's status in the trace and, for a batch of ops, each op with its answer.
    private func observe(_ request: VaultServerRequest, _ answer: VaultServerAnswer, device: Int, note: String) {
        var ops: [ObservedOp] = []
        if request.method == "POST", request.target.hasSuffix("/ops"), answer.status == 200,
           let sent = try? JSONReader.read(request.body), let answered = try? JSONReader.read(answer.body),
           let sentOps = sent["ops"]?.arrayValue, let results = answered["results"]?.arrayValue, sentOps.count == results.count {
            for (op, result) in zip(sentOps, results) {
                ops.append(ObservedOp(opId: op["opId"]?.stringValue ?? "", kind: op["kind"]?.stringValue ?? "",
                                      instrumentId: op["instrumentId"]?.stringValue ?? "",
                                      method: op["method"].map(Self.withoutNulls),
                                      status: result["status"]?.stringValue ?? "", version: result["version"]?.intValue))
            }
        }
        state.withLock { state in
            state.trace.add("\(device) \(note) \(answer.status) \(answer.body.count)")
            state.observed += ops
        }
    }

    /// The request's route with ids and cursors left out (the trace must not depend on random ids).
    private static func route(_ path: String) -> String {
        let bare = path.split(separator: "?").first.map(String.init) ?? path
        return bare.split(separator: "/").last.map(String.init) ?? bare
    }

    /// `value` with every object member whose value is null removed, at any depth.
    static func withoutNulls(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let object):
            var members: [String: JSONValue] = [:]
            for (key, member) in object.dictionary where member != .null { members[key] = withoutNulls(member) }
            return .object(JSONObject(members.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
        case .array(let items):
            return .array(items.map(withoutNulls))
        default:
            return value
        }
    }
}

/// One device's side of the simulated network: what its `HTTPRemoteVault` sends through.
struct SimulatedLink: HTTPExchange {
    let network: SimulatedNetwork
    let device: Int

    func send(_ request: HTTPRequest) async throws(HTTPTransportError) -> HTTPResponse {
        try network.exchange(request, device: device)
    }
}

/// FNV-1a over the trace's lines: enough to tell two runs apart, cheap to keep.
struct TraceDigest: Sendable {
    private(set) var value: UInt64 = 0xCBF2_9CE4_8422_2325

    mutating func add(_ line: String) {
        for byte in line.utf8 {
            value ^= UInt64(byte)
            value &*= 0x0000_0100_0000_01B3
        }
        value ^= 0x0A
        value &*= 0x0000_0100_0000_01B3
    }
}
