import CheckoutTestSupport
import Foundation

/// Seeded random and structured mutations of valid inputs: the hostile-input generator.
///
/// Every case is a pure function of (seed, index), so a failure names the seed and case to replay.
struct FuzzMutator {
    /// Fragments an attacker or a broken client sends: SQL metacharacters, format strings,
    /// path tricks, control characters, odd Unicode.
    static let hostileFragments = [
        "'", "\"", "';--", "' OR '1'='1", "\"); DROP TABLE payment_instrument;--", "%", "_", "\\", "\\u0000",
        "%s%s%n", "../../etc/passwd", "\0", "\r\n", "\u{7F}", "\u{202E}", "\u{FEFF}", "\u{1F4B3}", "é", "ß",
        "\u{0301}", "\u{FFFD}", "𝟜𝟚𝟜𝟚", "٤٢٤٢", "NaN", "-0", "1e999", "null", "true", "{}", "[]", "{{space.base}}",
        "{", "}", "[", "]", ",", ":", "$value", "$type", "ckt1.", "v1.", String(repeating: "A", count: 300),
    ]

    /// Bytes that are never valid UTF-8, or only as part of a sequence.
    static let invalidUTF8: [[UInt8]] = [[0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF8, 0x88, 0x80, 0x80, 0x80],
                                         [0x80], [0xE2, 0x82], [0xF4, 0x90, 0x80, 0x80], [0xFE, 0xFE, 0xFF]]

    var random: SeededRandom

    init(seed: UInt64) { random = SeededRandom(seed: seed) }

    /// A mutated copy of `input`: 1–4 stacked mutations, sometimes none but a card number.
    mutating func mutate(_ input: [UInt8]) -> [UInt8] {
        var bytes = input
        let rounds = 1 + random.below(4)
        for _ in 0..<rounds { bytes = mutateOnce(bytes) }
        return bytes
    }

    /// A mutation that keeps `json` (a valid document) JSON: 1–3 edits of its tree (a value
    /// replaced by a hostile string, an extreme number, another type; a member removed or an
    /// unknown one added; an array element dropped or doubled), written back by Foundation with
    /// sorted keys. The inputs that get past the first parse step and reach the field checks.
    mutating func mutateStructure(_ json: [UInt8]) -> [UInt8] {
        guard var tree = try? JSONSerialization.jsonObject(with: Data(json), options: [.fragmentsAllowed]) else { return mutate(json) }
        for _ in 0..<(1 + random.below(3)) { tree = edit(tree, depth: 0) }
        guard let data = try? JSONSerialization.data(withJSONObject: tree, options: [.sortedKeys, .fragmentsAllowed]) else { return json }
        return Array(data)
    }

    /// One edit somewhere under `node`: descends into a random member or element, or edits here.
    private mutating func edit(_ node: Any, depth: Int) -> Any {
        if var object = node as? [String: Any], !object.isEmpty, depth < 8, random.chance(3, in: 4) {
            let key = random.pick(object.keys.sorted())
            switch random.below(8) {
            case 0: object[key] = nil
            case 1: object[random.pick(["extra", "$value", "unknownField", key.uppercased()])] = hostileValue()
            default: object[key] = edit(object[key]!, depth: depth + 1)
            }
            return object
        }
        if var array = node as? [Any], !array.isEmpty, depth < 8, random.chance(3, in: 4) {
            let index = random.below(array.count)
            switch random.below(6) {
            case 0: array.remove(at: index)
            case 1: array.append(array[index])
            default: array[index] = edit(array[index], depth: depth + 1)
            }
            return array
        }
        if let text = node as? String, random.chance(1, in: 2) {
            return random.chance(1, in: 2) ? text.uppercased() : text + random.pick(["", "x", "0", " ", "-1"])
        }
        return hostileValue()
    }

    /// A value of any JSON type, often out of a field's range.
    private mutating func hostileValue() -> Any {
        switch random.below(8) {
        case 0: return hostileString()
        case 1: return random.pick([-1, 0, 1, 13, 99, 1_000_000, Int.max, Int.min])
        case 2: return random.pick([0.5, -0.0, 1e308, .leastNonzeroMagnitude, 9_007_199_254_740_993.0])
        case 3: return random.chance(1, in: 2)
        case 4: return NSNull()
        case 5: return [Any]()
        case 6: return [String: Any]()
        default: return random.pick(["", "VISA", "EUR", "#ffffff", "{color.primary}", "12/30", "2030", "psp-a"])
        }
    }

    /// A random byte string (sometimes JSON-ish, sometimes binary).
    mutating func randomBytes(maxLength: Int = 512) -> [UInt8] {
        let count = random.below(maxLength + 1)
        let alphabet = Array("{}[]\":,0123456789abcdefABCDEF -.e+\\ntrul".utf8)
        if random.chance(1, in: 2) {
            return (0..<count).map { _ in alphabet[random.below(alphabet.count)] }
        }
        return (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }

    private mutating func position(_ bytes: [UInt8]) -> Int { bytes.isEmpty ? 0 : random.below(bytes.count + 1) }

    mutating func mutateOnce(_ input: [UInt8]) -> [UInt8] {
        var bytes = input
        switch random.below(13) {
        case 0 where !bytes.isEmpty:  // bit flip
            let index = random.below(bytes.count)
            bytes[index] ^= UInt8(1) << UInt8(random.below(8))
        case 1 where !bytes.isEmpty:  // truncation
            bytes.removeLast(random.below(bytes.count) + 1)
        case 2:  // digits
            let digits = (0..<(1 + random.below(24))).map { _ in UInt8(48 + random.below(10)) }
            bytes.insert(contentsOf: digits, at: position(bytes))
        case 3:  // a card number, plain or formatted
            let card = TestCards.variant(random.pick(TestCards.numbers), &random)
            bytes.insert(contentsOf: Array(card.utf8), at: position(bytes))
        case 4:  // hostile text
            bytes.insert(contentsOf: Array(random.pick(Self.hostileFragments).utf8), at: position(bytes))
        case 5:  // invalid UTF-8
            bytes.insert(contentsOf: random.pick(Self.invalidUTF8), at: position(bytes))
        case 6:  // deep nesting
            let depth = random.pick([32, 200, 1_000, 5_000, 20_000])
            let open: UInt8 = random.chance(1, in: 2) ? 0x5B : 0x7B
            let at = position(bytes)
            if open == 0x5B {
                bytes.insert(contentsOf: [UInt8](repeating: 0x5B, count: depth) + [UInt8](repeating: 0x5D, count: depth), at: at)
            } else {
                let layer = Array(#"{"a":"#.utf8)
                var nested: [UInt8] = []
                for _ in 0..<depth { nested += layer }
                nested += Array("1".utf8) + [UInt8](repeating: 0x7D, count: depth)
                bytes.insert(contentsOf: nested, at: at)
            }
        case 7 where bytes.count > 1:  // duplicate a slice
            let start = random.below(bytes.count)
            let end = min(bytes.count, start + 1 + random.below(64))
            bytes.insert(contentsOf: bytes[start..<end], at: position(bytes))
        case 8 where bytes.count > 1:  // delete a slice
            let start = random.below(bytes.count)
            let end = min(bytes.count, start + 1 + random.below(16))
            bytes.removeSubrange(start..<end)
        case 9 where !bytes.isEmpty:  // replace a byte by a JSON structural character
            bytes[random.below(bytes.count)] = random.pick(Array("{}[]\":,\\".utf8))
        case 10:  // a huge number
            bytes.insert(contentsOf: Array(random.pick(["1e308", "-1e308", "9223372036854775808", "-9223372036854775809",
                                                        "18446744073709551616", "0.0000000000000000000001",
                                                        "123456789012345678901234567890"]).utf8), at: position(bytes))
        case 11:  // oversize: repeat the input
            if bytes.count < 200_000 {
                let copies = 2 + random.below(8)
                var repeated: [UInt8] = []
                repeated.reserveCapacity(bytes.count * copies)
                for _ in 0..<copies { repeated.append(contentsOf: bytes) }
                bytes = repeated
            }
        default:  // random bytes
            bytes.insert(contentsOf: randomBytes(maxLength: 32), at: position(bytes))
        }
        return bytes
    }

    /// A JSON string value for a string field: hostile fragment, card number, or junk.
    mutating func hostileString() -> String {
        switch random.below(5) {
        case 0: return TestCards.variant(random.pick(TestCards.numbers), &random)
        case 1: return random.pick(Self.hostileFragments)
        case 2: return String(decoding: random.pick(Self.invalidUTF8) + Array("x".utf8), as: UTF8.self)
        case 3: return String(repeating: random.pick(["a", "'", "%", "\u{1F4B3}"]), count: 1 + random.below(200))
        default: return "name" + random.pick(Self.hostileFragments) + "\(random.below(1000))"
        }
    }
}
