import CheckoutCore

extension SyncEngine {
    /// Returns once `scope` is caught up with the moment of the call: every operation queued
    /// before the call has been pushed (applied, or answered and dropped as rejected or
    /// conflicting), and the cache has pulled everything the server held at that moment (a write
    /// checkpoint, as PowerSync calls it).
    ///
    /// How "the server's state at that moment" is known without asking the server for it: the
    /// change feed is append-only in the server's commit order, so a pull that *starts after the
    /// call* and reads the feed to its end (`hasMore` false) has seen every change committed before
    /// the call. Every round this method waits for starts after the call (`syncNow(scope:)` joins
    /// only the round queued behind a running one), and one that stops early (`SyncReport.partial`)
    /// does not count. Feed cursors are opaque, so they are not compared.
    ///
    /// Failures: a retryable round failure (network, 5xx, 429) is retried with the engine's
    /// backoff until the timeout; any other `SyncError` (unauthorized, merchant mismatch, ...) is
    /// thrown at once, since waiting cannot mend it. Nothing blocks a thread: the wait is an async
    /// race between the rounds and a sleep on the engine's clock, and cancelling the caller ends
    /// the wait at once (the shared round goes on for its other callers).
    /// - Throws: `SyncError` with code `timed-out` after `timeout` (pending ops are kept), a
    ///   non-retryable `SyncError`, or `CancellationError`.
    public func waitUntilSynced(scope: VaultScope, timeout: Duration) async throws {
        try Task.checkCancellation()
        let queued: Set<String>
        do {
            queued = Set(try await store.pendingOps(scope: scope, limit: Int.max).map(\.id))
        } catch {
            throw SyncError(.storeFailure, "cannot read the outbox: \(error)")
        }
        let outcome = await withTaskGroup(of: Result<Bool, any Error>.self) { group -> Result<Bool, any Error> in
            group.addTask { [self] in
                do {
                    try await catchUp(scope: scope, queued: queued)
                    return .success(true)
                } catch {
                    return .failure(error)
                }
            }
            group.addTask { [clock] in
                do {
                    try await clock.sleep(for: timeout)
                    return .success(false)
                } catch {
                    return .failure(error)
                }
            }
            let first = await group.next() ?? .failure(CancellationError())
            group.cancelAll()
            return first
        }
        switch outcome {
        case .success(true): return
        case .success(false):
            let reason = lastFailure(of: scope).map { ": the last round failed with \($0)" } ?? ""
            throw SyncError(.timedOut, "\(scope) was not caught up within \(timeout)\(reason)")
        case .failure(let error):
            if Task.isCancelled { throw CancellationError() }
            throw error
        }
    }

    /// Rounds until one started after the call pulled to the end of the feed and none of `queued`
    /// is still in the outbox; retryable failures back off and try again.
    private func catchUp(scope: VaultScope, queued: Set<String>) async throws {
        var failures = 0
        while true {
            try Task.checkCancellation()
            do {
                let report = try await syncNow(scope: scope)
                failures = 0
                let stillQueued = try await store.pendingOps(scope: scope, limit: Int.max).contains { queued.contains($0.id) }
                if !report.isPartial && !stillQueued { return }
            } catch let error as SyncError where error.isRetryable {
                failures += 1
                let delay = random.withLock {
                    configuration.retry.delay(afterFailures: failures, retryAfter: error.retryAfter, using: &$0)
                }
                try await clock.sleep(for: delay)
            }
        }
    }
}
