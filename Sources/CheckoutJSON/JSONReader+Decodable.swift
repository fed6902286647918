#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension JSONReader {
    /// Decodes a `Decodable` from a whole document with the package's one tokenizer: the rules of
    /// `read(_:limits:)` (strict RFC 8259, duplicate keys refused, bounded) and the conventions of
    /// Foundation's `JSONDecoder` defaults (unknown keys ignored, `null` is absent for optionals,
    /// dates as reference-date seconds, `Data` as Base64, `URL` as a string). Integers are read
    /// exactly from their digits; a number with a fraction or exponent is an integer only when
    /// its value is one.
    ///
    /// Throws `JSONDecodeError.syntax` for malformed JSON (line and column), `.shape` for JSON of
    /// the wrong shape (the path, never the value), and the type's own errors as it threw them.
    public static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8], limits: JSONLimits = .standard) throws -> T {
        let parsed: Result<DecodedNode, JSONError> = bytes.withUnsafeBufferPointer { buffer in
            guard buffer.count <= limits.maximumBytes else { return .failure(JSONError(.tooLarge, offset: 0).located(in: buffer)) }
            var budget = limits.maximumValues
            do throws(JSONError) {
                return .success(try JSONReader.scan(buffer) { (scanner: inout JSONScanner) throws(JSONError) -> DecodedNode in
                    try scanner.readDecodedNode(depth: 0, maximumDepth: limits.maximumDepth, budget: &budget)
                })
            } catch {
                return .failure(error)
            }
        }
        let root: DecodedNode
        switch parsed {
        case .success(let node): root = node
        case .failure(let error): throw JSONDecodeError.syntax(error)
        }
        do {
            return try NodeDecoder(node: root, codingPath: []).decode(T.self)
        } catch let error as DecodingError {
            throw JSONDecodeError.shape(JSONShapeError(error))
        }
    }

    /// `decode(_:from:limits:)` over the bytes of a `Data` (a file's contents, say).
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data, limits: JSONLimits = .standard) throws -> T {
        try decode(type, from: [UInt8](data), limits: limits)
    }

    /// `decode(_:from:limits:)` over the UTF-8 of a string (a stored JSON column, say).
    public static func decode<T: Decodable>(_ type: T.Type, from text: String, limits: JSONLimits = .standard) throws -> T {
        try decode(type, from: Array(text.utf8), limits: limits)
    }
}

extension JSONShapeError {
    /// The path and a fixed sentence for a decoding error. A sentence this decoder wrote is kept;
    /// any other (a type's own `init(from:)`, or the standard library's enum decoding, which
    /// quotes the value it refused) becomes `invalid value`, so no input is ever echoed.
    init(_ error: DecodingError) {
        func path(_ keys: [any CodingKey]) -> String {
            var text = ""
            for key in keys {
                if let index = key.intValue, key.stringValue.hasPrefix("[") || key.stringValue == "Index \(index)" {
                    text += "[\(index)]"
                } else {
                    text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
                }
            }
            return text
        }
        func fixed(_ sentence: String) -> String { Self.decoderSentences.contains(sentence) ? sentence : "invalid value" }
        switch error {
        case .keyNotFound(let key, let context):
            self.init(path: path(context.codingPath + [key]), problem: "required key is missing")
        case .valueNotFound(_, let context), .typeMismatch(_, let context), .dataCorrupted(let context):
            self.init(path: path(context.codingPath), problem: fixed(context.debugDescription))
        @unknown default:
            self.init(path: "", problem: "invalid value")
        }
    }

    /// Every sentence the Codable decoder writes (none holds input).
    static let decoderSentences: Set<String> = {
        let kinds = ["an object", "an array", "a string", "a boolean", "a number", "an integer", "a Base64 string", "a URL string"]
        return Set(kinds.map { "expected \($0)" } + kinds.map { "expected \($0), found null" }
                   + ["expected Base64", "expected a URL", "number out of range", "expected an integer in range",
                      "the array has no more elements"])
    }()
}

/// A parsed value for decoding: numbers keep their text, so that integers are exact.
enum DecodedNode {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([DecodedNode])
    case object([String: DecodedNode])
}

extension JSONScanner {
    /// `readValue` for decoding: the same rules and limits, numbers kept as their text.
    mutating func readDecodedNode(depth: Int, maximumDepth: Int, budget: inout Int) throws(Failure) -> DecodedNode {
        guard let first = peek() else { throw fail(.unexpectedEnd) }
        guard budget > 0 else { throw fail(.tooManyValues) }
        budget -= 1
        switch first {
        case 0x7B:
            guard depth < maximumDepth else { throw fail(.tooDeep) }
            var members: [String: DecodedNode] = [:]
            try readObject { (scanner: inout JSONScanner, key: String) throws(Failure) in
                let keyOffset = scanner.index
                let value = try scanner.readDecodedNode(depth: depth + 1, maximumDepth: maximumDepth, budget: &budget)
                guard members.updateValue(value, forKey: key) == nil else { throw JSONError(.duplicateKey, offset: keyOffset) }
            }
            return .object(members)
        case 0x5B:
            guard depth < maximumDepth else { throw fail(.tooDeep) }
            var items: [DecodedNode] = []
            try readArray { (scanner: inout JSONScanner) throws(Failure) in
                items.append(try scanner.readDecodedNode(depth: depth + 1, maximumDepth: maximumDepth, budget: &budget))
            }
            return .array(items)
        case 0x22: return .string(try readString())
        case 0x74: try literal("true"); return .bool(true)
        case 0x66: try literal("false"); return .bool(false)
        case 0x6E: try literal("null"); return .null
        case 0x2D, 0x30...0x39:
            let (start, _) = try scanNumber()
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            guard let value = Double(text), value.isFinite else { throw JSONError(.invalidNumber, offset: start) }
            return .number(text)
        case 0x4E, 0x49: throw fail(.invalidNumber)
        default: throw fail(.unexpectedByte)
        }
    }
}

/// The coding key of an array element, `[n]` in paths (shared by the decoder and the encoder).
struct IndexKey: CodingKey {
    var intValue: Int?
    var stringValue: String { "[\(intValue ?? 0)]" }
    init(_ index: Int) { intValue = index }
    init?(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}

private struct NodeDecoder: Decoder {
    let node: DecodedNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func mismatch(_ expected: String, _ type: Any.Type) -> DecodingError {
        if case .null = node {
            return .valueNotFound(type, .init(codingPath: codingPath, debugDescription: "expected \(expected), found null"))
        }
        return .typeMismatch(type, .init(codingPath: codingPath, debugDescription: "expected \(expected)"))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = node else { throw mismatch("an object", [String: Any].self) }
        return KeyedDecodingContainer(KeyedNodeContainer<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = node else { throw mismatch("an array", [Any].self) }
        return UnkeyedNodeContainer(items: items, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleNodeContainer(decoder: self) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        switch type {
        case is Data.Type:
            guard case .string(let text) = node else { throw mismatch("a Base64 string", type) }
            guard let data = Data(base64Encoded: text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "expected Base64"))
            }
            return data as! T
        case is URL.Type:
            guard case .string(let text) = node else { throw mismatch("a URL string", type) }
            guard let url = URL(string: text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "expected a URL"))
            }
            return url as! T
        default:
            return try T(from: self)
        }
    }

    func string() throws -> String {
        guard case .string(let text) = node else { throw mismatch("a string", String.self) }
        return text
    }

    func bool() throws -> Bool {
        guard case .bool(let flag) = node else { throw mismatch("a boolean", Bool.self) }
        return flag
    }

    func floatingPoint<T: BinaryFloatingPoint & LosslessStringConvertible>(_ type: T.Type) throws -> T {
        guard case .number(let text) = node else { throw mismatch("a number", type) }
        guard let value = T(text), value.isFinite else {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "number out of range"))
        }
        return value
    }

    func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        guard case .number(let text) = node else { throw mismatch("an integer", type) }
        if let exact = T(text, radix: 10) { return exact }
        if let value = Double(text), value.rounded() == value, abs(value) <= 9_007_199_254_740_992, let exact = T(exactly: value) {
            return exact
        }
        throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "expected an integer in range"))
    }
}

private struct SingleNodeContainer: SingleValueDecodingContainer {
    let decoder: NodeDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { if case .null = decoder.node { return true }; return false }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.bool() }
    func decode(_ type: String.Type) throws -> String { try decoder.string() }
    func decode(_ type: Double.Type) throws -> Double { try decoder.floatingPoint(type) }
    func decode(_ type: Float.Type) throws -> Float { try decoder.floatingPoint(type) }
    func decode(_ type: Int.Type) throws -> Int { try decoder.integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.integer(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decode(type) }
}

private struct KeyedNodeContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: DecodedNode]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { members.keys.sorted().compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func decoder(_ key: Key) throws -> NodeDecoder {
        guard let node = members[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "required key is missing"))
        }
        return NodeDecoder(node: node, codingPath: codingPath + [key])
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .null = try decoder(key).node { return true }
        return false
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder(key).bool() }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoder(key).string() }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decoder(key).floatingPoint(type) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decoder(key).floatingPoint(type) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decoder(key).integer(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decoder(key).integer(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decoder(key).integer(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decoder(key).integer(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decoder(key).integer(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decoder(key).integer(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decoder(key).integer(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decoder(key).integer(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decoder(key).integer(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decoder(key).integer(type) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try decoder(key).decode(type) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { try decoder(key).unkeyedContainer() }

    func superDecoder() throws -> any Decoder {
        NodeDecoder(node: members["super"] ?? .null, codingPath: codingPath)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        NodeDecoder(node: members[key.stringValue] ?? .null, codingPath: codingPath + [key])
    }
}

private struct UnkeyedNodeContainer: UnkeyedDecodingContainer {
    let items: [DecodedNode]
    let codingPath: [any CodingKey]
    var currentIndex = 0

    init(items: [DecodedNode], codingPath: [any CodingKey]) {
        self.items = items
        self.codingPath = codingPath
    }

    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    private mutating func next(_ type: Any.Type) throws -> NodeDecoder {
        let path = codingPath + [IndexKey(currentIndex)]
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: path, debugDescription: "the array has no more elements"))
        }
        defer { currentIndex += 1 }
        return NodeDecoder(node: items[currentIndex], codingPath: path)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, case .null = items[currentIndex] else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type).bool() }
    mutating func decode(_ type: String.Type) throws -> String { try next(type).string() }
    mutating func decode(_ type: Double.Type) throws -> Double { try next(type).floatingPoint(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try next(type).floatingPoint(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try next(type).integer(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type).integer(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type).integer(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type).integer(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type).integer(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type).integer(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type).integer(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type).integer(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type).integer(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type).integer(type) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next(type).decode(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next(type).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next([Any].self).unkeyedContainer() }

    mutating func superDecoder() throws -> any Decoder { try next(Any.self) }
}
