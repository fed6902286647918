import CheckoutCore
import CheckoutLocking
import Testing

/// A recorder for one run of a `CheckoutSession` and its flows, in the shape of the Composable
/// Architecture's `TestStore`: it subscribes to the session's `CheckoutOutcome`s (and to the
/// `PaymentFlowState`s of every flow passed to `observe(_:)`), records every one, and the test
/// asserts them in order. Receiving waits on a continuation, never polls, and a value that does
/// not come within the timeout fails the test. `finish()` fails the test for every recorded
/// state or outcome that was not asserted, and for every task started with `run(_:)` that is
/// still running, so nothing the session published goes unchecked.
///
/// ```swift
/// let session = CheckoutSession(clientToken: token, configuration: configuration,
///                               registry: registry, processor: ControllableProcessor())
/// let harness = CheckoutHarness(session: session)
/// await session.start()
/// let flow = try session.flow(for: .paymentCard)
/// harness.observe(flow)
/// await harness.receive(.idle)                    // a flow's current state comes first
/// harness.run { await flow.submit() }
/// await harness.receive(.processing)
/// await harness.receive { if case .succeeded = $0 { true } else { false } }
/// await harness.receiveOutcome { if case .success = $0 { true } else { false } }
/// await harness.finish()
/// ```
///
/// One harness covers one run of the session (from `start()` to `cancel()`), as `outcomes()` does.
public final class CheckoutHarness: Sendable {
    private struct Started {
        let cancel: @Sendable () -> Void
        let done: BoundedWaitQueue<Void>
        let sourceLocation: SourceLocation
    }

    private struct State {
        var subscriptions: [Task<Void, Never>] = []
        var flows: [any PaymentFlow] = []
        var started: [Started] = []
        /// The last state recorded from each observed flow, by its index in `flows`.
        var lastStates: [Int: PaymentFlowState] = [:]
    }

    /// The session whose outcomes are recorded.
    public let session: CheckoutSession
    /// How long a `receive` waits for the next value by default before it fails the test.
    public let timeout: Duration
    private let states = BoundedWaitQueue<PaymentFlowState>()
    private let outcomes = BoundedWaitQueue<CheckoutOutcome>()
    private let recordedState = BoundedWaitQueue<Void>()
    private let state = Locked(State())

    /// Subscribes to `session.outcomes()` (so outcomes already delivered in this run are
    /// recorded first). `timeout` bounds every wait of this harness.
    public init(session: CheckoutSession, timeout: Duration = .seconds(30)) {
        self.session = session
        self.timeout = timeout
        let stream = session.outcomes()
        let subscription = Task { [outcomes] in
            for await outcome in stream { outcomes.put(outcome) }
        }
        state.withLock { $0.subscriptions.append(subscription) }
    }

    /// Records every `PaymentFlowState` of `flow`, starting with its current one.
    public func observe(_ flow: any PaymentFlow) {
        let stream = flow.flowStates()
        state.withLock { state in
            let index = state.flows.count
            state.flows.append(flow)
            state.subscriptions.append(Task { [weak self] in
                for await value in stream { self?.record(value, from: index) }
            })
        }
    }

    private func record(_ value: PaymentFlowState, from flow: Int) {
        state.withLock { $0.lastStates[flow] = value }
        states.put(value)
        recordedState.put(())
    }

    /// Starts `operation` in a task the harness tracks (a `submit()`, a `start()`, a `resume`):
    /// `finish()` fails the test if it is still running then. Returns the task, to await its value.
    @discardableResult
    public func run<T: Sendable>(sourceLocation: SourceLocation = #_sourceLocation,
                                 _ operation: @escaping @Sendable () async -> T) -> Task<T, Never> {
        let done = BoundedWaitQueue<Void>()
        let task = Task {
            let value = await operation()
            done.put(())
            return value
        }
        state.withLock { $0.started.append(Started(cancel: { task.cancel() }, done: done, sourceLocation: sourceLocation)) }
        return task
    }

    // MARK: Flow states

    /// Takes the next recorded flow state and fails the test unless it equals `expected`.
    public func receive(_ expected: PaymentFlowState, timeout: Duration? = nil,
                        sourceLocation: SourceLocation = #_sourceLocation) async {
        guard let value = await nextState(timeout, sourceLocation) else { return }
        if value != expected {
            Issue.record("Received flow state \(value), expected \(expected)", sourceLocation: sourceLocation)
        }
    }

    /// Takes the next recorded flow state and fails the test unless `matches` accepts it (for
    /// states carrying values the test cannot predict, such as a payment id). Returns the state.
    @discardableResult
    public func receive(timeout: Duration? = nil, sourceLocation: SourceLocation = #_sourceLocation,
                        _ matches: (PaymentFlowState) -> Bool) async -> PaymentFlowState? {
        guard let value = await nextState(timeout, sourceLocation) else { return nil }
        if !matches(value) { Issue.record("Received flow state \(value), which does not match", sourceLocation: sourceLocation) }
        return value
    }

    private func nextState(_ timeout: Duration?, _ sourceLocation: SourceLocation) async -> PaymentFlowState? {
        let value = await states.take(within: timeout ?? self.timeout)
        if value == nil {
            Issue.record("No flow state was published within \(timeout ?? self.timeout)", sourceLocation: sourceLocation)
        }
        return value
    }

    // MARK: Outcomes

    /// Takes the next recorded outcome and fails the test unless it equals `expected`.
    public func receiveOutcome(_ expected: CheckoutOutcome, timeout: Duration? = nil,
                               sourceLocation: SourceLocation = #_sourceLocation) async {
        guard let value = await nextOutcome(timeout, sourceLocation) else { return }
        if value != expected {
            Issue.record("Received outcome \(value), expected \(expected)", sourceLocation: sourceLocation)
        }
    }

    /// Takes the next recorded outcome and fails the test unless `matches` accepts it. Returns the outcome.
    @discardableResult
    public func receiveOutcome(timeout: Duration? = nil, sourceLocation: SourceLocation = #_sourceLocation,
                               _ matches: (CheckoutOutcome) -> Bool) async -> CheckoutOutcome? {
        guard let value = await nextOutcome(timeout, sourceLocation) else { return nil }
        if !matches(value) { Issue.record("Received outcome \(value), which does not match", sourceLocation: sourceLocation) }
        return value
    }

    private func nextOutcome(_ timeout: Duration?, _ sourceLocation: SourceLocation) async -> CheckoutOutcome? {
        let value = await outcomes.take(within: timeout ?? self.timeout)
        if value == nil {
            Issue.record("No outcome was delivered within \(timeout ?? self.timeout)", sourceLocation: sourceLocation)
        }
        return value
    }

    // MARK: Finish

    /// Ends the harness: waits up to `timeout` for the tasks started with `run(_:)`, fails the
    /// test for each still running (and cancels it), then fails it for every recorded flow state
    /// and outcome that was not received. Flow states are counted once the harness has recorded
    /// each observed flow's current state, and outcomes against `session.deliveredOutcomes`, so
    /// a value published just before `finish()` is not missed.
    public func finish(timeout: Duration? = nil, sourceLocation: SourceLocation = #_sourceLocation) async {
        let bound = timeout ?? self.timeout
        let (started, flows) = state.withLock { state -> ([Started], [any PaymentFlow]) in
            defer { state.started.removeAll() }
            return (state.started, state.flows)
        }
        for task in started {
            guard await task.done.take(within: bound) == nil else { continue }
            Issue.record("A task started by the harness is still running at finish()", sourceLocation: task.sourceLocation)
            task.cancel()
        }
        for (index, flow) in flows.enumerated() {
            // The subscription runs on its own task: wait until it has recorded the current state.
            let current = flow.flowState
            while state.withLock({ $0.lastStates[index] }) != current {
                guard await recordedState.take(within: bound) != nil else { break }
            }
        }
        let delivered = session.deliveredOutcomes
        let unreceivedOutcomes = Array(delivered.dropFirst(outcomes.takenCount))
        let unreceivedStates = states.drain()
        _ = outcomes.drain()
        for value in unreceivedStates {
            Issue.record("Flow state \(value) was published but not received", sourceLocation: sourceLocation)
        }
        for value in unreceivedOutcomes {
            Issue.record("Outcome \(value) was delivered but not received", sourceLocation: sourceLocation)
        }
        let subscriptions = state.withLock { state -> [Task<Void, Never>] in
            defer { state.subscriptions.removeAll() }
            return state.subscriptions
        }
        subscriptions.forEach { $0.cancel() }
    }
}
