import CheckoutCore
import CheckoutLocking

/// The ephemeral keys an `HTTPRemoteVault` holds, one per customer, and the rule for asking the
/// provider for a new one.
///
/// A key is asked for when there is none, when the one held expires within `refreshMargin`, or
/// when the caller reports the one it used as refused. Concurrent callers for one customer share
/// a single provider call. A key fresh from the provider is used as it is, whatever its expiry,
/// so a provider handing out short keys can never make the cache ask in a loop. Whatever the
/// provider throws becomes `RemoteVaultError.credentialsUnavailable` (the key was not obtained;
/// the vault server said nothing), unless the caller itself was cancelled.
final class EphemeralKeyCache: Sendable {
    private enum Entry {
        case ready(EphemeralVaultKey)
        /// A provider call in flight; `generation` tells it apart from a later one.
        case fetching(Task<EphemeralVaultKey, any Error>, generation: Int)
    }

    private struct State {
        var entries: [VaultScope: Entry] = [:]
        var generation = 0
        var providerCalls = 0
    }

    private let provider: @Sendable (VaultScope) async throws -> EphemeralVaultKey
    private let clock: WallClock
    private let refreshMargin: Duration
    private let state = Locked(State())

    init(provider: @escaping @Sendable (VaultScope) async throws -> EphemeralVaultKey, clock: WallClock,
         refreshMargin: Duration) {
        self.provider = provider
        self.clock = clock
        self.refreshMargin = refreshMargin
    }

    /// How many times the provider was called.
    var providerCalls: Int { state.withLock { $0.providerCalls } }

    /// A key for `scope`: the one held when it is still good and is not `refused`, else a new one.
    func key(for scope: VaultScope, refused: String? = nil) async throws -> EphemeralVaultKey {
        let now = clock.nowMillis
        let task = state.withLock { state -> Task<EphemeralVaultKey, any Error> in
            switch state.entries[scope] {
            case .ready(let key)? where key.secret != refused && !expiresSoon(key, now: now):
                return Task { key }
            case .fetching(let task, _)?:
                return task
            default:
                state.generation += 1
                state.providerCalls += 1
                let generation = state.generation
                // The fetch settles its own entry before it returns, so no caller can be handed
                // the refused key again by a fetch that already finished.
                let task = Task { [self] in
                    do {
                        let key = try await provider(scope)
                        settle(scope, generation, with: .ready(key))
                        return key
                    } catch {
                        settle(scope, generation, with: nil)
                        throw error
                    }
                }
                state.entries[scope] = .fetching(task, generation: generation)
                return task
            }
        }
        do {
            return try await awaitShared(task)
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw RemoteVaultError.credentialsUnavailable(reason: PaymentDataRedactor.redact("the key provider failed: \(error)"))
        }
    }

    /// Drops the key `secret` held for `scope` (the server does not know it): the next call asks
    /// the provider again.
    func forget(_ secret: String, for scope: VaultScope) {
        state.withLock { state in
            if case .ready(let key)? = state.entries[scope], key.secret == secret { state.entries[scope] = nil }
        }
    }

    /// Replaces the entry of fetch `generation` (unless a later fetch took its place).
    private func settle(_ scope: VaultScope, _ generation: Int, with entry: Entry?) {
        state.withLock { state in
            guard case .fetching(_, let current)? = state.entries[scope], current == generation else { return }
            state.entries[scope] = entry
        }
    }

    private func expiresSoon(_ key: EphemeralVaultKey, now: Int64) -> Bool {
        let expiresMillis = Int64((key.expiresAt.timeIntervalSince1970 * 1000).rounded())
        let margin = refreshMargin.components.seconds * 1000 + refreshMargin.components.attoseconds / 1_000_000_000_000_000
        return now >= expiresMillis - margin
    }
}
