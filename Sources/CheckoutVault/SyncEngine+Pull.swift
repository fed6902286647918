import CheckoutCore

extension SyncEngine {
    /// Pulls the change feed after the stored cursor until `hasMore` is false, applying each page
    /// with its cursor in one store transaction. On HTTP 410, or a cursor the server does not
    /// recognise (400 `invalid-cursor`), the customer is reset (synced rows wiped, outbox kept)
    /// and the feed is pulled from the beginning, once per round. After
    /// `configuration.maxPagesPerRound` pages, or once `roundTimeBudget` is spent, the pull stops
    /// with `report.partial` set; the stored cursor is where the next round resumes.
    func pull(_ scope: VaultScope, into report: inout SyncReport) async throws {
        var cursor = try await store.cursor(scope: scope)
        let round = Stopwatch(clock)
        var pages = 0
        // The next page is fetched, decoded and checked while the current one is written: the
        // fetch needs only the page's cursor, and a failed write discards it (the store's cursor
        // never moved).
        var prefetched: Task<FetchedPage, any Error>?
        defer { prefetched?.cancel() }
        while true {
            let fetched: FetchedPage
            do {
                if let next = prefetched {
                    prefetched = nil
                    // The prefetch is this round's own work: cancelling the round cancels it too.
                    fetched = try await withTaskCancellationHandler { try await next.value } onCancel: { next.cancel() }
                } else {
                    fetched = try await fetchPage(scope, after: cursor)
                }
            } catch let error as RemoteVaultError where error.requiresReset && !report.didReset && cursor != nil {
                try await store.resetSynced(scope: scope)
                report.didReset = true
                cursor = nil
                continue
            }
            let page = fetched.page
            pages += 1
            let progressed = !page.changes.isEmpty && page.cursor != cursor
            let partial: SyncReport.Partial?
            if !page.hasMore || !progressed {
                partial = nil
            } else if pages >= configuration.maxPagesPerRound {
                partial = .pageLimit(pages: pages)
            } else if round.elapsed >= configuration.roundTimeBudget {
                partial = .timeBudget(configuration.roundTimeBudget)
            } else {
                partial = nil
            }
            if page.hasMore && progressed && partial == nil {
                let from = page.cursor
                prefetched = Task { try await self.fetchPage(scope, after: from) }
            }
            do {
                try await store.applyRemotePage(fetched.checked, reachedEnd: !page.hasMore)
            } catch let error as CheckoutError {
                throw Self.refusedPage(error)
            }
            report.pulled += page.changes.count
            guard page.hasMore else { return }
            if let partial {
                report.partial = partial
                return
            }
            guard progressed else {
                throw SyncError(.malformedResponse, "the server announced more changes but the page made no progress")
            }
            cursor = page.cursor
        }
    }

    /// What the round reports when the store refuses a page the server sent.
    private static func refusedPage(_ error: CheckoutError) -> SyncError {
        SyncError(.malformedResponse, "the server sent a change the vault refuses: \(error.message)")
    }

    /// A page of the feed and the store's checks of it.
    private struct FetchedPage: Sendable {
        let page: ChangePage
        let checked: VaultStore.CheckedRemotePage
    }

    private func fetchPage(_ scope: VaultScope, after cursor: String?) async throws -> FetchedPage {
        let page = try await withRetry {
            try await remote.changes(scope: scope, cursor: cursor, limit: configuration.pageSize)
        }
        do {
            return FetchedPage(page: page, checked: try VaultStore.checkRemotePage(scope: scope, changes: page.changes,
                                                                                   newCursor: page.cursor))
        } catch let error as CheckoutError {
            throw Self.refusedPage(error)
        }
    }
}
