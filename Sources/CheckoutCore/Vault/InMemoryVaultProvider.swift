import CheckoutLocking

/// A `VaultProvider` kept in memory: for tests, previews and hosts that do not persist the vault.
///
/// It follows the same rules as the SQLite store: ordering (default first, then most recently
/// used, then most recently saved), exactly one default, refusing card numbers, isolation by scope.
public final class InMemoryVaultProvider: VaultProvider {
    private struct Entry {
        var method: VaultedPaymentMethod
        var lastUsed: UInt64
    }

    private let entries = Locked<(clock: UInt64, byScope: [VaultScope: [String: Entry]])>((0, [:]))

    public init() {}

    public func paymentMethods(for scope: VaultScope) async throws -> [VaultedPaymentMethod] {
        entries.withLock { state in
            (state.byScope[scope] ?? [:]).values
                .sorted { lhs, rhs in
                    if lhs.method.isDefault != rhs.method.isDefault { return lhs.method.isDefault }
                    if lhs.lastUsed != rhs.lastUsed { return lhs.lastUsed > rhs.lastUsed }
                    return lhs.method.id < rhs.method.id
                }
                .map(\.method)
        }
    }

    public func save(_ method: VaultedPaymentMethod, for scope: VaultScope) async throws {
        try VaultedPaymentMethodGuard.check(method)
        entries.withLock { state in
            state.clock += 1
            var bucket = state.byScope[scope] ?? [:]
            if method.isDefault {
                for key in bucket.keys { bucket[key]?.method.isDefault = false }
            }
            bucket[method.id] = Entry(method: method, lastUsed: state.clock)
            state.byScope[scope] = bucket
        }
    }

    public func delete(id: String, for scope: VaultScope) async throws {
        _ = entries.withLock { state in state.byScope[scope]?.removeValue(forKey: id) }
    }

    public func setDefault(id: String, for scope: VaultScope) async throws {
        try entries.withLock { state in
            guard var bucket = state.byScope[scope], bucket[id] != nil else {
                throw CheckoutError(.vaultFailure, "no saved payment method \(VaultTokenMask.mask(id)) for this customer")
            }
            for key in bucket.keys { bucket[key]?.method.isDefault = (key == id) }
            state.byScope[scope] = bucket
        }
    }

    public func markUsed(id: String, for scope: VaultScope) async throws {
        entries.withLock { state in
            state.clock += 1
            let clock = state.clock
            state.byScope[scope]?[id]?.lastUsed = clock
        }
    }
}
