/// What the layout engine needs to know about the vaulted (saved) methods list.
///
/// Row count and whether the selected method needs its CVV re-entered, which adds the managed CVV field;
/// optionally what each row shows (masked: network, last four digits, expiry), which never moves a frame.
public struct VaultedListModel: Hashable, Sendable {
    /// Number of saved-method rows; 0 shows the empty state (and no CVV field or button).
    public let count: Int
    /// Whether CVV recapture is required for the selected method.
    public let requiresCvvRecapture: Bool
    /// What each row shows, when known (`items.count == count`).
    public let items: [VaultedRowContent]

    /// A vaulted list (negative counts are treated as 0).
    public init(count: Int, requiresCvvRecapture: Bool = false) {
        self.count = max(0, count)
        self.requiresCvvRecapture = requiresCvvRecapture
        items = []
    }

    /// A vaulted list showing `items`.
    public init(items: [VaultedRowContent], requiresCvvRecapture: Bool = false) {
        count = items.count
        self.requiresCvvRecapture = requiresCvvRecapture
        self.items = items
    }

    /// Whether the empty state replaces the rows.
    public var isEmpty: Bool { count == 0 }
}

/// What one saved-method row shows: masked facts only, never a card number.
public struct VaultedRowContent: Hashable, Sendable {
    /// The network's display name, e.g. `Visa`.
    public let network: String
    /// The last four digits.
    public let last4: String
    /// The expiry as shown, e.g. `12/30`; nil when not a card.
    public let expiry: String?
    /// Whether this is the customer's default method.
    public let isDefault: Bool

    /// Creates a row's content; `last4` keeps at most its last four characters.
    public init(network: String, last4: String, expiry: String? = nil, isDefault: Bool = false) {
        self.network = network
        self.last4 = String(last4.suffix(4))
        self.expiry = expiry
        self.isDefault = isDefault
    }
}
