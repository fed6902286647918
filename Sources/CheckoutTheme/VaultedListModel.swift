import CheckoutCore

/// What the layout engine needs to know about the vaulted (saved) methods list.
///
/// Row count, which row is selected, and whether the selected method needs its CVV re-entered, which
/// adds the managed CVV field right under it; optionally what each row shows (masked: network, last
/// four digits, expiry), which never moves a frame.
public struct VaultedListModel: Hashable, Sendable {
    /// Number of saved-method rows; 0 shows the empty state (and no CVV field or button).
    public let count: Int
    /// Whether CVV recapture is required for the selected method.
    public let requiresCvvRecapture: Bool
    /// What each row shows, when known (`items.count == count`).
    public let items: [VaultedRowContent]
    /// The selected row (clamped to the rows): the CVV field, when asked for, sits right under it.
    public let selectedIndex: Int

    /// A vaulted list (negative counts are treated as 0).
    public init(count: Int, requiresCvvRecapture: Bool = false, selectedIndex: Int = 0) {
        self.count = max(0, count)
        self.requiresCvvRecapture = requiresCvvRecapture
        items = []
        self.selectedIndex = min(max(0, selectedIndex), max(0, count - 1))
    }

    /// A vaulted list showing `items`.
    public init(items: [VaultedRowContent], requiresCvvRecapture: Bool = false, selectedIndex: Int = 0) {
        count = items.count
        self.requiresCvvRecapture = requiresCvvRecapture
        self.items = items
        self.selectedIndex = min(max(0, selectedIndex), max(0, items.count - 1))
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
    /// The network's own name for its security code (`CVV`, `CVC`, `CID`: the card network table's
    /// `securityCode.name`), which the CVV field of this card shows; nil when not a card.
    public let securityCodeName: String?
    /// How many digits that code has (3, or 4 for AMEX: the table's `securityCode.length`); nil when not a card.
    public let securityCodeLength: Int?
    /// For an external wallet account (a PayPal agreement), the account it pays from: the payer's email, else
    /// their name; shown instead of digits. Nil for cards.
    public let account: String?

    /// Creates a row's content; `last4` keeps at most its last four characters.
    public init(network: String, last4: String, expiry: String? = nil, isDefault: Bool = false, securityCodeName: String? = nil,
                securityCodeLength: Int? = nil, account: String? = nil) {
        self.network = network
        self.last4 = String(last4.suffix(4))
        self.expiry = expiry
        self.isDefault = isDefault
        self.securityCodeName = securityCodeName
        self.securityCodeLength = securityCodeLength
        self.account = account
    }

    /// The CVV field's visible label for this card: the network's code name, else the generic localized one.
    public func securityCodeLabel(_ strings: LocalizedStrings) -> String {
        securityCodeName ?? strings.text(SlotTextKey.fieldLabel(.cvv))
    }
}
