/// One processor's map from raw codes to `DeclineCategory`, loaded from data
/// (`Config/declines/*.json` or a processor's `declineTable` object in the routing file).
///
/// Format: `{ "codes": { "05": "hard-decline", "59": "suspected-fraud" }, "default": "processor-error" }`.
/// `default` is required: a raw code the table does not list gets it, explicitly, never silently.
public struct DeclineTable: Sendable, Equatable {
    /// Raw code -> category.
    public var codes: [String: DeclineCategory]
    /// The category of a raw code not in `codes`.
    public var defaultCategory: DeclineCategory

    public init(codes: [String: DeclineCategory], defaultCategory: DeclineCategory) {
        self.codes = codes
        self.defaultCategory = defaultCategory
    }

    /// The category of a raw code.
    public func category(for rawCode: String) -> DeclineCategory {
        codes[rawCode] ?? defaultCategory
    }
}
