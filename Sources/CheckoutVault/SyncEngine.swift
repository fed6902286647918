import CheckoutCore
import CheckoutLocking

/// Keeps a `VaultStore` in sync with a `RemoteVault` in the background.
///
/// A round for one customer first checks that the remote's credentials belong to the scope's
/// merchant (`RemoteVault.identity(scope:)`; another merchant's scope is refused with
/// `merchant-mismatch` before anything is sent or applied, and when it is only a pending scope
/// of a full round it is skipped and listed in `SyncReport.foreignScopes`). It then pulls the
/// change feed page by page, at most `maxPagesPerRound` pages within `roundTimeBudget` (a round
/// cut short reports `partial` and the next resumes from the cursor; each page and the cursor in
/// one store transaction; HTTP 410 resets the customer and pulls from scratch, keeping the outbox),
/// then pushes the outbox in batches (the op id is the idempotency key): applied ops leave the
/// queue with the server's version, rejected and conflicting ops are dropped and reported on
/// `rejections()` (the server decides; delete wins), retryable failures keep the ops, count an
/// attempt and back off (full jitter, capped, honouring `Retry-After`).
///
/// Triggers: `notifyLocalWrite()`, the timer (`Configuration.interval`), `reconnected()` and
/// `syncNow()`. Concurrent triggers for one customer coalesce: at most one round runs per customer,
/// and callers arriving meanwhile share the single round queued behind it. A round with nothing
/// to do costs one request (an empty page; nothing is pushed when the outbox is empty).
///
/// The engine never stands between checkout and the cache: read the store (or
/// `SyncingVaultProvider`) directly, offline or not. Example:
///
/// ```swift
/// let engine = SyncEngine(store: store, remote: HTTPRemoteVault(baseURL: url, apiKey: key),
///                         configuration: .init(scopes: [scope]))
/// engine.start()
/// let report = try await engine.syncNow(scope: scope)
/// ```
public final class SyncEngine: Sendable {
    /// What the engine syncs and how.
    public struct Configuration: Sendable {
        /// Customers synced by every round (e.g. the signed-in customer).
        public var scopes: [VaultScope]
        /// Also sync every customer with queued operations in the store.
        public var includePendingScopes: Bool
        /// Changes requested per page of the feed. The default, `largestPage`, asks for the largest
        /// page the server allows: the server caps each page by its count and by its bytes (1,000
        /// changes and 1 MiB by default), so its own limits size the pages.
        public var pageSize: Int
        /// Operations sent per push request (the server accepts 500 per batch by default).
        public var pushBatchSize: Int
        /// Time between background rounds when nothing else triggers one; nil turns the timer off.
        public var interval: Duration?
        /// Backoff between failed attempts (within a round, and between failed background rounds).
        public var retry: RetryPolicy
        /// Seeds the jitter's random generator (tests); nil seeds it from the system.
        public var randomSeed: UInt64?
        /// The most feed pages one round pulls (default 1,000). A round that reaches it while the
        /// server still announces more stops pulling, pushes as usual and reports itself partial
        /// (`SyncReport.partial`); the next round resumes from the stored cursor. This bounds a
        /// round against a server that always answers `hasMore`.
        public var maxPagesPerRound: Int
        /// How long one round may keep pulling pages (default 120 s, on the engine's clock): once
        /// spent, the round stops after the page in hand, like `maxPagesPerRound`.
        public var roundTimeBudget: Duration

        /// The default `pageSize`: more than any server allows, so the server's caps decide.
        public static let largestPage = 1_000_000
        /// The default `maxPagesPerRound`: 1,000 pages (a million changes at the server's default page size).
        public static let defaultMaxPagesPerRound = 1000
        /// The default `roundTimeBudget`.
        public static let defaultRoundTimeBudget: Duration = .seconds(120)

        /// Creates a configuration; sizes below 1 are raised to 1.
        public init(scopes: [VaultScope] = [], includePendingScopes: Bool = true, pageSize: Int = Configuration.largestPage,
                    pushBatchSize: Int = 500, interval: Duration? = .seconds(300), retry: RetryPolicy = .standard,
                    randomSeed: UInt64? = nil, maxPagesPerRound: Int = Configuration.defaultMaxPagesPerRound,
                    roundTimeBudget: Duration = Configuration.defaultRoundTimeBudget) {
            self.scopes = scopes
            self.includePendingScopes = includePendingScopes
            self.pageSize = max(1, pageSize)
            self.pushBatchSize = max(1, pushBatchSize)
            self.interval = interval
            self.retry = retry
            self.randomSeed = randomSeed
            self.maxPagesPerRound = max(1, maxPagesPerRound)
            self.roundTimeBudget = max(.zero, roundTimeBudget)
        }
    }

    /// The local cache and outbox.
    public let store: VaultStore
    /// The remote vault.
    public let remote: any RemoteVault
    /// The settings the engine was created with.
    public let configuration: Configuration
    /// Waits (the timer, backoff, `Retry-After`, time budgets) run on this clock.
    let clock: any Clock<Duration>
    /// `lastSyncedAt` stamps read this.
    let wallClock: WallClock
    let random: Locked<RetryPolicy.Generator>
    let trigger = SyncTrigger()
    /// The largest batch the server accepted after it answered 413 to a bigger one (nil: none learned).
    let learnedBatchLimit = Locked<Int?>(nil)
    let rejectionHub = SyncEventHub<SyncRejection>()
    private let broadcaster: StateBroadcaster<SyncStatus>
    private let state = Locked(EngineState())

    private struct EngineState {
        /// The round rules: which round a caller awaits.
        var roundQueue = SyncRoundQueue()
        /// The tasks of the rounds the queue holds, by id; each shared by every caller that joins it.
        var rounds: [Int: Task<SyncReport, any Error>] = [:]
        var roundRequests = 0
        /// The status rules; every change of the published status comes from it.
        var status = SyncStatusMachine()
        /// Pending scopes of another merchant than the remote's, as the last `syncNow()` found them.
        var foreignScopes: Set<VaultScope> = []
        var loop: Task<Void, Never>?
        /// The loop's start/stop rules; `loop` exists exactly while it says the loop runs.
        var run = SyncEngineLoopMachine()
    }

    /// Creates an engine (reading the store's pending count for the first status); nothing talks to
    /// the remote until `start()` or `syncNow()`. Call `stop()` before dropping a started engine.
    /// Waits run on `clock` and `lastSyncedAt` reads `wallClock`; tests pass a
    /// `CheckoutCoreTesting.TestClock` as `clock` and its `wallClock` to drive both by hand.
    public convenience init(store: VaultStore, remote: any RemoteVault, configuration: Configuration = Configuration(),
                            clock: any Clock<Duration> = ContinuousClock(), wallClock: WallClock = .system) {
        self.init(unreadStore: store, remote: remote, configuration: configuration, clock: clock, wallClock: wallClock)
        refreshPendingCount()
    }

    /// The initializer for async code: the store's pending count, for the first status, is read
    /// without blocking the calling task (the synchronous initializer reads it on the calling thread).
    ///
    /// ```swift
    /// let engine = await SyncEngine.open(store: store, remote: remote)
    /// ```
    public static func open(store: VaultStore, remote: any RemoteVault, configuration: Configuration = Configuration(),
                            clock: any Clock<Duration> = ContinuousClock(), wallClock: WallClock = .system) async -> SyncEngine {
        let engine = SyncEngine(unreadStore: store, remote: remote, configuration: configuration, clock: clock, wallClock: wallClock)
        await engine.refreshPendingCount()
        return engine
    }

    /// Everything but the first pending count.
    private init(unreadStore store: VaultStore, remote: any RemoteVault, configuration: Configuration,
                 clock: any Clock<Duration>, wallClock: WallClock) {
        self.store = store
        self.remote = remote
        self.configuration = configuration
        self.clock = clock
        self.wallClock = wallClock
        self.random = Locked(configuration.randomSeed.map(RetryPolicy.Generator.init(seed:)) ?? RetryPolicy.Generator())
        self.broadcaster = StateBroadcaster(SyncStatus(phase: .idle, pendingCount: 0, lastSyncedAt: nil))
    }

    deinit {
        state.withLock { $0.loop?.cancel() }
    }

    // MARK: Observing

    /// The current status snapshot.
    public var currentStatus: SyncStatus { broadcaster.value }

    /// The current status, then every change (only real changes are published).
    public func status() -> AsyncStream<SyncStatus> { broadcaster.stream() }

    /// Every operation the server refuses from now on (dropped from the outbox, never retried).
    public func rejections() -> AsyncStream<SyncRejection> { rejectionHub.stream() }

    // MARK: Triggers

    /// Runs one round for `scope` now (or joins the round queued behind the running one) and
    /// returns what it did. Throws `SyncError` when the round fails (pending ops are kept), or
    /// `CancellationError` when the engine is stopped meanwhile or the calling task is cancelled.
    ///
    /// A round is shared by every caller that asked for it, so cancelling one caller does not
    /// cancel the round: that caller stops waiting at once, and the round goes on for the others
    /// (and for the store, which it brings up to date). `stop()` cancels rounds.
    @discardableResult
    public func syncNow(scope: VaultScope) async throws -> SyncReport {
        try Task.checkCancellation()
        return try await awaitShared(round(for: scope))
    }

    /// Runs one round for every scope the engine syncs (configured scopes plus, if enabled, every
    /// scope with queued ops). Every scope is attempted, up to `maxConcurrentScopes` at a time
    /// (their rounds touch disjoint data, and overlapping them keeps both the store and the network
    /// busy); the reports are merged in scope order and the first failure in that order is thrown
    /// afterwards. The report's cursor is set only when exactly one scope was synced.
    ///
    /// A scope that is only included for its queued ops and that belongs to another merchant than
    /// the remote's credentials is not synced and not a failure: it is listed in the report's
    /// `foreignScopes`, its outbox kept for an engine with that merchant's credentials.
    @discardableResult
    public func syncNow() async throws -> SyncReport {
        let (scopes, foreign) = try await ownScopes()
        state.withLock { $0.foreignScopes = Set(foreign) }
        var report = SyncReport()
        report.foreignScopes = foreign
        if scopes.count == 1, let scope = scopes.first {
            var single = try await syncNow(scope: scope)
            single.foreignScopes = foreign
            return single
        }
        var outcomes = [Result<SyncReport, any Error>?](repeating: nil, count: scopes.count)
        await withTaskGroup(of: (Int, Result<SyncReport, any Error>).self) { group in
            var next = 0
            func startNext() {
                guard next < scopes.count else { return }
                let index = next
                next += 1
                group.addTask { [self] in
                    do {
                        return (index, .success(try await syncNow(scope: scopes[index])))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            for _ in 0..<min(Self.maxConcurrentScopes, scopes.count) { startNext() }
            while let (index, outcome) = await group.next() {
                outcomes[index] = outcome
                startNext()
            }
        }
        var firstError: (any Error)?
        for outcome in outcomes {
            switch outcome {
            case .success(let scopeReport)?: report.merge(scopeReport)
            case .failure(let error)?:
                if error is CancellationError { throw error }
                if firstError == nil { firstError = error }
            case nil: break
            }
        }
        if let firstError { throw firstError }
        return report
    }

    /// How many scopes `syncNow()` syncs at once.
    static let maxConcurrentScopes = 8

    /// Tells the engine the store was written locally: the pending count is refreshed and the
    /// background loop (if started) runs a round, unless it is backing off after a failure.
    /// The count is read on the calling thread (one short read); `SyncingVaultProvider`, which
    /// calls this after every write, reads it without blocking its task.
    public func notifyLocalWrite() {
        refreshPendingCount()
        trigger.fire(.localWrite)
    }

    /// `notifyLocalWrite()` for async callers: the pending count is read without blocking the task.
    func notifyLocalWriteNonblocking() async {
        await refreshPendingCount()
        trigger.fire(.localWrite)
    }

    /// Tells the engine the network is back: the background loop stops any backoff and syncs now.
    /// (Linux has no reachability API; the app calls this from whatever signal it has.)
    public func reconnected() {
        trigger.fire(.reconnect)
    }

    // MARK: Background loop

    /// Starts the background loop: a round now, then one per trigger (local write, timer,
    /// reconnect), with backoff after failures. Calling it twice has no effect. Called while
    /// `stop()` is still waiting for rounds to end, it starts the loop when `stop()` returns.
    public func start() {
        state.withLock { state in
            guard state.run.handle(.start) == [.startLoop] else { return }
            state.loop = Task { [self] in await runLoop() }
        }
    }

    /// Stops the background loop and cancels running rounds, waiting until they have ended.
    /// Pending operations stay in the outbox; `start()` may be called again later.
    public func stop() async {
        let loop = state.withLock { state -> Task<Void, Never>? in
            guard state.run.handle(.stop).contains(.cancelLoop) else { return nil }
            defer { state.loop = nil }
            return state.loop
        }
        loop?.cancel()
        // Rounds are unstructured tasks (shared by their callers), so cancel them explicitly; rounds
        // asked for while stopping are born cancelled.
        while true {
            let rounds = state.withLock { state in Array(state.rounds.values) }
            if rounds.isEmpty { break }
            for round in rounds { round.cancel() }
            for round in rounds { _ = await round.result }
        }
        await loop?.value
        state.withLock { state in
            guard state.run.handle(.stopFinished) == [.startLoop] else { return }
            state.loop = Task { [self] in await runLoop() }
        }
    }

    /// The failure of `scope`'s last round, nil when it succeeded (or none ran).
    func lastFailure(of scope: VaultScope) -> SyncError? { state.withLock { $0.status.failures[scope] } }

    /// How many times a round was asked for (joined or started), for tests of coalescing.
    var roundRequestCount: Int { state.withLock { $0.roundRequests } }

    /// True while the background loop runs.
    public var isRunning: Bool { state.withLock { $0.loop != nil } }

    private enum Wake { case timer, trigger, cancelled }

    private func runLoop() async {
        var backoff = SyncLoopBackoff()
        while !Task.isCancelled {
            trigger.clear()
            let outcome: SyncLoopBackoff.Outcome
            do {
                _ = try await syncNow()
                outcome = .succeeded
            } catch is CancellationError {
                return
            } catch {
                outcome = .failed(retryAfter: (error as? SyncError)?.retryAfter)
            }
            if Task.isCancelled { return }
            let next = random.withLock {
                backoff.wait(after: outcome, interval: configuration.interval, retry: configuration.retry, random: &$0)
            }
            if await self.wait(for: next.duration, accepting: next.accepting) == .cancelled { return }
        }
    }

    /// Waits for the timer (nil: no timer) or a trigger of an accepted kind, whichever comes first.
    private func wait(for duration: Duration?, accepting: Set<SyncTrigger.Kind>) async -> Wake {
        await withTaskGroup(of: Wake.self) { group in
            group.addTask { [trigger] in
                await trigger.wait(accepting: accepting) == nil ? .cancelled : .trigger
            }
            if let duration {
                group.addTask { [clock] in
                    do {
                        try await clock.sleep(for: duration)
                        return .timer
                    } catch {
                        return .cancelled
                    }
                }
            }
            let first = await group.next() ?? .cancelled
            group.cancelAll()
            return Task.isCancelled ? .cancelled : first
        }
    }

    // MARK: Rounds and status

    /// The scopes a full round covers: the configured ones, then every scope with queued ops.
    func syncedScopes() async throws -> [VaultScope] {
        var scopes = configuration.scopes
        if configuration.includePendingScopes {
            do {
                scopes += try await store.pendingScopes()
            } catch {
                throw SyncError(.storeFailure, "cannot read the outbox: \(error)")
            }
        }
        var seen = Set<VaultScope>()
        return scopes.filter { seen.insert($0).inserted }
    }

    /// The synced scopes, without the pending scopes (not configured ones) whose credentials
    /// belong to another merchant; those are returned apart. A scope whose identity cannot be
    /// asked now stays in: its round reports the failure.
    private func ownScopes() async throws -> (own: [VaultScope], foreign: [VaultScope]) {
        let configured = Set(configuration.scopes)
        var own: [VaultScope] = []
        var foreign: [VaultScope] = []
        for scope in try await syncedScopes() {
            if !configured.contains(scope), let identity = try? await remote.identity(scope: scope), !identity.covers(scope) {
                foreign.append(scope)
            } else {
                own.append(scope)
            }
        }
        return (own, foreign)
    }

    /// The round a caller for `scope` should await: a new one when none runs, else the single
    /// round queued behind the running one (created on demand).
    private func round(for scope: VaultScope) -> Task<SyncReport, any Error> {
        state.withLock { state in
            state.roundRequests += 1
            let (id, after): (Int, Int?)
            switch state.roundQueue.handle(.request(scope)).first {
            case .join(let queued)?:
                if let task = state.rounds[queued] { return task }
                preconditionFailure("the queued round \(queued) has no task")
            case .start(let started, let running)?:
                (id, after) = (started, running)
            case .forget?, nil:
                preconditionFailure("a round request always starts or joins a round")
            }
            let previous = after.flatMap { state.rounds[$0] }
            let task = Task { [self] in
                if let previous { _ = await previous.result }
                let result: Result<SyncReport, any Error>
                do {
                    result = .success(try await performRound(scope))
                } catch {
                    result = .failure(error)
                }
                finishRound(scope, id: id)
                return try result.get()
            }
            if state.run.handle(.roundCreated) == [.cancelRound] { task.cancel() }
            state.rounds[id] = task
            return task
        }
    }

    /// Promotes the queued round (if any) once the running round `id` has finished.
    private func finishRound(_ scope: VaultScope, id: Int) {
        state.withLock { state in
            for case .forget(let finished) in state.roundQueue.handle(.finished(scope, id: id)) {
                state.rounds[finished] = nil
            }
        }
    }

    /// Runs one round with status bookkeeping; errors come out as `SyncError` or `CancellationError`.
    private func performRound(_ scope: VaultScope) async throws -> SyncReport {
        try Task.checkCancellation()
        publish(.roundStarted)
        do {
            let report = try await runRound(scope)
            let now = wallClock.nowMillis
            let pending = await totalPendingCount()
            publish(.roundSucceeded(scope, at: now, partial: report.isPartial, pending: pending))
            return report
        } catch {
            let pending = await totalPendingCount()
            let cancelled = error is CancellationError || Task.isCancelled
            let failure = cancelled ? nil : Self.syncError(error)
            publish(.roundFailed(scope, failure: failure, pending: pending))
            if let failure { throw failure }
            throw CancellationError()
        }
    }

    /// One round: pull, then push, then read the outcome back from the store.
    private func runRound(_ scope: VaultScope) async throws -> SyncReport {
        guard !scope.merchantId.isEmpty, !scope.customerId.isEmpty else {
            throw SyncError(.invalidScope, "the merchant and customer ids must not be empty")
        }
        // The server scopes calls by the key's merchant, not by ours: a scope of another merchant
        // would push its outbox into the key's merchant and pull that merchant's cards into it.
        let identity = try await withRetry { try await remote.identity(scope: scope) }
        try identity.check(scope)
        var report = SyncReport()
        try await pull(scope, into: &report)
        try await push(scope, into: &report)
        report.pending = try await store.pendingCount(scope: scope)
        report.cursor = try await store.cursor(scope: scope)
        return report
    }

    /// Maps any failure of a round to a `SyncError`.
    static func syncError(_ error: any Error) -> SyncError {
        switch error {
        case let error as SyncError: return error
        case let error as RemoteVaultError: return SyncError(error)
        default: return SyncError(.storeFailure, "the local vault failed: \(error)")
        }
    }

    /// Applies `event` to the status rules and publishes the status after unlocking when it changed
    /// (the broadcaster drops a publication overtaken by a later one).
    private func publish(_ event: SyncStatusMachine.Event) {
        guard let publication = state.withLock({ $0.status.handle(event) }) else { return }
        broadcaster.send(publication.status, revision: publication.revision)
    }

    /// Re-reads the pending count from the store and publishes it, blocking the calling thread
    /// for the read (the engine's init and the synchronous `notifyLocalWrite()`).
    func refreshPendingCount() {
        guard let pending = try? store.perform(pendingCountWork()) else { return }
        publish(.pendingCounted(pending))
    }

    /// Re-reads the pending count from the store without blocking and publishes it.
    func refreshPendingCount() async {
        guard let pending = await totalPendingCount() else { return }
        publish(.pendingCounted(pending))
    }

    /// The queued operations over every synced scope; nil when the store cannot be read.
    private func totalPendingCount() async -> Int? {
        try? await store.perform(pendingCountWork())
    }

    /// The read that counts the queued operations of every synced scope, on one connection.
    private func pendingCountWork() -> StoreWork<Int> {
        // With every pending scope synced, the sum over the synced scopes is the whole outbox
        // (less the ops of other merchants' scopes, which this engine's key never syncs): one
        // count instead of a scan for the scopes plus a count per scope after every round.
        if configuration.includePendingScopes {
            return VaultStore.pendingCountWork(allScopesExcept: Array(state.withLock { $0.foreignScopes }))
        }
        var seen = Set<VaultScope>()
        return VaultStore.pendingCountWork(scopes: configuration.scopes.filter { seen.insert($0).inserted })
    }

    /// Calls `operation`, retrying retryable remote failures up to the policy's attempts with
    /// backoff on the engine's clock. `onFailure` sees every failure (to count attempts).
    func withRetry<T>(_ operation: () async throws -> T,
                      onFailure: (RemoteVaultError) async throws -> Void = { _ in }) async throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await operation()
            } catch let error as RemoteVaultError {
                try Task.checkCancellation()
                try await onFailure(error)
                guard error.isRetryableForSync, attempt < configuration.retry.maxAttempts else { throw error }
                let delay = random.withLock {
                    configuration.retry.delay(afterFailures: attempt, retryAfter: error.retryAfter, using: &$0)
                }
                try await clock.sleep(for: delay)
            }
        }
    }
}
