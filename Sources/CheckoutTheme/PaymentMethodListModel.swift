/// What the layout engine needs to know about the payment-method list: how many rows.
///
/// Deliberately content-free (no names, no icons): frames depend on the count alone.
public struct PaymentMethodListModel: Hashable, Sendable {
    /// Number of method rows; 0 shows the empty state.
    public let methodCount: Int

    /// A list with `methodCount` rows (negative counts are treated as 0).
    public init(methodCount: Int) { self.methodCount = max(0, methodCount) }

    /// Whether the empty state replaces the rows.
    public var isEmpty: Bool { methodCount == 0 }
}
