import CheckoutCore

extension SyncEngine {
    /// Pulls the change feed after the stored cursor until `hasMore` is false, applying each page
    /// with its cursor in one store transaction. On HTTP 410 the customer is reset (synced rows
    /// wiped, outbox kept) and the feed is pulled from the beginning, once per round.
    func pull(_ scope: VaultScope, into report: inout SyncReport) async throws {
        var cursor = try store.cursor(scope: scope)
        while true {
            let page: ChangePage
            do {
                let from = cursor
                page = try await withRetry {
                    try await remote.changes(scope: scope, cursor: from, limit: configuration.pageSize)
                }
            } catch RemoteVaultError.cursorExpired where !report.didReset && cursor != nil {
                try store.resetSynced(scope: scope)
                report.didReset = true
                cursor = nil
                continue
            }
            do {
                try store.applyRemotePage(scope: scope, changes: page.changes, newCursor: page.cursor)
            } catch let error as CheckoutError {
                throw SyncError(.malformedResponse, "the server sent a change the vault refuses: \(error.message)")
            }
            report.pulled += page.changes.count
            guard page.hasMore else { return }
            guard !page.changes.isEmpty, page.cursor != cursor else {
                throw SyncError(.malformedResponse, "the server announced more changes but the page made no progress")
            }
            cursor = page.cursor
        }
    }
}
