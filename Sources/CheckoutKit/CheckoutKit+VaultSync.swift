import CheckoutLocking
import CheckoutCore
import CheckoutVault
import Foundation
import HTTPTransport

extension CheckoutKit {
    /// Why a client token cannot drive vault sync.
    public struct VaultSyncSetupError: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is missing or wrong.
        public let description: String
    }

    /// The vault provider and sync engine for the customer of `token`, when the token carries
    /// vault access (`ClientToken.vault`): the device syncs with the token's ephemeral key and
    /// nothing else configured, never holding the merchant's key.
    ///
    /// When the key is refused or about to expire, `refresh` is asked for a new one (typically a
    /// call to the merchant's backend); without it the token's key is all there is, and the
    /// engine reports `key-expired` once it runs out. Pass the result as the session's `vault` and
    /// call `engine.start()`. Like `SyncEngine.init`, this reads the store's pending count once on
    /// the calling thread; open the store itself with `VaultStore.open` from async code.
    ///
    /// ```swift
    /// let vault = try CheckoutKit.vaultSync(for: try ClientToken.decode(clientToken), store: store)
    /// vault.engine.start()
    /// let session = CheckoutSession(clientToken: clientToken, configuration: configuration, registry: registry,
    ///                               processor: processor, vault: vault, idempotencyKey: { SafeIdentifier.random() })
    /// ```
    public static func vaultSync(for token: ClientToken, store: VaultStore, tls: TLSOptions = TLSOptions(),
                                 refresh: (@Sendable (VaultScope) async throws -> EphemeralVaultKey)? = nil,
                                 configuration: SyncEngine.Configuration? = nil) throws(VaultSyncSetupError)
        -> SyncingVaultProvider {
        guard let access = token.vault else {
            throw VaultSyncSetupError(description: "the client token carries no vault access")
        }
        return try vaultSync(access: access, scope: VaultScope(merchantId: token.merchantId, customerId: token.customerId),
                             store: store, tls: tls, refresh: refresh, configuration: configuration)
    }

    /// `vaultSync(for:)` for a host that holds the vault access and the customer itself (a server minting a customer's
    /// key, as the hosted checkout does) rather than a client token.
    public static func vaultSync(access: VaultAccess, scope: VaultScope, store: VaultStore, tls: TLSOptions = TLSOptions(),
                                 refresh: (@Sendable (VaultScope) async throws -> EphemeralVaultKey)? = nil,
                                 configuration: SyncEngine.Configuration? = nil) throws(VaultSyncSetupError)
        -> SyncingVaultProvider {
        guard let url = URL(string: access.url) else { throw VaultSyncSetupError(description: "vault.url is not a URL") }
        let first = EphemeralVaultKey(secret: access.key, expiresAt: access.expiresAt)
        let handedOut = ManagedFlag()
        let remote = HTTPRemoteVault(baseURL: url, credentials: .ephemeral { requested in
            // The token's key first; after that the host's refresh, or the same key again (the
            // server then answers key-expired, which the engine reports: it does not loop).
            guard handedOut.set(), let refresh else { return first }
            return try await refresh(requested)
        }, tls: tls)
        var settings = configuration ?? SyncEngine.Configuration()
        settings.scopes = [scope]
        settings.includePendingScopes = false
        return SyncingVaultProvider(store: store, engine: SyncEngine(store: store, remote: remote, configuration: settings))
    }
}

/// A flag set once, from any task.
private final class ManagedFlag: Sendable {
    private let value = Locked(false)

    /// Sets the flag; true when it was already set.
    func set() -> Bool {
        value.withLock { value in
            defer { value = true }
            return value
        }
    }
}
