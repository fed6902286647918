import CheckoutLocking
import Foundation

/// The owner of one checkout: decodes the client token, resolves the payment methods, and hands
/// out the child sessions (selection, payment flows) once ready. Headless, `Sendable`, and safe
/// to use from many tasks at once; a backend can run thousands of these side by side.
///
/// Lifecycle: `phase` goes `initializing -> ready`. `start()` is idempotent; `refresh()` works
/// only when ready and concurrent calls share one fetch; `cancel()` is idempotent and makes the
/// session startable again. Outcomes arrive on `outcomes()` (see `CheckoutOutcome` for the rules).
public final class CheckoutSession: Sendable {
    /// The lifecycle phase.
    public enum Phase: Sendable, Equatable {
        /// Decoding the token and fetching the client session; no child sessions exist.
        case initializing
        /// Child sessions and flows are available.
        case ready
    }

    /// Called before each payment is created; may supply an idempotency key or abort.
    public typealias BeforePaymentCreateHandler = @Sendable (PaymentCreationData) async -> PaymentCreationDecision

    private struct Run: Sendable {
        /// The run rules: generation, status, terminal, whether a refresh runs.
        var machine = CheckoutSessionRunMachine()
        var clientSession: ClientSession?
        var resolution: [ResolvedPaymentMethod] = []
        var diagnostics: [SessionDiagnostic] = []
        /// Notes raised while the run is ready (e.g. a saved method not marked used); kept across refreshes.
        var runtimeDiagnostics: [SessionDiagnostic] = []
        var selection: SelectionSession?
        var pipeline: PaymentPipeline?
        var flows: [PaymentMethodType: any PaymentFlow] = [:]
        var refreshTask: Task<Void, Never>?
        var delivered: [CheckoutOutcome] = []
        var subscribers = SubscriberList<CheckoutOutcome>()
    }

    private struct HookStorage: Sendable {
        var idempotencyKey: @Sendable () -> String?
        var beforePaymentCreate: BeforePaymentCreateHandler?
    }

    private let clientToken: String
    /// The merchant configuration this session orders and configures methods by.
    public let configuration: CheckoutConfiguration
    /// The registry of payment-method handlers.
    public let registry: PaymentMethodRegistry
    private let processor: any PaymentProcessor
    private let vault: (any VaultProvider)?
    private let clock: WallClock
    /// What the waits between a payment's network retries sleep on.
    private let sleepClock: any Clock<Duration>
    /// Where the texts this session publishes come from (`strings(from:)` picks this session's locale).
    public let catalog: StringCatalog
    private let phaseState = StateBroadcaster(Phase.initializing)
    private let run = Locked(Run())
    /// What the run's transitions leave to do outside the lock, in their order.
    private let effects = ActionQueue<Effect>()
    private let hookStorage: Locked<HookStorage>

    /// A side effect of a run transition, performed after unlocking.
    private enum Effect: Sendable {
        case phase(Phase)
        case yield(CheckoutOutcome, to: [AsyncStream<CheckoutOutcome>.Continuation])
        case finish([AsyncStream<CheckoutOutcome>.Continuation])
        case stopLoading(SelectionSession)
        case cancelRefresh(Task<Void, Never>)
        case cancelFlows([any PaymentFlow])
    }

    /// Creates a session; nothing happens until `start()`.
    ///
    /// - Parameters:
    ///   - clientToken: the token from the merchant backend (see `ClientToken` for the format).
    ///   - configuration: the merchant's `Config/checkout.json`.
    ///   - registry: the handlers this host has loaded.
    ///   - processor: the payments backend (`SandboxProcessor` in development).
    ///   - vault: where saved methods live; nil disables the vault.
    ///   - clock: the wall clock token expiry is judged by (a test passes a fixed one).
    ///   - sleepClock: what the short waits between retries of a payment that met a network error
    ///     (40 ms, then 80 ms) sleep on; a test passes a `TestClock` to move them by hand.
    ///   - strings: the texts the session and its flows publish (vault errors, CVV errors, surcharges),
    ///     in the session's locale (token, then configuration, then en); the shipped ones by default.
    ///   - idempotencyKey: called exactly once per payment attempt; return nil to opt out. Ignored
    ///     while `onBeforePaymentCreate` is set.
    public init(clientToken: String, configuration: CheckoutConfiguration, registry: PaymentMethodRegistry,
                processor: any PaymentProcessor, vault: (any VaultProvider)? = nil,
                clock: WallClock = .system, sleepClock: any Clock<Duration> = ContinuousClock(),
                idempotencyKey: @escaping @Sendable () -> String? = { nil },
                strings: StringCatalog = .embedded) {
        self.clientToken = clientToken
        self.configuration = configuration
        self.registry = registry
        self.processor = processor
        self.vault = vault
        self.clock = clock
        self.sleepClock = sleepClock
        catalog = strings
        hookStorage = Locked(HookStorage(idempotencyKey: idempotencyKey, beforePaymentCreate: nil))
    }

    // MARK: Observation

    /// The current phase.
    public var phase: Phase { phaseState.value }

    /// The current phase, then every change.
    public func phases() -> AsyncStream<Phase> { phaseState.stream() }

    /// The outcomes of the current run: first those already delivered in it (so a subscriber that
    /// joins late misses nothing), then each new one. The stream finishes after a terminal outcome
    /// (`success`, `dismissed`, or a failure while initializing) and when `cancel()` ends the run;
    /// a stream obtained after the run ended replays its outcomes and finishes at once. Subscribe
    /// before `start()` to see an initialization failure; after `cancel()`, subscribe again for the
    /// next run.
    public func outcomes() -> AsyncStream<CheckoutOutcome> {
        SubscriberList.stream(register: { continuation in
            run.withLock { run in
                for outcome in run.delivered { continuation.yield(outcome) }
                return run.machine.terminal ? nil : run.subscribers.add(continuation)
            }
        }, unregister: { [weak self] id in self?.run.withLock { $0.subscribers.remove(id) } })
    }

    /// Every outcome delivered in the current run, in order.
    public var deliveredOutcomes: [CheckoutOutcome] { run.withLock { $0.delivered } }

    /// The methods offered, in display order; empty until ready.
    public var paymentMethods: [CheckoutPaymentMethod] { run.withLock { $0.resolution.map(\.method) } }

    /// Why advertised or configured methods are not offered.
    public var diagnostics: [SessionDiagnostic] { run.withLock { $0.diagnostics + $0.runtimeDiagnostics } }

    /// The client session; nil until ready.
    public var clientSession: ClientSession? { run.withLock { $0.clientSession } }

    /// The selection sub-session; non-nil only once ready.
    public var selection: SelectionSession? { run.withLock { $0.selection } }

    // MARK: Hooks

    /// Called before each payment is created. Takes effect for the next attempt, even after ready.
    public var onBeforePaymentCreate: BeforePaymentCreateHandler? {
        get { hookStorage.withLock { $0.beforePaymentCreate } }
        set { hookStorage.withLock { $0.beforePaymentCreate = newValue } }
    }

    /// The idempotency-key provider, called exactly once per payment attempt. Ignored when
    /// `onBeforePaymentCreate` is set (as in the seed SDK): the hook's decision carries the key.
    public var idempotencyKey: @Sendable () -> String? {
        get { hookStorage.withLock { $0.idempotencyKey } }
        set { hookStorage.withLock { $0.idempotencyKey = newValue } }
    }

    // MARK: Lifecycle

    /// Drives the session to `ready`. Ignored once initialization has started (until `cancel()`).
    /// A failure here is delivered as `.failure` and ends the run.
    public func start() async {
        let generation: Int? = run.withLock { run in
            for case .load(let generation) in run.machine.handle(.start) { return generation }
            return nil
        }
        guard let generation else { return }
        do {
            let token = try ClientToken.decode(clientToken, now: clock.now)
            let clientSession = try await processor.clientSession(for: token)
            let strings = catalog.strings(for: CheckoutLocale.choose(token: token, configuration: configuration))
            let resolution = registry.resolveMethods(for: clientSession, configuration: configuration, strings: strings)
            // Ready first, with `selection.state.isLoading` true while the saved methods load (as the
            // seed says, `vaultedPaymentMethods` is empty while loading); `start()` returns once loaded.
            guard let selection = install(generation: generation, clientSession: clientSession,
                                          resolution: resolution, loading: vault != nil, strings: strings) else { return }
            if let vault {
                do {
                    let vaulted = try await vault.paymentMethods(for: clientSession.vaultScope)
                    // The merchant's allowed networks apply to saved cards as to the card form.
                    let filtered = SavedCardNetworkFilter.apply(vaulted, allowed: clientSession.token.allowedCardNetworks,
                                                                strings: strings)
                    selection.finishLoading(vaulted: filtered.usable,
                                            unusable: configuration.unsupportedSavedCards == .hide ? [] : filtered.unusable,
                                            error: nil)
                } catch {
                    selection.finishLoading(vaulted: [], error: strings.text("vaulted.error.unavailable"))
                }
            }
        } catch {
            let error = PaymentPipeline.checkoutError(error)
            run.withLock { run in
                record(.failure(error, checkoutData: nil), run.machine.handle(.startFailed(generation: generation)), &run)
            }
            performEffects()
        }
    }

    /// Re-fetches the client session and payment methods. No-op unless ready; concurrent calls
    /// share one fetch. A failure is delivered as `.failure`; the session stays ready. A cancelled
    /// caller returns at once; the shared fetch goes on.
    public func refresh() async {
        let task: Task<Void, Never>? = run.withLock { run in
            // Ready implies a client session; without one the machine refuses anyway.
            guard let clientSession = run.clientSession else { return nil }
            for action in run.machine.handle(.refresh) {
                switch action {
                case .joinRefresh:
                    return run.refreshTask
                case .startRefresh(let generation):
                    let selection = run.selection
                    // `isLoading` is set by the task itself (outside this lock: the selection's lock is
                    // taken before this one when it makes flows), so it cannot be cleared before it is set.
                    let task = Task {
                        selection?.setLoading(true)
                        await self.performRefresh(generation: generation, token: clientSession.token)
                    }
                    run.refreshTask = task
                    return task
                default:
                    break
                }
            }
            return nil
        }
        if let task { await awaitShared(task) {} }
    }

    /// Tears the run down: drops child sessions and flows, returns to `initializing` and makes
    /// the session startable again. Idempotent.
    public func cancel() {
        run.withLock { run in
            guard run.machine.handle(.cancel) == [.tearDown] else { return }
            var effects: [Effect] = [.finish(run.subscribers.takeAll())]
            if let refresh = run.refreshTask { effects.append(.cancelRefresh(refresh)) }
            effects += [.cancelFlows(Array(run.flows.values)), .phase(.initializing)]
            self.effects.enqueue(effects)
            var next = Run()
            next.machine = run.machine
            next.subscribers = run.subscribers  // empty now; its ids go on, so an old stream's end removes nothing new
            run = next
        }
        performEffects()
    }

    /// The shopper left: delivers `.dismissed` unless the run already ended with an outcome.
    public func dismiss() {
        run.withLock { run in record(.dismissed, run.machine.handle(.dismiss), &run) }
        performEffects()
    }

    // MARK: Flows

    /// The flow for a listed method. Flows without input are created once per run and reused.
    /// - Throws: `.notReady` before ready; `.unknownPaymentMethod` for a type not offered.
    public func flow(for type: PaymentMethodType) throws -> any PaymentFlow {
        try makeFlow(type, input: .none)
    }

    /// A flow paying with a saved instrument (a new flow for every call).
    /// - Throws: `.notReady`, or `.unknownPaymentMethod` when no `VAULTED` handler is registered.
    public func vaultedFlow(for method: VaultedPaymentMethod, cvv: SecurityCode?) throws -> any PaymentFlow {
        try makeFlow(.vaulted, input: .vaulted(method, cvv: cvv))
    }

    private func makeFlow(_ type: PaymentMethodType, input: PaymentFlowInput) throws -> any PaymentFlow {
        try run.withLock { run in
            guard run.machine.handle(.makeFlow) == [.makeFlow], let clientSession = run.clientSession,
                  let pipeline = run.pipeline else {
                throw CheckoutError(.notReady, "the checkout session is not ready")
            }
            if input == .none, let existing = run.flows[type] { return existing }
            let resolved: ResolvedPaymentMethod
            if let listed = run.resolution.first(where: { $0.method.type == type }) {
                resolved = listed
            } else if case .vaulted(let saved, _) = input, let handler = registry.resolve(type, configuration: configuration) {
                let advertised = clientSession.advertised(saved.paymentMethodType)
                    ?? AdvertisedPaymentMethod(id: saved.id, type: saved.paymentMethodType)
                let display = handler.display
                resolved = ResolvedPaymentMethod(
                    method: CheckoutPaymentMethod(id: saved.id, type: type, name: display.name, display: display),
                    advertised: advertised, configuration: configuration.method(type), handler: handler)
            } else {
                throw CheckoutError(.unknownPaymentMethod, "\(type) is not offered in this session")
            }
            let context = PaymentFlowContext(
                session: clientSession, method: resolved.method, advertised: resolved.advertised,
                configuration: resolved.configuration, processor: processor, pipeline: pipeline, input: input,
                strings: catalog.strings(for: CheckoutLocale.choose(token: clientSession.token, configuration: configuration)))
            let flow = resolved.handler.makeFlow(context: context)
            if input == .none { run.flows[type] = flow }
            return flow
        }
    }

    // MARK: Internals

    /// Installs the ready run and returns its selection session; nil when the run was cancelled meanwhile.
    private func install(generation: Int, clientSession: ClientSession, resolution: MethodResolution,
                         loading: Bool, strings: LocalizedStrings) -> SelectionSession? {
        let pipeline = makePipeline(clientSession: clientSession, generation: generation)
        let captureCvv = clientSession.paymentMethods.contains { $0.options.captureVaultedCardCvv == true }
        let selection = SelectionSession(
            methods: resolution.methods.map(\.method), vaulted: [], vaultError: nil, isLoading: loading,
            requiresCvvRecapture: captureCvv, scope: clientSession.vaultScope, vault: vault, strings: strings,
            flowFactory: { [weak self] type, input in
                guard let self else { throw CheckoutError(.notReady, "the checkout session is gone") }
                return try self.makeFlow(type, input: input)
            },
            note: { [weak self] diagnostic in self?.note(diagnostic, generation: generation) })
        let installed = run.withLock { run -> Bool in
            guard run.machine.handle(.loaded(generation: generation)) == [.install] else { return false }
            effects.enqueue([.phase(.ready)])
            run.clientSession = clientSession
            run.resolution = resolution.methods
            run.diagnostics = resolution.diagnostics
            run.pipeline = pipeline
            run.selection = selection
            return true
        }
        performEffects()
        return installed ? selection : nil
    }

    private func performRefresh(generation: Int, token: ClientToken) async {
        do {
            let clientSession = try await processor.clientSession(for: token)
            let resolution = registry.resolveMethods(for: clientSession, configuration: configuration,
                                                     strings: catalog.strings(for: CheckoutLocale.choose(token: token, configuration: configuration)))
            let pipeline = makePipeline(clientSession: clientSession, generation: generation)
            let selection = run.withLock { run -> SelectionSession? in
                guard run.machine.handle(.refreshed(generation: generation)) == [.storeRefresh] else { return nil }
                run.refreshTask = nil
                run.clientSession = clientSession
                run.resolution = resolution.methods
                run.diagnostics = resolution.diagnostics
                run.pipeline = pipeline
                run.flows = [:]
                return run.selection
            }
            selection?.replaceMethods(resolution.methods.map(\.method))
        } catch {
            let failure = CheckoutOutcome.failure(PaymentPipeline.checkoutError(error), checkoutData: nil)
            run.withLock { run in
                let actions = run.machine.handle(.refreshFailed(generation: generation))
                guard actions.contains(.stopLoading) else { return }
                run.refreshTask = nil
                if let selection = run.selection { effects.enqueue([.stopLoading(selection)]) }
                record(failure, actions, &run)
            }
            performEffects()
        }
    }

    private func makePipeline(clientSession: ClientSession, generation: Int) -> PaymentPipeline {
        PaymentPipeline(
            session: clientSession, processor: processor, vault: vault, sleepClock: sleepClock,
            hooks: { [weak self] in
                guard let self else { return PaymentPipeline.Hooks(idempotencyKey: { nil }, beforePaymentCreate: nil) }
                return self.hookStorage.withLock {
                    PaymentPipeline.Hooks(idempotencyKey: $0.idempotencyKey, beforePaymentCreate: $0.beforePaymentCreate)
                }
            },
            report: { [weak self] outcome in self?.deliver(outcome, generation: generation) })
    }

    /// Applies the completion rules and fans the outcome out to subscribers.
    private func deliver(_ outcome: CheckoutOutcome, generation: Int) {
        run.withLock { run in record(outcome, run.machine.handle(.deliver(outcome, generation: generation)), &run) }
        performEffects()
    }

    /// Keeps `outcome` and queues it for the current subscribers when `actions` say to deliver
    /// it (inside the lock: a later subscriber gets it by replay, never twice).
    private func record(_ outcome: CheckoutOutcome, _ actions: [CheckoutSessionRunMachine.Action], _ run: inout Run) {
        for case .deliver(let endsRun) in actions {
            run.delivered.append(outcome)
            let subscribers = run.subscribers.current
            effects.enqueue([.yield(outcome, to: subscribers)])
            if endsRun { effects.enqueue([.finish(run.subscribers.takeAll())]) }
        }
    }

    /// Performs the queued effects, outside the lock, in the order the transitions made them.
    private func performEffects() {
        effects.drain { effect in
            switch effect {
            case .phase(let phase):
                phaseState.send(phase)
            case .yield(let outcome, let subscribers):
                for continuation in subscribers { continuation.yield(outcome) }
            case .finish(let subscribers):
                for continuation in subscribers { continuation.finish() }
            case .stopLoading(let selection):
                selection.setLoading(false)
            case .cancelRefresh(let task):
                task.cancel()
            case .cancelFlows(let flows):
                for flow in flows { Task { await flow.cancel() } }
            }
        }
    }

    /// Records a note raised while ready (kept until the run ends).
    private func note(_ diagnostic: SessionDiagnostic, generation: Int) {
        run.withLock { run in
            guard run.machine.handle(.note(generation: generation)) == [.record] else { return }
            run.runtimeDiagnostics.append(diagnostic)
        }
    }
}
