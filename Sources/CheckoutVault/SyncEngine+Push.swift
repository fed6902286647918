import CheckoutCore

extension SyncEngine {
    /// Pushes the outbox in batches until it is empty. Every answered op leaves the queue (applied
    /// with its new version, or dropped and reported when rejected or conflicting); a failed
    /// request keeps its ops, counts an attempt on each and ends the round after the retries.
    func push(_ scope: VaultScope, into report: inout SyncReport) async throws {
        while true {
            let limit = min(configuration.pushBatchSize, learnedBatchLimit.withLock { $0 } ?? .max)
            let pending = try await store.pendingOps(scope: scope, limit: limit)
            guard !pending.isEmpty else { return }
            try await pushBatch(Self.batchPrefix(pending), scope: scope, into: &report)
            // Every op of the batch was settled, so the queue moved on; guard anyway against a loop.
            if try await store.pendingOps(scope: scope, limit: 1).first?.id == pending.first?.id {
                throw SyncError(.storeFailure, "the outbox did not advance after a push")
            }
        }
    }

    /// The longest prefix of `ops` without two upserts of one instrument: the second would carry
    /// a base version that only the first one's answer can provide (the store rebases it then).
    static func batchPrefix(_ ops: [OutboxOperation]) -> [OutboxOperation] {
        var tokens = Set<String>()
        var batch: [OutboxOperation] = []
        for op in ops {
            if op.kind == .upsert, tokens.contains(op.token), !batch.isEmpty { break }
            tokens.insert(op.token)
            batch.append(op)
        }
        return batch
    }

    /// The op id as sent to the server: the outbox id, unless that random UUID happens to contain
    /// a run of digits that looks like a card number (about 1 in 200 do), which the server refuses
    /// as an identifier. Then every digit becomes a letter `g`–`p`: still unique (UUIDs never hold
    /// those letters), stable across retries (so still an idempotency key), and free of digits.
    static func wireOpId(_ id: String) -> String {
        guard PaymentDataRedactor.containsCardNumber(id) else { return id }
        return String(String.UnicodeScalarView(id.unicodeScalars.map { scalar in
            guard ("0"..."9").contains(scalar), let letter = Unicode.Scalar(scalar.value - 48 + 103) else { return scalar }
            return letter
        }))
    }

    /// The wire form of a queued operation (base version 0 means "new": sent as none).
    static func outbound(_ op: OutboxOperation) -> OutboundOp {
        let kind: OutboundOp.Kind
        switch op.kind {
        case .upsert: kind = .upsert
        case .delete: kind = .delete
        case .setDefault: kind = .setDefault
        }
        return OutboundOp(opId: wireOpId(op.id), kind: kind, instrumentId: op.token,
                          baseVersion: op.baseVersion == 0 ? nil : op.baseVersion,
                          method: op.kind == .upsert ? op.method : nil)
    }

    /// Request-level refusals caused by the batch's content (not by the customer or credentials):
    /// the batch is split until the one offending op is found and dropped.
    static func isContentRefusal(_ error: RemoteVaultError) -> Bool {
        guard case .httpStatus(let status, let code, _, _) = error else { return false }
        switch status {
        case 413, 422: return true
        case 400: return code != "invalid-customer"
        default: return false
        }
    }

    private func pushBatch(_ ops: [OutboxOperation], scope: VaultScope, into report: inout SyncReport) async throws {
        if let limit = learnedBatchLimit.withLock({ $0 }), ops.count > limit {
            for start in stride(from: 0, to: ops.count, by: limit) {
                try await pushBatch(Array(ops[start..<min(start + limit, ops.count)]), scope: scope, into: &report)
            }
            return
        }
        let outbound = ops.map(Self.outbound)
        let results: [OpResult]
        do {
            results = try await withRetry({
                try await remote.push(scope: scope, ops: outbound)
            }, onFailure: { error in
                for op in ops { try await store.recordOpFailure(opId: op.id, error: error.description) }
            })
        } catch let error as RemoteVaultError where Self.isContentRefusal(error) {
            if case .httpStatus(413, _, _, _) = error, ops.count > 1 {
                // Too many ops or too large a body: later batches start at the size that can work.
                learnedBatchLimit.withLock { $0 = min($0 ?? .max, max(1, ops.count / 2)) }
            }
            if ops.count > 1 {
                let half = ops.count / 2
                try await pushBatch(Array(ops[..<half]), scope: scope, into: &report)
                try await pushBatch(Array(ops[half...]), scope: scope, into: &report)
                return
            }
            guard case .httpStatus(let status, let code, let message, _) = error, let op = ops.first else { throw error }
            let rejection = SyncRejection(opId: op.id, scope: scope, kind: op.kind, token: op.token, verdict: .rejected,
                                          reason: code ?? "http-\(status)", message: message)
            try await store.completeOps(rejected: [(op.id, rejection.reason)])
            report.rejected += 1
            report.rejections.append(rejection)
            rejectionHub.send(rejection)
            return
        }
        try await settle(ops, results: results, scope: scope, into: &report)
    }

    /// Applies the server's verdicts to the store: one transaction for the queue, then the
    /// server's state of conflicting instruments (the server decides).
    private func settle(_ ops: [OutboxOperation], results: [OpResult], scope: VaultScope,
                        into report: inout SyncReport) async throws {
        var byId: [String: OpResult] = [:]
        for result in results { byId[result.opId] = result }
        guard results.count == ops.count, byId.count == ops.count else {
            throw SyncError(.malformedResponse, "the server answered \(results.count) results for \(ops.count) ops")
        }
        var applied: [(opId: String, newVersion: Int64)] = []
        var rejected: [(opId: String, reason: String)] = []
        var rejections: [SyncRejection] = []
        var adopted: [String: RemoteChange] = [:]
        for op in ops {
            guard let result = byId[Self.wireOpId(op.id)] else {
                throw SyncError(.malformedResponse, "the server did not answer op \(op.id)")
            }
            switch result.status {
            case .applied:
                guard let version = result.version, version > 0 else {
                    throw SyncError(.malformedResponse, "an applied op came back without a version")
                }
                applied.append((op.id, version))
            case .rejected, .conflict:
                let verdict: SyncRejection.Verdict = result.status == .rejected ? .rejected : .conflict
                let reason = result.reason ?? verdict.rawValue
                rejected.append((op.id, reason))
                rejections.append(SyncRejection(opId: op.id, scope: scope, kind: op.kind, token: op.token,
                                                verdict: verdict, reason: reason, message: result.message))
                if verdict == .rejected, reason == "not-found", op.kind != .upsert, op.baseVersion > 0, adopted[op.token] == nil {
                    // The server held this instrument (the op's base version is the server's) and holds
                    // nothing of it now (deleted, its tombstone purged): delete wins. An instrument the
                    // server never held (base 0) waits for its queued creation, or leaves with it.
                    adopted[op.token] = .delete(token: op.token, version: op.baseVersion)
                }
                guard verdict == .conflict else { continue }
                if let current = result.current {
                    guard current.token == op.token else {
                        throw SyncError(.malformedResponse, "a conflict carried another instrument's state")
                    }
                    if (adopted[current.token]?.version ?? .min) < current.version { adopted[current.token] = current }
                } else if adopted[op.token] == nil {
                    // The server no longer has the instrument at all (deleted and purged): delete wins.
                    adopted[op.token] = .delete(token: op.token, version: op.baseVersion)
                }
            }
        }
        try await store.completeOps(applied: applied, rejected: rejected)
        if !adopted.isEmpty {
            let changes = adopted.keys.sorted().compactMap { adopted[$0] }
            do {
                let cursor = try await store.cursor(scope: scope)
                try await store.applyRemotePage(scope: scope, changes: changes, newCursor: cursor, reachedEnd: false,
                                                replacingEqual: true)
            } catch let error as CheckoutError {
                throw SyncError(.malformedResponse, "the server sent a state the vault refuses: \(error.message)")
            }
        }
        report.pushed += applied.count
        report.rejected += rejected.count
        report.rejections += rejections
        for rejection in rejections { rejectionHub.send(rejection) }
    }
}
