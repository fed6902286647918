/// The run rules of a `CheckoutSession` as a value: an event goes in through `handle(_:)`, the
/// actions for the session to perform come out.
///
/// The session keeps it behind its lock with the run's data, feeds it every lifecycle event and
/// performs the actions: storing data under the same lock, publishing phases and outcomes and
/// cancelling tasks after unlocking. The rules:
/// - `start` works once per run (`notStarted -> starting`); the loaded client session installs
///   the run (`starting -> ready`) only for the run that started it.
/// - `refresh` works only when ready; while one runs, others join it; only the running refresh
///   of the current run stores its result.
/// - Outcomes of the current run are delivered until a terminal one (`success`, `dismissed`, a
///   failure while starting); then nothing more. A payment's failure is not terminal: the
///   shopper may try again.
/// - `cancel` ends the run from any state: a new generation, `notStarted`, not terminal. Every
///   event of an older generation is then ignored.
struct CheckoutSessionRunMachine: Sendable, Equatable {
    /// Where the run is.
    enum Status: Sendable, Equatable { case notStarted, starting, ready, ended }

    /// What happens to the run; `generation` names the run an asynchronous result belongs to.
    enum Event: Sendable, Equatable {
        /// `start()`.
        case start
        /// The client session of `generation` was fetched and resolved.
        case loaded(generation: Int)
        /// Starting `generation` failed.
        case startFailed(generation: Int)
        /// `refresh()`.
        case refresh
        /// The refresh of `generation` fetched a new client session.
        case refreshed(generation: Int)
        /// The refresh of `generation` failed.
        case refreshFailed(generation: Int)
        /// The pipeline of `generation` reports `outcome`.
        case deliver(CheckoutOutcome, generation: Int)
        /// `dismiss()`.
        case dismiss
        /// `cancel()`.
        case cancel
        /// A flow is asked for.
        case makeFlow
        /// A note of `generation` is raised while ready.
        case note(generation: Int)
    }

    /// What the session does about an event.
    enum Action: Sendable, Equatable {
        /// Decode the token and fetch the client session for `generation`.
        case load(generation: Int)
        /// Store the ready run's data and publish `ready`.
        case install
        /// Start the shared refresh of `generation`.
        case startRefresh(generation: Int)
        /// Wait for the refresh already running.
        case joinRefresh
        /// Store the refreshed data and forget the refresh task.
        case storeRefresh
        /// Forget the refresh task and stop the selection's loading indicator.
        case stopLoading
        /// Record the outcome and hand it to subscribers; finish their streams when `endsRun`.
        case deliver(endsRun: Bool)
        /// Drop the run's data, finish the outcome streams, cancel the refresh and the flows,
        /// publish `initializing`.
        case tearDown
        /// Make (or reuse) the flow.
        case makeFlow
        /// Keep the note.
        case record
    }

    /// Counts runs; every `cancel` starts a new one.
    private(set) var generation = 0
    /// Where the run is.
    private(set) var status = Status.notStarted
    /// Whether a terminal outcome was delivered in this run.
    private(set) var terminal = false
    /// Whether a refresh is running.
    private(set) var refreshing = false

    init(generation: Int = 0, status: Status = .notStarted, terminal: Bool = false, refreshing: Bool = false) {
        self.generation = generation
        self.status = status
        self.terminal = terminal
        self.refreshing = refreshing
    }

    /// Applies `event` and returns what to do (nothing for a refused or stale event).
    mutating func handle(_ event: Event) -> [Action] {
        switch event {
        case .start:
            guard status == .notStarted else { return [] }
            status = .starting
            return [.load(generation: generation)]
        case .loaded(let run):
            guard run == generation, status == .starting else { return [] }
            status = .ready
            return [.install]
        case .startFailed(let run):
            guard run == generation, status == .starting else { return [] }
            status = .ended
            return deliver(endsRun: true)
        case .refresh:
            guard status == .ready else { return [] }
            if refreshing { return [.joinRefresh] }
            refreshing = true
            return [.startRefresh(generation: generation)]
        case .refreshed(let run):
            guard run == generation, refreshing else { return [] }
            refreshing = false
            return [.storeRefresh]
        case .refreshFailed(let run):
            guard run == generation, refreshing else { return [] }
            refreshing = false
            return [.stopLoading] + deliver(endsRun: false)
        case .deliver(let outcome, let run):
            guard run == generation else { return [] }
            if case .failure = outcome { return deliver(endsRun: false) }
            return deliver(endsRun: true)
        case .dismiss:
            return deliver(endsRun: true)
        case .cancel:
            self = CheckoutSessionRunMachine(generation: generation &+ 1)
            return [.tearDown]
        case .makeFlow:
            return status == .ready ? [.makeFlow] : []
        case .note(let run):
            return run == generation ? [.record] : []
        }
    }

    /// Delivers an outcome unless the run already ended with one.
    private mutating func deliver(endsRun: Bool) -> [Action] {
        guard !terminal else { return [] }
        if endsRun { terminal = true }
        return [.deliver(endsRun: endsRun)]
    }
}
