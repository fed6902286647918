import CheckoutJSON
import CheckoutTestSupport
import Foundation
import Testing

/// The Codable bridge of the one JSON stack against Foundation's coders as the oracle: the
/// writer's bytes equal `JSONEncoder`'s for the same values (so signed, hashed and stored bytes do
/// not move), and the decoder accepts and refuses what `JSONDecoder` does, with equal values,
/// except where the stack is deliberately stricter (duplicate keys).
@Suite struct CodableBridgeTests {
    enum Kind: String, Codable, Equatable { case card, wallet, bank }

    /// A model with every kind of member the product's types use.
    struct Sample: Codable, Equatable {
        var id: String
        var amount: Int64
        var small: Int8
        var count: UInt64
        var ratio: Double
        var weight: Float
        var flag: Bool?
        var tags: [String]
        var totals: [String: Int]
        var blob: Data
        var link: URL?
        var when: Date
        var kind: Kind
        var children: [Sample]?
    }

    static func text(_ random: inout SeededRandom) -> String {
        let pool: [Unicode.Scalar] = ["a", "Z", "/", "\"", "\\", "\u{0}", "\u{1}", "\u{8}", "\u{9}", "\u{A}", "\u{C}", "\u{D}", "\u{1F}",
                                      "\u{7F}", "é", "\u{2028}", "\u{FEFF}", "😀", "ｱ", " ", "0", "9", "_", "-"]
        var scalars = String.UnicodeScalarView()
        for _ in 0..<random.below(9) { scalars.append(random.pick(pool)) }
        return String(scalars)
    }

    static func double(_ random: inout SeededRandom) -> Double {
        switch random.below(5) {
        case 0: return Double(Int64(bitPattern: random.next()) >> Int64(random.below(60)))
        case 1: return Double(random.below(1000)) / 10
        case 2: return random.pick([0, -0.0, 1e-7, 1e16, 1e21, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 0.1 + 0.2])
        default:
            let value = Double(bitPattern: random.next())
            return value.isFinite ? value : 1.5
        }
    }

    static func sample(_ random: inout SeededRandom, depth: Int = 0) -> Sample {
        let float = Float(bitPattern: UInt32(truncatingIfNeeded: random.next()))
        var totals: [String: Int] = [:]
        for _ in 0..<random.below(4) { totals[text(&random)] = Int(Int64(bitPattern: random.next()) >> Int64(random.below(63))) }
        return Sample(
            id: text(&random), amount: Int64(bitPattern: random.next()), small: Int8(truncatingIfNeeded: random.next()),
            count: random.next() >> UInt64(random.below(64)), ratio: double(&random), weight: float.isFinite ? float : 0.25,
            flag: random.pick([nil, true, false]), tags: (0..<random.below(3)).map { _ in text(&random) }, totals: totals,
            blob: Data((0..<random.below(7)).map { _ in UInt8(truncatingIfNeeded: random.next()) }),
            link: random.chance(1, in: 2) ? URL(string: "https://example.com/a/b?c=\(random.below(99))") : nil,
            when: Date(timeIntervalSinceReferenceDate: double(&random) / 1e300), kind: random.pick([.card, .wallet, .bank]),
            children: depth < 2 && random.chance(1, in: 3) ? (0..<random.below(3)).map { _ in sample(&random, depth: depth + 1) } : nil)
    }

    static func foundation(_ value: some Encodable, slashes: Bool) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = slashes ? [.sortedKeys] : [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }

    @Test func encodesTheBytesJSONEncoderWrites() throws {
        var random = TestSeed.generator(0x3901, for: "codable encode")
        var compared = 0
        for _ in 0..<1_500 {
            let value = Self.sample(&random)
            for slashes in [true, false] {
                let ours = try JSONWriter.encode(value, options: slashes ? [.sortedKeys] : [.sortedKeys, .withoutEscapingSlashes])
                let theirs = try Self.foundation(value, slashes: slashes)
                #expect(ours == theirs, "\(String(decoding: theirs, as: UTF8.self))")
                compared += 1
            }
        }
        #expect(compared == 3_000)
    }

    @Test func writesJSONValuesAsJSONEncoderDoes() throws {
        var random = TestSeed.generator(0x3902, for: "codable value")
        func value(_ depth: Int) -> JSONValue {
            switch random.below(depth > 3 ? 4 : 6) {
            case 0: return .null
            case 1: return .bool(random.chance(1, in: 2))
            case 2: return .number(Self.double(&random))
            case 3: return .string(Self.text(&random))
            case 4: return .array((0..<random.below(4)).map { _ in value(depth + 1) })
            default: return .object(JSONObject((0..<random.below(4)).map { _ in (Self.text(&random), value(depth + 1)) }))
            }
        }
        for _ in 0..<2_000 {
            let tree = value(0)
            #expect(JSONWriter.write(tree) == (try Self.foundation(tree, slashes: true)))
        }
    }

    @Test func decodesWhatJSONDecoderDecodes() throws {
        var random = TestSeed.generator(0x3903, for: "codable decode")
        var accepted = 0, refused = 0
        for _ in 0..<1_000 {
            var document = try Self.foundation(Self.sample(&random), slashes: true)
            // Damage about half the documents where a shape can go wrong: a dropped key, a value of
            // another kind, a fraction on an integer, an integer out of range.
            if random.chance(1, in: 2) {
                let text = String(decoding: document, as: UTF8.self)
                let damaged = random.pick([
                    text.replacingOccurrences(of: "\"amount\":", with: "\"amount_\":"),
                    text.replacingOccurrences(of: "\"kind\":\"", with: "\"kind\":\"x"),
                    text.replacingOccurrences(of: "\"small\":", with: "\"small\":1000,\"_\":"),
                    text.replacingOccurrences(of: "\"ratio\":", with: "\"ratio\":\"1\",\"_\":"),
                    text.replacingOccurrences(of: "\"flag\":", with: "\"flag\":null,\"_\":"),
                    text.replacingOccurrences(of: "\"tags\":[", with: "\"tags\":[1,"),
                    text.replacingOccurrences(of: "\"count\":", with: "\"count\":2.0,\"_\":"),
                    text.replacingOccurrences(of: "\"count\":", with: "\"count\":2.5,\"_\":"),
                    text.replacingOccurrences(of: "\"blob\":\"", with: "\"blob\":\"!"),
                ])
                document = Array(damaged.utf8)
            }
            let theirs = try? JSONDecoder().decode(Sample.self, from: Data(document))
            let ours = try? JSONReader.decode(Sample.self, from: document)
            #expect(ours == theirs, "\(String(decoding: document, as: UTF8.self))")
            if theirs != nil { accepted += 1 } else { refused += 1 }
        }
        // The mix the run must reach: both verdicts, often.
        #expect(accepted > 400 && refused > 150, "accepted \(accepted), refused \(refused)")
    }

    @Test func integersKeepEveryDigit() throws {
        struct Wide: Codable, Equatable { var big: Int64; var huge: UInt64; var low: Int64 }
        let value = Wide(big: 9_007_199_254_740_993, huge: .max, low: .min)
        let bytes = try JSONWriter.encode(value)
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"big":9007199254740993,"huge":18446744073709551615,"low":-9223372036854775808}"#)
        #expect(try JSONReader.decode(Wide.self, from: bytes) == value)
    }

    @Test func refusesWhatTheReaderRefuses() {
        struct One: Decodable { var a: Int }
        func kind(_ text: String) -> JSONError.Kind? {
            let result = Result { try JSONReader.decode(One.self, from: text) }
            guard case .failure(JSONDecodeError.syntax(let error)) = result else { return nil }
            return error.kind
        }
        #expect(kind(#"{"a":1,"a":2}"#) == .duplicateKey)
        #expect(kind(#"{"a":1,}"#) == .unexpectedByte)
        #expect(kind(#"{"a":NaN}"#) == .invalidNumber)
        #expect(kind(#"{"a":1} x"#) == .trailingContent)
        #expect(kind(#"{"a":1}"#) == nil)
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(throws: JSONDecodeError.self) { try JSONReader.decode([JSONValue].self, from: deep) }
    }

    @Test func shapeErrorsNameThePathNotTheValue() {
        struct Line: Decodable { var amount: Int }
        struct Order: Decodable { var lines: [Line] }
        let secret = "4242424242424242"
        func message(_ text: String) -> String {
            let result = Result { try JSONReader.decode(Order.self, from: text) }
            guard case .failure(let error) = result else { return "" }
            return "\(error)"
        }
        #expect(message(#"{"lines":[{"amount":1},{"amount":"\#(secret)"}]}"#) == "lines[1].amount: expected an integer")
        #expect(message(#"{"lines":[{"amount":1},{}]}"#) == "lines[1].amount: required key is missing")
        #expect(message(#"{"lines":[{"amount":null}]}"#) == "lines[0].amount: expected an integer, found null")
        #expect(message(#"{"lines":{"amount":1}}"#) == "lines: expected an array")
        #expect(!message(#"{"lines":[{"amount":\#(secret)1}]}"#).contains(secret))
    }
}
