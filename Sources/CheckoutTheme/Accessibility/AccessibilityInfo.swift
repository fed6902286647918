/// What assistive technology says about one slot: its label, a hint about what activating it does,
/// and its role. Localized: built from `Config/strings/<locale>.json`.
///
/// `label` is e.g. "Visa ending in 4242, expires 12/30, default" or "Card number, invalid: Enter a valid
/// card number"; it never holds a card number (saved cards show their last four digits only).
public struct AccessibilityInfo: Hashable, Sendable, Encodable {
    /// What the element is, read first.
    public let label: String
    /// What it does or what to enter, read after a pause.
    public let hint: String
    /// The element's kind.
    public let role: AccessibilityRole

    /// Creates accessibility information.
    public init(label: String, hint: String, role: AccessibilityRole) {
        self.label = label
        self.hint = hint
        self.role = role
    }

    private enum CodingKeys: String, CodingKey { case label, hint, role }

    /// The form printed by `checkout layout --json`: `{"label", "hint", "role"}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(label, forKey: .label)
        try container.encode(hint, forKey: .hint)
        try container.encode(role.rawValue, forKey: .role)
    }
}
