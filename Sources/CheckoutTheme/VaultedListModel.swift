/// What the layout engine needs to know about the vaulted (saved) methods list.
///
/// Row count and whether the selected method needs its CVV re-entered, which adds the managed CVV field.
public struct VaultedListModel: Hashable, Sendable {
    /// Number of saved-method rows; 0 shows the empty state (and no CVV field or button).
    public let count: Int
    /// Whether CVV recapture is required for the selected method.
    public let requiresCvvRecapture: Bool

    /// A vaulted list (negative counts are treated as 0).
    public init(count: Int, requiresCvvRecapture: Bool = false) {
        self.count = max(0, count)
        self.requiresCvvRecapture = requiresCvvRecapture
    }

    /// Whether the empty state replaces the rows.
    public var isEmpty: Bool { count == 0 }
}
