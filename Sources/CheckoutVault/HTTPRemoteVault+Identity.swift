import CheckoutCore
import Foundation

/// Merchant binding: `GET /v1/whoami`, asked once per connection epoch and compared with every
/// scope before a request for it is sent.
///
/// **Connection epoch.** An epoch of one credential (the API key, or one ephemeral key of one
/// customer) begins with its first request and lasts until one of these ends it:
/// - the credential changes: every new ephemeral key from the provider (a refresh before expiry,
///   or after `key-expired` / `key-revoked`) starts an epoch of its own;
/// - the server answers 401 of any kind to it;
/// - an exchange fails on the way (`unreachable`, `untrustedServer`): the next request opens a new
///   connection, which may reach another server (a failover, a DNS change), so it checks again.
///
/// The first request of an epoch is preceded by `whoami`; concurrent first requests share one.
/// Until the answer covers the request's scope (`VaultIdentity.check`), nothing is sent for it.
extension HTTPRemoteVault {
    /// The identities confirmed in the current epochs, and the `whoami` calls in flight.
    struct Bindings: Sendable {
        enum Entry: Sendable {
            case confirmed(VaultIdentity)
            case asking(Task<VaultIdentity, any Error>, generation: Int)
        }

        /// By authorization header value: a new credential is a new epoch by construction.
        var entries: [String: Entry] = [:]
        var generation = 0
        var checks = 0
    }

    /// How many times the server was asked `whoami` (once per epoch; for tests and benchmarks).
    public var identityChecks: Int { bindings.withLock { $0.checks } }

    /// Who the credentials used for `scope` belong to: the server's `GET /v1/whoami`, asked once
    /// per connection epoch (see the extension's notes). Throws what a request would throw.
    public func identity(scope: VaultScope) async throws -> VaultIdentity {
        try await withAuthorization(scope) { authorization in
            try await identity(authorization: authorization)
        }
    }

    /// One exchange for `scope`, sent only when the credential's identity covers the scope.
    func boundExchange(_ scope: VaultScope, method: String, path: String, body: [UInt8]?,
                       authorization: String) async throws -> [UInt8] {
        try await identity(authorization: authorization).check(scope)
        do {
            return try await exchange(method: method, path: path, body: body, authorization: authorization)
        } catch let error as RemoteVaultError {
            if Self.endsEpoch(error) { endEpoch(authorization) }
            throw error
        }
    }

    /// The identity confirmed for `authorization` in this epoch, asking the server when there is none.
    private func identity(authorization: String) async throws -> VaultIdentity {
        let task = bindings.withLock { state -> Task<VaultIdentity, any Error> in
            switch state.entries[authorization] {
            case .confirmed(let identity)?:
                return Task { identity }
            case .asking(let task, _)?:
                return task
            case nil:
                state.generation += 1
                state.checks += 1
                let generation = state.generation
                let task = Task { [self] in
                    do {
                        let identity = try await whoami(authorization: authorization)
                        settle(authorization, generation, with: .confirmed(identity))
                        return identity
                    } catch {
                        settle(authorization, generation, with: nil)
                        throw error
                    }
                }
                state.entries[authorization] = .asking(task, generation: generation)
                return task
            }
        }
        return try await awaitShared(task)
    }

    private struct WhoamiBody: Decodable {
        var merchant: String
        var customer: String?
    }

    /// `GET /v1/whoami` with `authorization`.
    private func whoami(authorization: String) async throws -> VaultIdentity {
        let data: [UInt8]
        do {
            data = try await exchange(method: "GET", path: "/v1/whoami", body: nil, authorization: authorization)
        } catch RemoteVaultError.httpStatus(404, _, _, _) {
            // A server from before merchant binding: syncing blind could cross merchants.
            throw RemoteVaultError.misconfigured(reason: "the vault server does not answer GET /v1/whoami (it is older than "
                                                 + "this client), so the key's merchant cannot be checked")
        }
        let body = try Self.decode(WhoamiBody.self, from: data)
        guard !body.merchant.isEmpty, body.customer.map({ !$0.isEmpty }) ?? true else {
            throw RemoteVaultError.malformedResponse(reason: "whoami named an empty merchant or customer")
        }
        if case .ephemeral = credentials, body.customer == nil {
            throw RemoteVaultError.malformedResponse(reason: "whoami named no customer for an ephemeral key")
        }
        return VaultIdentity(merchant: body.merchant, customer: body.customer)
    }

    /// Ends the epoch of `authorization`: its next request asks `whoami` again.
    func endEpoch(_ authorization: String) {
        bindings.withLock { state in
            if case .confirmed? = state.entries[authorization] { state.entries[authorization] = nil }
        }
    }

    /// Failures after which the next request must confirm the identity again.
    static func endsEpoch(_ error: RemoteVaultError) -> Bool {
        switch error {
        case .unauthorized, .keyExpired, .keyRevoked, .unreachable, .untrustedServer: return true
        default: return false
        }
    }

    private func settle(_ authorization: String, _ generation: Int, with entry: Bindings.Entry?) {
        bindings.withLock { state in
            guard case .asking(_, let current)? = state.entries[authorization], current == generation else { return }
            state.entries[authorization] = entry
            // Ephemeral keys are replaced over time and their old entries would pile up: past the
            // bound, every other confirmed epoch ends (each next request of theirs asks again).
            if state.entries.count > Self.maxBindings {
                state.entries = state.entries.filter { key, value in
                    if key == authorization { return true }
                    if case .asking = value { return true }
                    return false
                }
            }
        }
    }

    /// The most credentials whose identity is kept at once (one per customer with ephemeral keys).
    static let maxBindings = 1024
}
