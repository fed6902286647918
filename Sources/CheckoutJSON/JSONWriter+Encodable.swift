#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension JSONWriter {
    /// Any `Encodable` as JSON text, with the conventions of Foundation's `JSONEncoder` defaults
    /// (dates as their reference-date seconds, `Data` as Base64, `URL` as its absolute string,
    /// nil optionals left out) and the writer's bytes. Integers keep every digit.
    ///
    /// Throws `EncodingError.invalidValue` for a number that is not finite.
    public static func encode<T: Encodable>(_ value: T, options: Options = [.sortedKeys]) throws -> [UInt8] {
        let root = EncodingSlot()
        try root.store(value, path: [])
        var output: [UInt8] = []
        output.reserveCapacity(128)
        append(root.node(), to: &output, options: options)
        return output
    }

    /// `encode(_:options:)` as a `String`.
    public static func encodeString<T: Encodable>(_ value: T, options: Options = [.sortedKeys]) throws -> String {
        String(decoding: try encode(value, options: options), as: UTF8.self)
    }

    fileprivate static func append(_ node: EncodedNode, to output: inout [UInt8], options: Options) {
        switch node {
        case .literal(let text): output.append(contentsOf: text.utf8)
        case .string(let text): appendString(text, to: &output, options: options)
        case .array(let items):
            appendArray(items, to: &output) { item, output in append(item, to: &output, options: options) }
        case .object(let members):
            appendObject(members, to: &output, options: options) { value, output in append(value, to: &output, options: options) }
        }
    }
}

/// A finished value: `literal` is `null`, `true`, `false` or a number's text.
private enum EncodedNode {
    case literal(String)
    case string(String)
    case array([EncodedNode])
    case object([(key: String, value: EncodedNode)])
}

/// Where one value is being built. Containers hand out references to their parts, as `Encoder`
/// requires (a nested container keeps writing into its parent after it is returned).
private final class EncodingSlot {
    enum Content {
        case empty
        case node(EncodedNode)
        case object(ObjectBuilder)
        case array(ArrayBuilder)
    }
    var content = Content.empty

    func node() -> EncodedNode {
        switch content {
        case .empty: .object([])  // as JSONEncoder: a value that encoded nothing is {}
        case .node(let node): node
        case .object(let builder): builder.node()
        case .array(let builder): builder.node()
        }
    }

    func objectBuilder() -> ObjectBuilder {
        if case .object(let builder) = content { return builder }
        let builder = ObjectBuilder()
        content = .object(builder)
        return builder
    }

    func arrayBuilder() -> ArrayBuilder {
        if case .array(let builder) = content { return builder }
        let builder = ArrayBuilder()
        content = .array(builder)
        return builder
    }

    func store<T: Encodable>(_ value: T, path: [any CodingKey]) throws {
        if let special = try Self.special(value, path: path) {
            content = .node(special)
        } else {
            try value.encode(to: SlotEncoder(slot: self, codingPath: path))
        }
    }

    /// The types `JSONEncoder` writes by its own rules rather than their `encode(to:)`.
    static func special<T: Encodable>(_ value: T, path: [any CodingKey]) throws -> EncodedNode? {
        switch value {
        case let number as Double: return .literal(try finite(JSONWriter.numberText(number), number, path))
        case let number as Float: return .literal(try finite(JSONWriter.numberText(number), number, path))
        case let data as Data: return .string(data.base64EncodedString())
        case let url as URL: return .string(url.absoluteString)
        case let decimal as Decimal: return .literal(decimal.description)
        default: return nil
        }
    }

    static func finite(_ text: String?, _ value: Any, _ path: [any CodingKey]) throws -> String {
        guard let text else {
            throw EncodingError.invalidValue(value, .init(codingPath: path, debugDescription: "a number that is not finite has no JSON form"))
        }
        return text
    }
}

private final class ObjectBuilder {
    var keys: [String] = []
    var slots: [String: EncodingSlot] = [:]

    func slot(_ key: String) -> EncodingSlot {
        if let existing = slots[key] { return existing }
        let slot = EncodingSlot()
        keys.append(key)
        slots[key] = slot
        return slot
    }

    func node() -> EncodedNode {
        .object(keys.compactMap { key in slots[key].map { (key: key, value: $0.node()) } })
    }
}

private final class ArrayBuilder {
    var slots: [EncodingSlot] = []

    func append() -> EncodingSlot {
        let slot = EncodingSlot()
        slots.append(slot)
        return slot
    }

    func node() -> EncodedNode { .array(slots.map { $0.node() }) }
}

private struct SuperKey: CodingKey {
    var stringValue: String { "super" }
    var intValue: Int? { nil }
    init() {}
    init?(intValue: Int) { nil }
    init?(stringValue: String) { nil }
}

private struct SlotEncoder: Encoder {
    let slot: EncodingSlot
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(KeyedSlotContainer<Key>(builder: slot.objectBuilder(), codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        UnkeyedSlotContainer(builder: slot.arrayBuilder(), codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleSlotContainer(slot: slot, codingPath: codingPath) }
}

private func literal<T: BinaryInteger>(_ value: T) -> EncodedNode { .literal(String(value)) }

private struct SingleSlotContainer: SingleValueEncodingContainer {
    let slot: EncodingSlot
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { slot.content = .node(.literal("null")) }
    mutating func encode(_ value: Bool) throws { slot.content = .node(.literal(value ? "true" : "false")) }
    mutating func encode(_ value: String) throws { slot.content = .node(.string(value)) }
    mutating func encode(_ value: Int) throws { slot.content = .node(literal(value)) }
    mutating func encode(_ value: Int8) throws { slot.content = .node(literal(value)) }
    mutating func encode(_ value: Int16) throws { slot.content = .node(literal(value)) }
    mutating func encode(_ value: Int32) throws { slot.content = .node(literal(value)) }
    mutating func encode(_ value: Int64) throws { slot.content = .node(literal(value)) }
    mutating func encode(_ value: UInt) throws { slot.content = .node(literal(value)) }
    mutating func encode(_ value: UInt8) throws { slot.content = .node(literal(value)) }
    mutating func encode(_ value: UInt16) throws { slot.content = .node(literal(value)) }
    mutating func encode(_ value: UInt32) throws { slot.content = .node(literal(value)) }
    mutating func encode(_ value: UInt64) throws { slot.content = .node(literal(value)) }
    mutating func encode(_ value: Double) throws { try slot.store(value, path: codingPath) }
    mutating func encode(_ value: Float) throws { try slot.store(value, path: codingPath) }
    mutating func encode<T: Encodable>(_ value: T) throws { try slot.store(value, path: codingPath) }
}

private struct KeyedSlotContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let builder: ObjectBuilder
    let codingPath: [any CodingKey]

    private func single(_ key: Key) -> SingleSlotContainer {
        SingleSlotContainer(slot: builder.slot(key.stringValue), codingPath: codingPath + [key])
    }

    mutating func encodeNil(forKey key: Key) throws { var one = single(key); try one.encodeNil() }
    mutating func encode(_ value: Bool, forKey key: Key) throws { var one = single(key); try one.encode(value) }
    mutating func encode(_ value: String, forKey key: Key) throws { var one = single(key); try one.encode(value) }
    mutating func encode(_ value: Int, forKey key: Key) throws { var one = single(key); try one.encode(value) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { var one = single(key); try one.encode(value) }
    mutating func encode(_ value: Double, forKey key: Key) throws { var one = single(key); try one.encode(value) }
    mutating func encode(_ value: Float, forKey key: Key) throws { var one = single(key); try one.encode(value) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { var one = single(key); try one.encode(value) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { var one = single(key); try one.encode(value) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { var one = single(key); try one.encode(value) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { var one = single(key); try one.encode(value) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { var one = single(key); try one.encode(value) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { var one = single(key); try one.encode(value) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { var one = single(key); try one.encode(value) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { var one = single(key); try one.encode(value) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { var one = single(key); try one.encode(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type,
                                                        forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let path = codingPath + [key]
        return KeyedEncodingContainer(KeyedSlotContainer<NestedKey>(builder: builder.slot(key.stringValue).objectBuilder(),
                                                                    codingPath: path))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        UnkeyedSlotContainer(builder: builder.slot(key.stringValue).arrayBuilder(), codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        SlotEncoder(slot: builder.slot("super"), codingPath: codingPath + [SuperKey()])
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        SlotEncoder(slot: builder.slot(key.stringValue), codingPath: codingPath + [key])
    }
}

private struct UnkeyedSlotContainer: UnkeyedEncodingContainer {
    let builder: ArrayBuilder
    let codingPath: [any CodingKey]
    var count: Int { builder.slots.count }

    private func single() -> SingleSlotContainer {
        let path = codingPath + [IndexKey(builder.slots.count)]
        return SingleSlotContainer(slot: builder.append(), codingPath: path)
    }

    mutating func encodeNil() throws { var one = single(); try one.encodeNil() }
    mutating func encode(_ value: Bool) throws { var one = single(); try one.encode(value) }
    mutating func encode(_ value: String) throws { var one = single(); try one.encode(value) }
    mutating func encode(_ value: Int) throws { var one = single(); try one.encode(value) }
    mutating func encode(_ value: Int64) throws { var one = single(); try one.encode(value) }
    mutating func encode(_ value: Double) throws { var one = single(); try one.encode(value) }
    mutating func encode(_ value: Float) throws { var one = single(); try one.encode(value) }
    mutating func encode(_ value: Int8) throws { var one = single(); try one.encode(value) }
    mutating func encode(_ value: Int16) throws { var one = single(); try one.encode(value) }
    mutating func encode(_ value: Int32) throws { var one = single(); try one.encode(value) }
    mutating func encode(_ value: UInt) throws { var one = single(); try one.encode(value) }
    mutating func encode(_ value: UInt8) throws { var one = single(); try one.encode(value) }
    mutating func encode(_ value: UInt16) throws { var one = single(); try one.encode(value) }
    mutating func encode(_ value: UInt32) throws { var one = single(); try one.encode(value) }
    mutating func encode(_ value: UInt64) throws { var one = single(); try one.encode(value) }
    mutating func encode<T: Encodable>(_ value: T) throws { var one = single(); try one.encode(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let path = codingPath + [IndexKey(builder.slots.count)]
        return KeyedEncodingContainer(KeyedSlotContainer<NestedKey>(builder: builder.append().objectBuilder(), codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = codingPath + [IndexKey(builder.slots.count)]
        return UnkeyedSlotContainer(builder: builder.append().arrayBuilder(), codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let path = codingPath + [IndexKey(builder.slots.count)]
        return SlotEncoder(slot: builder.append(), codingPath: path)
    }
}
