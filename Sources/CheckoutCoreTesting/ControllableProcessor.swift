import CheckoutCore
import CheckoutLocking

/// A `PaymentProcessor` a test controls: every call goes to a backing processor (the
/// `SandboxProcessor` by default, whose magic card numbers decide outcomes) unless the test has
/// scripted its answer, and any kind of call can be held at the door until the test releases it,
/// so the test can look at a session or flow while a fetch or a payment is in flight.
/// `ControllableProcessor()` forwards to a fresh `SandboxProcessor`; `ControllableProcessor(backing:)`
/// to any processor (a host's own), which stays reachable as `backing`.
///
/// ```swift
/// let processor = ControllableProcessor()
/// processor.hold(.createPayment)
/// let submit = harness.run { await flow.submit() }
/// #expect(await processor.waitForHeldCall(.createPayment))   // parked, no polling
/// await harness.receive(.processing)
/// processor.script(.createPayment, .fail(CheckoutError(.networkError, "offline")))
/// processor.release(.createPayment)
/// ```
public final class ControllableProcessor<Backing: PaymentProcessor>: PaymentProcessor {
    /// The kinds of call a test can hold, script and count.
    public typealias Call = ProcessorCall
    /// A scripted answer.
    public typealias Answer = ProcessorAnswer

    private struct Door {
        var holding = false
        var parked: [CheckedContinuation<Void, Never>] = []
        var calls = 0
        var script: [Answer] = []
    }

    private struct State {
        var doors: [Call: Door] = [:]
        var clientSessionError: CheckoutError?
        var advertised: [AdvertisedPaymentMethod]?
        var createKeys: [String?] = []
    }

    /// Where unscripted calls go.
    public let backing: Backing
    private let state = Locked(State())
    private let arrivals: [Call: BoundedWaitQueue<Void>]

    /// Creates a processor that forwards to `backing` until told otherwise.
    public init(backing: Backing) {
        self.backing = backing
        arrivals = Dictionary(uniqueKeysWithValues: Call.allCases.map { ($0, BoundedWaitQueue<Void>()) })
    }

    // MARK: Control

    /// Parks every later `call` until `release(call)`.
    public func hold(_ call: Call) { state.withLock { $0.doors[call, default: Door()].holding = true } }

    /// Lets the parked `call`s continue and stops holding that kind of call.
    public func release(_ call: Call) {
        let parked = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            defer { state.doors[call]?.parked.removeAll() }
            state.doors[call]?.holding = false
            return state.doors[call]?.parked ?? []
        }
        for continuation in parked { continuation.resume() }
    }

    /// Releases every kind of call.
    public func releaseAll() { Call.allCases.forEach(release) }

    /// How many `call`s are parked now.
    public func waitingCount(_ call: Call) -> Int { state.withLock { $0.doors[call]?.parked.count ?? 0 } }

    /// Waits (without polling) until a held `call` has been parked, consuming that arrival: the
    /// n-th wait returns once the n-th held call has arrived. False after `timeout`.
    public func waitForHeldCall(_ call: Call, timeout: Duration = .seconds(30)) async -> Bool {
        await arrivals[call]?.take(within: timeout) != nil
    }

    /// Queues answers for the next `call`s; once used up, calls go to the backing processor again.
    public func script(_ call: Call, _ answers: Answer...) {
        state.withLock { $0.doors[call, default: Door()].script.append(contentsOf: answers) }
    }

    /// How many `call`s were made (held or not).
    public func callCount(_ call: Call) -> Int { state.withLock { $0.doors[call]?.calls ?? 0 } }

    /// Makes every client-session fetch fail with `error` (nil: stop failing).
    public func failClientSession(with error: CheckoutError?) { state.withLock { $0.clientSessionError = error } }

    /// Replaces the methods the client session advertises (nil: the backing processor's).
    public func advertise(_ methods: [AdvertisedPaymentMethod]?) { state.withLock { $0.advertised = methods } }

    /// The idempotency key of every create-payment call, in order.
    public var createKeys: [String?] { state.withLock { $0.createKeys } }

    // MARK: The door every call passes

    /// Counts the call, parks it while its kind is held, then hands out a scripted answer if any.
    private func enter(_ call: Call) async -> Answer? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let parked = state.withLock { state -> Bool in
                state.doors[call, default: Door()].calls += 1
                guard state.doors[call]?.holding == true else { return false }
                state.doors[call]?.parked.append(continuation)
                return true
            }
            if parked { arrivals[call]?.put(()) } else { continuation.resume() }
        }
        return state.withLock { state -> Answer? in
            guard state.doors[call]?.script.isEmpty == false else { return nil }
            return state.doors[call]?.script.removeFirst()
        }
    }

    private func response(_ answer: Answer?, otherwise: () async throws -> PaymentResponse) async throws -> PaymentResponse {
        switch answer {
        case .respond(let response): return response
        case .fail(let error): throw error
        case nil: return try await otherwise()
        }
    }

    private func failure(_ call: Call, _ answer: Answer?) throws {
        switch answer {
        case .fail(let error): throw error
        case .respond: throw CheckoutError(.invalidState, "a PaymentResponse was scripted for \(call.rawValue), which does not answer one")
        case nil: return
        }
    }

    // MARK: PaymentProcessor
    // Each call passes the door (counted, held, scripted), then goes to `backing`.

    /// The backing's client session, failed or re-advertised as the test set (`failClientSession`, `advertise`).
    public func clientSession(for token: ClientToken) async throws -> ClientSession {
        try failure(.clientSession, await enter(.clientSession))
        if let error = state.withLock({ $0.clientSessionError }) { throw error }
        var session = try await backing.clientSession(for: token)
        if let methods = state.withLock({ $0.advertised }) { session.paymentMethods = methods }
        return session
    }

    /// The backing's token, unless scripted to fail.
    public func tokenize(_ request: TokenizationRequest, session: ClientSession) async throws -> PaymentMethodToken {
        try failure(.tokenize, await enter(.tokenize))
        return try await backing.tokenize(request, session: session)
    }

    /// Records the idempotency key; the scripted answer or the backing's.
    public func createPayment(_ request: CreatePaymentRequest) async throws -> PaymentResponse {
        state.withLock { $0.createKeys.append(request.idempotencyKey) }
        return try await response(await enter(.createPayment)) { try await backing.createPayment(request) }
    }

    /// The scripted answer or the backing's.
    public func resumePayment(paymentId: String, resumeToken: String) async throws -> PaymentResponse {
        try await response(await enter(.resumePayment)) {
            try await backing.resumePayment(paymentId: paymentId, resumeToken: resumeToken)
        }
    }

    /// The scripted answer or the backing's.
    public func paymentStatus(paymentId: String) async throws -> PaymentResponse {
        try await response(await enter(.paymentStatus)) { try await backing.paymentStatus(paymentId: paymentId) }
    }

    /// The backing's token, unless scripted to fail.
    public func exchangeVaulted(_ request: VaultedExchangeRequest, session: ClientSession) async throws -> PaymentMethodToken {
        try failure(.exchangeVaulted, await enter(.exchangeVaulted))
        return try await backing.exchangeVaulted(request, session: session)
    }

    /// The backing's (not held or scripted).
    public func verifyInstrument(_ request: VerificationRequest) async throws -> InstrumentVerification {
        try await backing.verifyInstrument(request)
    }

    /// The backing's (not held or scripted).
    public func resumeVerification(verificationId: String, resumeToken: String) async throws -> InstrumentVerification {
        try await backing.resumeVerification(verificationId: verificationId, resumeToken: resumeToken)
    }
}

extension ControllableProcessor where Backing == SandboxProcessor {
    /// A controllable processor over a fresh `SandboxProcessor`.
    public convenience init() { self.init(backing: SandboxProcessor()) }
}
