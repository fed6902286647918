import CheckoutCore

/// One entry of the remote vault's change feed, as the sync engine hands it to the store:
/// the latest state of an instrument, or its tombstone.
public struct RemoteChange: Sendable, Equatable {
    /// The instrument's token.
    public var token: String
    /// The server version after this change (monotonic per instrument).
    public var version: Int64
    /// The instrument's data; nil for a tombstone.
    public var method: VaultedPaymentMethod?

    /// True for a tombstone (the instrument was deleted on the server).
    public var isDeleted: Bool { method == nil }

    /// A created or edited instrument at `version`.
    public static func upsert(_ method: VaultedPaymentMethod, version: Int64) -> RemoteChange {
        RemoteChange(token: method.id, version: version, method: method)
    }

    /// A deleted instrument at `version`.
    public static func delete(token: String, version: Int64) -> RemoteChange {
        RemoteChange(token: token, version: version, method: nil)
    }

    /// Creates a change; prefer `upsert` and `delete`.
    public init(token: String, version: Int64, method: VaultedPaymentMethod?) {
        self.token = token
        self.version = version
        self.method = method
    }
}
