/// What the layout engine needs to know about the payment-method list: how many rows, and
/// optionally what each row shows (for its accessibility label and for previews).
///
/// Frames depend on the count alone; `rows` never moves a frame.
public struct PaymentMethodListModel: Hashable, Sendable {
    /// Number of method rows; 0 shows the empty state.
    public let methodCount: Int
    /// What each row shows, when known (`rows.count == methodCount`); empty for a content-free layout.
    public let rows: [PaymentMethodRowContent]
    /// Whether a search field (`search`: the field and its button) sits between the header and the rows.
    public let showsSearch: Bool

    /// A list with `methodCount` rows (negative counts are treated as 0).
    public init(methodCount: Int, showsSearch: Bool = false) {
        self.methodCount = max(0, methodCount)
        rows = []
        self.showsSearch = showsSearch
    }

    /// A list showing `rows`.
    public init(rows: [PaymentMethodRowContent], showsSearch: Bool = false) {
        methodCount = rows.count
        self.rows = rows
        self.showsSearch = showsSearch
    }

    /// Whether the empty state replaces the rows.
    public var isEmpty: Bool { methodCount == 0 }
}

/// What one payment-method row shows: the method's name and its surcharge, already formatted for
/// the shopper's locale (`+ €1,50`).
public struct PaymentMethodRowContent: Hashable, Sendable {
    /// The method's display name, e.g. `PayPal`.
    public let name: String
    /// The formatted surcharge, nil when there is none.
    public let surcharge: String?

    /// Creates a row's content.
    public init(name: String, surcharge: String? = nil) {
        self.name = name
        self.surcharge = surcharge
    }
}
