import CheckoutCore
import CheckoutLocking

/// The ephemeral keys an `HTTPRemoteVault` holds, one per customer, and the rule for asking the
/// provider for a new one.
///
/// A key is asked for when there is none, when the one held expires within `refreshMargin`, or
/// when the caller reports the one it used as refused. Concurrent callers for one customer share
/// a single provider call. A key fresh from the provider is used as it is, whatever its expiry,
/// so a provider handing out short keys can never make the cache ask in a loop.
final class EphemeralKeyCache: Sendable {
    private enum Entry {
        case ready(EphemeralVaultKey)
        case fetching(Task<EphemeralVaultKey, any Error>)
    }

    private let provider: @Sendable (VaultScope) async throws -> EphemeralVaultKey
    private let clock: any SyncClock
    private let refreshMargin: Duration
    private let entries = Locked<[VaultScope: Entry]>([:])
    private let fetches = Locked(0)

    init(provider: @escaping @Sendable (VaultScope) async throws -> EphemeralVaultKey, clock: any SyncClock,
         refreshMargin: Duration) {
        self.provider = provider
        self.clock = clock
        self.refreshMargin = refreshMargin
    }

    /// How many times the provider was called.
    var providerCalls: Int { fetches.withLock { $0 } }

    /// A key for `scope`: the one held when it is still good and is not `refused`, else a new one.
    /// Provider failures come out as `RemoteVaultError.credentialsUnavailable`.
    func key(for scope: VaultScope, refused: String? = nil) async throws -> EphemeralVaultKey {
        let now = clock.nowMillis()
        let task = entries.withLock { entries -> Task<EphemeralVaultKey, any Error> in
            switch entries[scope] {
            case .ready(let key)? where key.secret != refused && !expiresSoon(key, now: now):
                return Task { key }
            case .fetching(let task)?:
                return task
            default:
                let task = Task { [self] in
                    fetches.withLock { $0 += 1 }
                    return try await provider(scope)
                }
                entries[scope] = .fetching(task)
                Task { [weak self] in await self?.settle(scope, task) }
                return task
            }
        }
        do {
            return try await awaitShared(task)
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as RemoteVaultError {
            throw error
        } catch {
            throw RemoteVaultError.credentialsUnavailable(reason: PaymentDataRedactor.redact("the key provider failed: \(error)"))
        }
    }

    /// Keeps the fetched key, or forgets the failed fetch so the next call asks again.
    private func settle(_ scope: VaultScope, _ task: Task<EphemeralVaultKey, any Error>) async {
        let result = await task.result
        entries.withLock { entries in
            guard case .fetching(let current)? = entries[scope], current == task else { return }
            switch result {
            case .success(let key): entries[scope] = .ready(key)
            case .failure: entries[scope] = nil
            }
        }
    }

    private func expiresSoon(_ key: EphemeralVaultKey, now: Int64) -> Bool {
        let expiresMillis = Int64((key.expiresAt.timeIntervalSince1970 * 1000).rounded())
        let margin = refreshMargin.components.seconds * 1000 + refreshMargin.components.attoseconds / 1_000_000_000_000_000
        return now >= expiresMillis - margin
    }
}
