import CheckoutJSON
/// One resolved token with the metadata the file gave it.
///
/// `$description`, `$deprecated` and `$extensions` are kept (extensions verbatim, even unknown ones)
/// so tooling built on the resolver loses nothing.
public struct ResolvedToken: Hashable, Sendable {
    /// The dotted path, e.g. `space.medium`.
    public let path: String
    /// The resolved value.
    public let value: TokenValue
    /// The token's `$description`, if any.
    public let description: String?
    /// The token's `$deprecated`: nil when absent; `.bool(true)` or `.string(reason)` when deprecated.
    public let deprecated: JSONValue?
    /// The token's `$extensions`, verbatim.
    public let extensions: JSONValue?

    /// Creates a resolved token.
    public init(path: String, value: TokenValue, description: String? = nil, deprecated: JSONValue? = nil, extensions: JSONValue? = nil) {
        self.path = path
        self.value = value
        self.description = description
        self.deprecated = deprecated
        self.extensions = extensions
    }

    /// The value's type.
    public var type: TokenType { value.type }

    /// Hashes the path and value (metadata is carried, not identity).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(path)
        hasher.combine(value)
    }
}
