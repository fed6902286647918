import CheckoutCore
import Foundation

/// How `HTTPRemoteVault` authenticates to the vault server.
///
/// A backend holds the merchant's API key (`.apiKey`). A device never does: it gets short-lived,
/// customer-scoped ephemeral keys from its own backend (`.ephemeral`), which mints them with the
/// merchant key (`POST /v1/customers/{customer}/ephemeral-keys`). The remote asks the provider
/// for a key when it has none for a customer, shortly before the key expires, and once more
/// when the server answers `key-expired` or `key-revoked`; it never asks in a loop.
///
/// ```swift
/// let remote = HTTPRemoteVault(baseURL: vaultURL, credentials: .ephemeral { scope in
///     try await myBackend.vaultKey(for: scope.customerId)   // your backend's endpoint
/// })
/// ```
public enum VaultCredentials: Sendable {
    /// A merchant API key: reads and writes every customer of the merchant. Backends only.
    case apiKey(String)
    /// Ephemeral customer keys from a provider the host supplies (typically a call to its backend).
    case ephemeral(@Sendable (VaultScope) async throws -> EphemeralVaultKey)
}

/// A short-lived key for one customer's vault, as the vault server minted it.
///
/// Its `description`, `dump` and mirror never show the secret.
public struct EphemeralVaultKey: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
                                 CustomReflectable {
    /// The bearer secret (`Authorization: Bearer <secret>`).
    public let secret: String
    /// When the server stops accepting it.
    public let expiresAt: Date
    /// The key's public id (to revoke it), when known.
    public let id: String?

    /// Creates a key from what the server's mint answer holds.
    public init(secret: String, expiresAt: Date, id: String? = nil) {
        self.secret = secret
        self.expiresAt = expiresAt
        self.id = id
    }

    public var description: String { "EphemeralVaultKey(id: \(id ?? "unknown"), expiresAt: \(expiresAt))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["id": id as Any, "secret": "•••", "expiresAt": expiresAt]) }
}
