/// The members a pull reader has already read in one object, so a repeated member is refused
/// (`JSONScanner.readObject` hands every member over as it comes and keeps no set of keys).
///
/// Each member the reader knows gets one bit: `try seen.first(1 << 3)` before reading it.
///
///     var seen = JSONMemberSet()
///     try scanner.readObject { scanner, key throws(JSONScanner.Failure) in
///         switch key {
///         case "id": try seen.first(1); id = try scanner.readString()
///         default: try scanner.skipUnknownValue()
///         }
///     }
public struct JSONMemberSet: Sendable {
    private var bits = 0

    /// An object with no member read yet.
    public init() {}

    /// Records the member of `bit`; throws `JSONScanner.Failure` when it was read before.
    @inlinable
    public mutating func first(_ bit: Int) throws(JSONScanner.Failure) {
        guard !contains(bit) else { throw JSONScanner.Failure() }
        insert(bit)
    }

    @usableFromInline func contains(_ bit: Int) -> Bool { bits & bit != 0 }
    @usableFromInline mutating func insert(_ bit: Int) { bits |= bit }
}
