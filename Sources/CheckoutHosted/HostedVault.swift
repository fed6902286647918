import CheckoutKit
import CheckoutLocking
import Foundation

/// The customers' saved methods for the hosted checkout: a local vault store that syncs with the vault service.
///
/// The hosted checkout holds the merchants' API keys (the vault service's own `KEY:MERCHANT` lines) only to mint,
/// per customer, a short-lived ephemeral key scoped to that customer; the sync of that customer's methods runs with
/// that key alone, as a device's would. A customer's link is made when one of their checkouts first needs it and
/// kept until its key is close to expiry (then re-minted).
public final class HostedVault: Sendable {
    struct Link: Sendable {
        let provider: SyncingVaultProvider
        let access: VaultAccess
    }

    let remote: URL
    let tls: TLSOptions
    let store: VaultStore
    private let keys: [String: String]
    private let links = Locked<[VaultScope: Link]>([:])
    private let keyLifetime: Int

    /// A vault for the merchants of `apiKeys` (key -> merchant; `sha256:` entries cannot mint and are skipped),
    /// syncing `store` with the vault service at `remote`.
    public init(remote: URL, tls: TLSOptions = TLSOptions(), store: VaultStore, apiKeys: [String: String], keyLifetimeSeconds: Int = 900) {
        self.remote = remote
        self.tls = tls
        self.store = store
        var keys: [String: String] = [:]
        for (key, merchant) in apiKeys.sorted(by: { $0.key < $1.key }) where !key.hasPrefix("sha256:") && keys[merchant] == nil {
            keys[merchant] = key
        }
        self.keys = keys
        keyLifetime = keyLifetimeSeconds
    }

    /// The customer's provider and the vault access a client token carries, minting a key when needed.
    func link(for scope: VaultScope, now: Date) async throws -> Link {
        if let link = links.withLock({ $0[scope] }), link.access.expiresAt.timeIntervalSince(now) > 60 { return link }
        guard let apiKey = keys[scope.merchantId] else {
            throw CheckoutError(.invalidConfiguration, "no usable API key for merchant \(scope.merchantId)")
        }
        let backend = HTTPRemoteVault(baseURL: remote, apiKey: apiKey, timeout: 5, resourceTimeout: 15, tls: tls)
        let lifetime = keyLifetime
        let minted = try await backend.createEphemeralKey(customerId: scope.customerId, ttlSeconds: lifetime)
        let access = VaultAccess(url: remote.absoluteString, key: minted.secret, expiresAt: minted.expiresAt)
        let provider = try CheckoutKit.vaultSync(access: access, scope: scope, store: store, tls: tls, refresh: { requested in
            try await backend.createEphemeralKey(customerId: requested.customerId, ttlSeconds: lifetime).vaultKey
        }, configuration: SyncEngine.Configuration(interval: nil))
        _ = try await provider.engine.syncNow(scope: scope)
        let link = Link(provider: provider, access: access)
        links.withLock { links in
            // Bounded: a flood of customers starts the table over (links are re-made on demand).
            if links.count >= 10_000 { links.removeAll(keepingCapacity: true) }
            links[scope] = link
        }
        return link
    }

    /// Pushes and pulls the customer's changes now.
    func sync(_ scope: VaultScope, now: Date) async {
        guard let link = try? await link(for: scope, now: now) else { return }
        _ = try? await link.provider.engine.syncNow(scope: scope)
    }
}

extension HostedCheckoutServer {
    func scope(_ checkout: HostedCheckout) -> VaultScope {
        VaultScope(merchantId: checkout.merchant, customerId: checkout.request.customer)
    }

    /// A ready session for one attempt on `checkout`: its amount, currency and customer, its vault link, and the
    /// card form's "save this card" in its client token.
    func session(for checkout: HostedCheckout, saveCard: Bool) async throws -> CheckoutSession {
        // `create` refuses an authorize-only checkout when the processor cannot hold authorizations.
        guard let processor = checkout.request.capture ? payments.automatic : payments.authorizeOnly else {
            throw CheckoutError(.invalidConfiguration, "this processor cannot authorize without capturing")
        }
        let now = clock.now
        let link = try? await vault?.link(for: scope(checkout), now: now)
        var token = CheckoutKit.sandboxClientToken(configuration: defaults.configuration, merchantId: checkout.merchant,
                                                   customerId: checkout.request.customer, amount: checkout.request.amount,
                                                   currency: checkout.request.currency.code,
                                                   lifetime: max(60, checkout.expiresAt.timeIntervalSince(now)), now: now,
                                                   vault: link?.access)
        for index in token.paymentMethods.indices where token.paymentMethods[index].type == .paymentCard {
            token.paymentMethods[index].options.vaultOnSuccess = saveCard && link != nil
        }
        let session = CheckoutSession(clientToken: token.encoded(), configuration: defaults.configuration, registry: registry,
                                      processor: processor, vault: link?.provider, clock: clock,
                                      idempotencyKey: { SafeIdentifier.random() }, strings: defaults.strings)
        await session.start()
        guard session.phase == .ready else {
            session.dismiss()
            throw CheckoutError(.notReady, "the checkout session did not become ready")
        }
        return session
    }

    /// The customer's saved methods (none without a vault, or when the vault cannot be reached).
    func savedMethods(_ checkout: HostedCheckout) async -> [VaultedPaymentMethod] {
        guard let vault, let link = try? await vault.link(for: scope(checkout), now: clock.now) else { return [] }
        return (try? await link.provider.paymentMethods(for: scope(checkout))) ?? []
    }

    func deleteSaved(_ checkout: HostedCheckout, id: String) async {
        guard let vault, let link = try? await vault.link(for: scope(checkout), now: clock.now) else { return }
        try? await link.provider.delete(id: id, for: scope(checkout))
        await vault.sync(scope(checkout), now: clock.now)
    }

    func setDefault(_ checkout: HostedCheckout, id: String) async {
        guard let vault, let link = try? await vault.link(for: scope(checkout), now: clock.now) else { return }
        try? await link.provider.setDefault(id: id, for: scope(checkout))
        await vault.sync(scope(checkout), now: clock.now)
    }

    func syncVault(_ checkout: HostedCheckout) async {
        await vault?.sync(scope(checkout), now: clock.now)
    }
}
