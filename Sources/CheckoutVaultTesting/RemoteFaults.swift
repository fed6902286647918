import CheckoutCore
import CheckoutLocking
import CheckoutVault

/// The fault switches and access log of a test remote: what `InMemoryRemoteVault` and
/// `FaultInjectingRemote` (any remote, the real server's too) offer alike.
///
/// `failNext(_:_:with:)` makes the next calls throw a chosen `RemoteVaultError` without reaching
/// the vault; `loseNextResponse` lets a push through and then throws `unreachable`, as when a
/// connection drops after the server committed; `hold(_:)` parks the next call until the test
/// releases it. Every call is recorded in `requests` (faulted ones too), like a server's access log.
public final class RemoteFaults: Sendable {
    /// The calls of the `RemoteVault` protocol.
    public enum Endpoint: String, Sendable, CaseIterable {
        /// `changes(scope:cursor:limit:)`.
        case changes
        /// `push(scope:ops:)`.
        case push
        /// `instruments(scope:)`.
        case instruments
    }

    /// One call as the vault received it.
    public struct Request: Sendable, Equatable {
        /// Which call.
        public var endpoint: Endpoint
        /// The customer it was for.
        public var customerId: String
        /// The cursor sent to `changes`.
        public var cursor: String?
        /// The op ids sent to `push`.
        public var opIds: [String]

        /// Creates a record of one call.
        public init(endpoint: Endpoint, customerId: String, cursor: String?, opIds: [String]) {
            self.endpoint = endpoint
            self.customerId = customerId
            self.cursor = cursor
            self.opIds = opIds
        }
    }

    private struct Fault {
        var endpoint: Endpoint?
        var error: RemoteVaultError
        var losesResponse: Bool
    }

    private struct State {
        var requests: [Request] = []
        var faults: [Fault] = []
        var holds: [Endpoint: [RemoteVaultHold]] = [:]
    }

    private let state = Locked(State())

    /// Creates switches with no fault set.
    public init() {}

    /// The next `count` calls (to `endpoint`, or to any endpoint when nil) throw `error` without
    /// reaching the vault. Faults queue up in the order they were added.
    public func failNext(_ count: Int = 1, _ endpoint: Endpoint? = nil, with error: RemoteVaultError) {
        state.withLock { state in
            for _ in 0..<max(0, count) { state.faults.append(Fault(endpoint: endpoint, error: error, losesResponse: false)) }
        }
    }

    /// The next push is applied and then throws `unreachable`: the answer was lost on the way back.
    public func loseNextResponse() {
        state.withLock {
            $0.faults.append(Fault(endpoint: .push, error: .unreachable(reason: "connection lost after the request was sent"),
                                   losesResponse: true))
        }
    }

    /// Parks the next call to `endpoint` until the returned hold is released.
    public func hold(_ endpoint: Endpoint) -> RemoteVaultHold {
        let hold = RemoteVaultHold()
        state.withLock { $0.holds[endpoint, default: []].append(hold) }
        return hold
    }

    /// Every call received, in order.
    public var requests: [Request] { state.withLock { $0.requests } }

    /// How many calls were received (to `endpoint`, or in total when nil).
    public func requestCount(_ endpoint: Endpoint? = nil) -> Int {
        state.withLock { state in state.requests.filter { endpoint == nil || $0.endpoint == endpoint }.count }
    }

    /// Forgets the recorded requests.
    public func resetRequestLog() {
        state.withLock { $0.requests.removeAll() }
    }

    /// Records the call, waits on a hold if one is set, then throws an injected fault (or returns
    /// true when the call must go through and its answer be lost).
    @discardableResult
    public func admit(_ request: Request) async throws -> Bool {
        let hold = state.withLock { state -> RemoteVaultHold? in
            state.requests.append(request)
            guard var holds = state.holds[request.endpoint], !holds.isEmpty else { return nil }
            let hold = holds.removeFirst()
            state.holds[request.endpoint] = holds
            return hold
        }
        if let hold { await hold.park() }
        let fault = state.withLock { state -> Fault? in
            guard let index = state.faults.firstIndex(where: { $0.endpoint == nil || $0.endpoint == request.endpoint }) else {
                return nil
            }
            return state.faults.remove(at: index)
        }
        guard let fault else { return false }
        if fault.losesResponse { return true }
        throw fault.error
    }

    /// The error a lost answer surfaces as.
    public static let lostResponse = RemoteVaultError.unreachable(reason: "connection lost after the request was sent")
}

/// Any `RemoteVault` with `RemoteFaults` in front: the real server over HTTP gets the same fault
/// switches and access log as the in-memory double, so a behaviour test runs against both.
public struct FaultInjectingRemote: RemoteVault {
    /// The remote every admitted call goes to.
    public let inner: any RemoteVault
    /// The switches and the log.
    public let faults: RemoteFaults

    /// Wraps `inner`.
    public init(_ inner: any RemoteVault, faults: RemoteFaults = RemoteFaults()) {
        self.inner = inner
        self.faults = faults
    }

    /// Forwarded without a record or a fault, as the double answers it.
    public func identity(scope: VaultScope) async throws -> VaultIdentity {
        try await inner.identity(scope: scope)
    }

    /// Recorded, held or faulted as set, then forwarded.
    public func changes(scope: VaultScope, cursor: String?, limit: Int) async throws -> ChangePage {
        try await faults.admit(.init(endpoint: .changes, customerId: scope.customerId, cursor: cursor, opIds: []))
        return try await inner.changes(scope: scope, cursor: cursor, limit: limit)
    }

    /// Recorded, held or faulted as set, then forwarded; with `loseNextResponse`, the answer is
    /// dropped after the remote applied the batch.
    public func push(scope: VaultScope, ops: [OutboundOp]) async throws -> [OpResult] {
        let losesResponse = try await faults.admit(.init(endpoint: .push, customerId: scope.customerId, cursor: nil,
                                                         opIds: ops.map(\.opId)))
        let results = try await inner.push(scope: scope, ops: ops)
        if losesResponse { throw RemoteFaults.lostResponse }
        return results
    }

    /// Recorded, held or faulted as set, then forwarded.
    public func instruments(scope: VaultScope) async throws -> [RemoteInstrument] {
        try await faults.admit(.init(endpoint: .instruments, customerId: scope.customerId, cursor: nil, opIds: []))
        return try await inner.instruments(scope: scope)
    }
}
