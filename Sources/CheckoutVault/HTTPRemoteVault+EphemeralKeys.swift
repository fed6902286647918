import CheckoutCore
import Foundation

/// An ephemeral customer key as the vault server minted it (`POST .../ephemeral-keys`).
///
/// Hand `secret` and `expiresAt` to the device (as an `EphemeralVaultKey`); keep `id` to revoke
/// it. Its `description`, `dump` and mirror never show the secret.
public struct IssuedEphemeralKey: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
                                  CustomReflectable {
    /// The public id, for revocation.
    public let id: String
    /// The bearer secret: shown once, stored by the server only as a hash.
    public let secret: String
    /// The customer the key is for.
    public let customer: String
    /// When the server stops accepting it.
    public let expiresAt: Date
    /// `read` or `read-write`.
    public let scope: String

    /// Creates an issued key.
    public init(id: String, secret: String, customer: String, expiresAt: Date, scope: String) {
        self.id = id
        self.secret = secret
        self.customer = customer
        self.expiresAt = expiresAt
        self.scope = scope
    }

    /// The key as a device's `VaultCredentials.ephemeral` provider returns it.
    public var vaultKey: EphemeralVaultKey { EphemeralVaultKey(secret: secret, expiresAt: expiresAt, id: id) }

    public var description: String { "IssuedEphemeralKey(id: \(id), customer: \(customer), scope: \(scope), expiresAt: \(expiresAt))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["id": id, "secret": "•••", "customer": customer, "expiresAt": expiresAt, "scope": scope])
    }
}

extension HTTPRemoteVault {
    private struct MintedKey: Decodable {
        var id: String
        var secret: String
        var customer: String
        var expiresAt: String
        var scope: String
    }

    /// Mints an ephemeral key for one customer of the merchant (`POST
    /// /v1/customers/{customer}/ephemeral-keys`), valid for `ttlSeconds` (at most 24 h), read-only
    /// when asked. Takes a remote built with the merchant's API key: this is what a backend does
    /// for a device, which then syncs with `VaultCredentials.ephemeral` and never sees the
    /// merchant key.
    public func createEphemeralKey(customerId: String, ttlSeconds: Int = 3600, readOnly: Bool = false) async throws
        -> IssuedEphemeralKey {
        let authorization = try merchantAuthorization()
        let body = Array("{\"ttlSeconds\":\(ttlSeconds),\"scope\":\"\(readOnly ? "read" : "read-write")\"}".utf8)
        let path = customerPath(VaultScope(merchantId: "", customerId: customerId)) + "/ephemeral-keys"
        let data = try await exchange(method: "POST", path: path, body: body, authorization: authorization)
        let minted = try Self.decode(MintedKey.self, from: data)
        guard let expiresAt = ISO8601DateFormatter().date(from: minted.expiresAt) else {
            throw RemoteVaultError.malformedResponse(reason: "expiresAt is not an ISO 8601 time")
        }
        return IssuedEphemeralKey(id: minted.id, secret: minted.secret, customer: minted.customer, expiresAt: expiresAt,
                                  scope: minted.scope)
    }

    /// Revokes an ephemeral key of the merchant (`DELETE /v1/ephemeral-keys/{id}`): the server
    /// answers `key-revoked` to it from then on. Revoking twice is harmless.
    public func revokeEphemeralKey(id: String) async throws {
        let authorization = try merchantAuthorization()
        _ = try await exchange(method: "DELETE", path: "/v1/ephemeral-keys/" + Self.percentEncoded(id), body: nil,
                               authorization: authorization)
    }

    private func merchantAuthorization() throws -> String {
        guard case .apiKey(let authorization) = credentials else {
            throw RemoteVaultError.credentialsUnavailable(reason: "minting and revoking ephemeral keys takes the merchant's API key")
        }
        return authorization
    }
}
