/// Identifies whose vault an operation touches: one customer of one merchant.
public struct VaultScope: Hashable, Sendable, CustomStringConvertible {
    /// The merchant (tenant).
    public let merchantId: String
    /// The shopper.
    public let customerId: String

    public init(merchantId: String, customerId: String) {
        self.merchantId = merchantId
        self.customerId = customerId
    }

    public var description: String { "\(merchantId)/\(customerId)" }
}

/// The core's only view of saved payment methods.
///
/// Sessions read and change the vault through this protocol and never know whether it is the
/// SQLite store with background sync (`CheckoutVault.VaultStore`), a remote service, or the
/// `InMemoryVaultProvider`. Implementations must reject anything that looks like a full card
/// number with `CheckoutError.Code.sensitiveDataRejected`.
public protocol VaultProvider: Sendable {
    /// The customer's saved methods: default first, then most recently used.
    func paymentMethods(for scope: VaultScope) async throws -> [VaultedPaymentMethod]
    /// Saves (inserts or replaces) an instrument.
    func save(_ method: VaultedPaymentMethod, for scope: VaultScope) async throws
    /// Removes an instrument. Removing an unknown id is not an error.
    func delete(id: String, for scope: VaultScope) async throws
    /// Makes `id` the only default method of the customer.
    func setDefault(id: String, for scope: VaultScope) async throws
    /// Records that the instrument was just used (it moves up the list).
    func markUsed(id: String, for scope: VaultScope) async throws
}
