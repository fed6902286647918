import CheckoutCore

/// Who the vault server says a credential belongs to: its answer to `GET /v1/whoami`.
///
/// The server scopes every call by the merchant behind the key, whatever the client believes, so
/// a client holding merchant A's key and a local scope of merchant X would store X's cards under
/// A (and pull A's cards into X). The sync engine and `HTTPRemoteVault` therefore compare the
/// identity with every scope before sending anything: `check(_:)` throws
/// `RemoteVaultError.merchantMismatch` for a scope of another merchant, or, with an ephemeral
/// key, of another customer.
public struct VaultIdentity: Sendable, Equatable, CustomStringConvertible {
    /// The merchant every call made with the credential reads and writes.
    public var merchant: String
    /// For an ephemeral customer key, the one customer it reaches; nil for a merchant API key.
    public var customer: String?

    /// Creates an identity.
    public init(merchant: String, customer: String? = nil) {
        self.merchant = merchant
        self.customer = customer
    }

    /// True when calls for `scope` made with this credential reach exactly `scope`'s data.
    /// Compared byte for byte (ids are not Unicode-normalised anywhere on the wire).
    public func covers(_ scope: VaultScope) -> Bool {
        guard merchant.utf8.elementsEqual(scope.merchantId.utf8) else { return false }
        return customer.map { $0.utf8.elementsEqual(scope.customerId.utf8) } ?? true
    }

    /// Throws `RemoteVaultError.merchantMismatch` unless the credential reaches exactly `scope`.
    public func check(_ scope: VaultScope) throws(RemoteVaultError) {
        guard covers(scope) else { throw RemoteVaultError.merchantMismatch(credential: self, scope: scope) }
    }

    /// `merchant m` or `merchant m, customer c`.
    public var description: String {
        "merchant \(merchant)" + (customer.map { ", customer \($0)" } ?? "")
    }
}
