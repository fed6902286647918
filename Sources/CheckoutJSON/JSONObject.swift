/// An ordered JSON object: members in document order, each key once, with keyed lookup.
///
/// Order matters for deterministic error reports; keyed lookup keeps layer merging linear. Small
/// objects (the vast majority) are searched linearly; a key index is built only for big ones.
/// Equality and hashing ignore order, as JSON's object semantics do.
public struct JSONObject: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    /// Objects with more members than this get a hash index.
    private static let indexThreshold = 12

    /// The members in document order (each key once).
    public private(set) var members: [(key: String, value: JSONValue)]
    private var indexByKey: [String: Int]?

    /// An empty object.
    public init() {
        members = []
        indexByKey = nil
    }

    /// An object from ordered pairs; a repeated key keeps its first position and last value.
    public init(_ pairs: [(String, JSONValue)]) {
        self.init()
        members.reserveCapacity(pairs.count)
        for (key, value) in pairs { self[key] = value }
    }

    /// An object from a dictionary, members sorted by key (a dictionary has no order).
    public init(_ dictionary: [String: JSONValue]) {
        self.init(dictionary.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    /// `["a": .number(1)]`, in the literal's order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }

    /// Appends a member the caller knows is new (the reader checks duplicates itself).
    mutating func appendNew(_ key: String, _ value: JSONValue) {
        members.append((key, value))
        if indexByKey != nil {
            indexByKey?[key] = members.count - 1
        } else if members.count > Self.indexThreshold {
            rebuildIndex()
        }
    }

    private func index(of key: String) -> Int? {
        if let indexByKey { return indexByKey[key] }
        return members.firstIndex { $0.key == key }
    }

    /// The value for `key`, or nil. Setting nil removes the member.
    public subscript(key: String) -> JSONValue? {
        get { index(of: key).map { members[$0].value } }
        set {
            if let index = index(of: key) {
                if let newValue {
                    members[index].value = newValue
                } else {
                    members.remove(at: index)
                    rebuildIndex()
                }
            } else if let newValue {
                appendNew(key, newValue)
            }
        }
    }

    private mutating func rebuildIndex() {
        guard members.count > Self.indexThreshold else {
            indexByKey = nil
            return
        }
        var index: [String: Int] = [:]
        index.reserveCapacity(members.count)
        for (position, member) in members.enumerated() { index[member.key] = position }
        indexByKey = index
    }

    /// Whether the object has a member named `key`.
    public func contains(_ key: String) -> Bool { index(of: key) != nil }

    /// The keys in document order.
    public var keys: [String] { members.map(\.key) }

    /// The members as a dictionary (order dropped).
    public var dictionary: [String: JSONValue] {
        var result: [String: JSONValue] = [:]
        result.reserveCapacity(members.count)
        for member in members { result[member.key] = member.value }
        return result
    }

    // MARK: Collection

    public var startIndex: Int { 0 }
    public var endIndex: Int { members.count }
    public subscript(position: Int) -> (key: String, value: JSONValue) { members[position] }

    /// Same keys with equal values, in any order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.count == rhs.members.count && lhs.members.allSatisfy { rhs[$0.key] == $0.value }
    }

    /// Order-independent, consistent with `==`.
    public func hash(into hasher: inout Hasher) {
        var combined = 0
        for member in members {
            var one = Hasher()
            one.combine(member.key)
            one.combine(member.value)
            combined ^= one.finalize()
        }
        hasher.combine(members.count)
        hasher.combine(combined)
    }
}
