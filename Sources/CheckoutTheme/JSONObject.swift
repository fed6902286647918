/// An ordered JSON object: members in document order, with keyed lookup.
///
/// Order matters for deterministic error reports; keyed lookup keeps layer merging linear. Small objects
/// (the vast majority: tokens and their values) are searched linearly; a key index is built only for big ones.
public struct JSONObject: Sendable, Equatable {
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
        for (key, value) in pairs { self[key] = value }
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
                members.append((key, newValue))
                if indexByKey != nil {
                    indexByKey?[key] = members.count - 1
                } else if members.count > Self.indexThreshold {
                    rebuildIndex()
                }
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

    /// Members compare equal in order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.count == rhs.members.count
            && zip(lhs.members, rhs.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
}
