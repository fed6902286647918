/// The bounds a document must stay within: what keeps a hostile input from exhausting the stack
/// or memory of whoever reads it.
public struct JSONLimits: Sendable, Equatable {
    /// The deepest array/object nesting accepted (at most 512, whatever is asked: the reader recurses).
    public var maximumDepth: Int
    /// The longest document accepted, in bytes.
    public var maximumBytes: Int
    /// The most values (scalars, arrays and objects, keys not counted) a document may hold.
    public var maximumValues: Int

    /// The hard ceiling on `maximumDepth`.
    public static let depthCeiling = 512

    /// Limits; the defaults fit configuration files, tokens and wire bodies.
    public init(maximumDepth: Int = 64, maximumBytes: Int = 64 << 20, maximumValues: Int = 10_000_000) {
        self.maximumDepth = min(max(maximumDepth, 0), Self.depthCeiling)
        self.maximumBytes = max(maximumBytes, 0)
        self.maximumValues = max(maximumValues, 0)
    }

    /// The defaults.
    public static let standard = JSONLimits()
}
