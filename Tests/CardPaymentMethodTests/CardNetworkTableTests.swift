import CheckoutTestSupport
import CardPaymentMethod
import CheckoutCore
import Foundation
import Testing

@Suite("Card network table")
struct CardNetworkTableTests {
    @Test("the repository's table lists every reference network in order")
    func loadsRepositoryTable() {
        #expect(Fixtures.table.rules.map(\.network) == [
            .visa, .mastercard, .amex, .discover, .dinersClub, .jcb, .unionPay, .maestro, .mir, .elo, .hiper,
            .hipercard, .verve, .troy, .naranja, .cartesBancaires, .bancontact, .eftpos, .dankort,
        ])
        #expect(Fixtures.table.rule(for: .maestro)?.lengths == Array(12...19))
        #expect(Fixtures.table.rule(for: .verve)?.lengths == [16, 18, 19])
        #expect(Fixtures.table.rule(for: .troy)?.lengths == [16])
        #expect(Fixtures.table.rule(for: .naranja)?.lengths == [16])
        for network in [CardNetwork.verve, .troy, .naranja] {
            #expect(Fixtures.table.rule(for: network)?.securityCodeLength == 3)
            #expect(Fixtures.table.rule(for: network)?.gaps == [4, 8, 12])
        }
        // Every rule says where its ranges come from.
        for rule in Fixtures.table.rules {
            #expect(rule.source.count > 20, "\(rule.network) has no real source")
        }
        #expect(Fixtures.table.rule(for: .amex)?.gaps == [4, 10])
        #expect(Fixtures.table.rule(for: .amex)?.securityCodeLength == 4)
        #expect(Fixtures.table.rule(for: .visa)?.lengths == [16, 18, 19])
        #expect(Fixtures.table.rule(for: .unionPay)?.lengths == Array(14...19))
    }

    /// Every network that has local prefixes.
    static let detectable = Fixtures.table.rules.filter { !$0.prefixes.isEmpty }.map(\.network.rawValue)

    @Test("first and last value of every prefix range, at every length from 12 to 20", arguments: detectable)
    func boundaries(network name: String) throws {
        let network = CardNetwork(name)
        let rule = try #require(Fixtures.table.rule(for: network))
        let validator = Fixtures.validator()
        for prefix in rule.prefixes {
            let ends = Set([prefix.lowerBound, prefix.upperBound])
            for end in ends {
                var text = String(end)
                while text.count < prefix.digitCount { text = "0" + text }
                for length in 12...20 {
                    let number = Fixtures.number(prefix: text, length: length)
                    let check = validator.check(number: number)
                    #expect(check.network == network, "prefix \(text) length \(length)")
                    let shouldBeValid = rule.lengths.contains(length) && (12...19).contains(length)
                    #expect(check.isValid == shouldBeValid, "prefix \(text) length \(length)")
                    if !shouldBeValid { #expect(check.issues == .numberInvalid, "prefix \(text) length \(length)") }
                }
                // One length below the shortest and one above the longest are always invalid.
                for length in [rule.lengths[0] - 1, rule.lengths[rule.lengths.count - 1] + 1] {
                    let check = validator.check(number: Fixtures.number(prefix: text, length: length))
                    #expect(check.issues == .numberInvalid, "prefix \(text) length \(length)")
                }
            }
        }
    }

    @Test("networks known only from a BIN lookup are never detected locally",
          arguments: [CardNetwork.cartesBancaires, .bancontact, .eftpos, .dankort])
    func binOnlyNetworks(network: CardNetwork) throws {
        let rule = try #require(Fixtures.table.rule(for: network))
        #expect(rule.prefixes.isEmpty)
        #expect(Fixtures.table.contains(network))
    }

    struct Detection: Sendable, CustomStringConvertible {
        let input: String
        let network: CardNetwork?
        var description: String { input }
    }

    @Test("the longest matching prefix wins", arguments: [
        Detection(input: "4", network: .visa),
        Detection(input: "4111111111111111", network: .visa),
        Detection(input: "401178", network: .elo),
        Detection(input: "4011780000000000", network: .elo),
        Detection(input: "40117", network: .visa),
        Detection(input: "6", network: .maestro),
        Detection(input: "6011", network: .discover),
        Detection(input: "601", network: .maestro),
        Detection(input: "650031", network: .elo),
        Detection(input: "650034", network: .discover),
        Detection(input: "637095", network: .hiper),
        Detection(input: "63737423", network: .hiper),
        Detection(input: "6373742", network: .maestro),
        Detection(input: "606282", network: .hipercard),
        Detection(input: "62183", network: .maestro),
        Detection(input: "622010", network: .unionPay),
        Detection(input: "627780", network: .elo),
        Detection(input: "504175", network: .elo),
        Detection(input: "504174", network: .maestro),
        Detection(input: "2200", network: .mir),
        Detection(input: "2221", network: .mastercard),
        Detection(input: "2720", network: .mastercard),
        Detection(input: "2721", network: nil),
        Detection(input: "5", network: nil),
        Detection(input: "9", network: nil),
        Detection(input: "", network: nil),
        Detection(input: "4242 4242", network: .visa),
        Detection(input: "3782-822463", network: .amex),
        Detection(input: "4x", network: .visa),
        Detection(input: "x4", network: nil),
        Detection(input: "５", network: nil),
        // Verve inside Maestro's 6-digit blocks: the narrower range wins.
        Detection(input: "506099", network: .verve),
        Detection(input: "5061270000000000", network: .verve),
        Detection(input: "506128", network: .maestro),
        Detection(input: "506197", network: .verve),
        Detection(input: "507865", network: .verve),
        Detection(input: "507941", network: .verve),
        Detection(input: "507942", network: .maestro),
        Detection(input: "50609", network: nil),
        // Troy: its own 9792, and BINs inside Discover's 65 (longer) and ELO's 650901-650978 (narrower).
        Detection(input: "9792", network: .troy),
        Detection(input: "9792000000000000", network: .troy),
        Detection(input: "650052", network: .troy),
        Detection(input: "650923", network: .troy),
        Detection(input: "650922", network: .elo),
        Detection(input: "65083700", network: .troy),
        Detection(input: "6508370", network: .discover),
        Detection(input: "65083705", network: .discover),
        Detection(input: "658768", network: .troy),
        // Naranja: its own 589562 (inside Maestro's 56-59) and the co-branded Visa and Mastercard BINs.
        Detection(input: "589562", network: .naranja),
        Detection(input: "589563", network: .maestro),
        Detection(input: "402918", network: .naranja),
        Detection(input: "527572", network: .naranja),
        Detection(input: "527573", network: .mastercard),
    ])
    func longestPrefix(_ detection: Detection) {
        #expect(Fixtures.table.detect(detection.input) == detection.network)
    }

    @Test("the precomputed index agrees with a brute-force longest-prefix search on 20,000 random prefixes")
    func indexMatchesReference() {
        var generator = TestSeed.generator(0xCA4D, for: "CardNetworkTableTests")
        let interesting = ["4", "40", "50", "62", "63", "65", "22", "27", "30", "35", "60", "81", "5061", "5078", "6509", "6508", "9792", "5895", "4029"]
        for _ in 0..<20_000 {
            var digits = Bool.random(using: &generator) ? interesting.randomElement(using: &generator) ?? "" : ""
            let length = Int.random(in: 1...12, using: &generator)
            while digits.count < length { digits += String(Int.random(in: 0...9, using: &generator)) }
            #expect(Fixtures.table.detect(digits) == Fixtures.referenceDetect(digits), "\(digits)")
        }
    }

    struct Malformed: Sendable, CustomStringConvertible {
        let name: String
        let json: String
        let code: CardNetworkTableError.Code
        let entryIndex: Int?
        let network: String?
        var description: String { name }
    }

    static func entry(_ network: String = "VISA", prefixes: String = "[\"4\"]", gaps: String = "[4, 8, 12]",
                      lengths: String = "[16]", code: String = "{\"name\": \"CVV\", \"length\": 3}",
                      extra: String = ", \"source\": \"test table\"") -> String {
        "{\"network\": \"\(network)\", \"prefixes\": \(prefixes), \"gaps\": \(gaps), \"lengths\": \(lengths), \"securityCode\": \(code)\(extra)}"
    }

    static func table(_ entries: String...) -> String { "{\"version\": 1, \"networks\": [\(entries.joined(separator: ","))]}" }

    static let malformed: [Malformed] = [
        Malformed(name: "not JSON", json: "{", code: .malformedJSON, entryIndex: nil, network: nil),
        Malformed(name: "missing key", json: "{\"networks\": [{\"network\": \"VISA\"}]}", code: .malformedJSON,
                  entryIndex: nil, network: nil),
        Malformed(name: "letters in prefix", json: table(entry(), entry("AMEX", prefixes: "[\"3a\"]")),
                  code: .badPrefix, entryIndex: 1, network: "AMEX"),
        Malformed(name: "empty prefix", json: table(entry(prefixes: "[\"\"]")), code: .badPrefix, entryIndex: 0,
                  network: "VISA"),
        Malformed(name: "nine-digit prefix", json: table(entry(prefixes: "[\"412345678\"]")), code: .badPrefix,
                  entryIndex: 0, network: "VISA"),
        Malformed(name: "lo > hi", json: table(entry(prefixes: "[\"55-51\"]")), code: .invertedRange,
                  entryIndex: 0, network: "VISA"),
        Malformed(name: "mixed digit counts", json: table(entry(prefixes: "[\"5-55\"]")), code: .badPrefix,
                  entryIndex: 0, network: "VISA"),
        Malformed(name: "length 20", json: table(entry(lengths: "[16, 20]")), code: .badLength, entryIndex: 0,
                  network: "VISA"),
        Malformed(name: "length 11", json: table(entry(lengths: "[11]")), code: .badLength, entryIndex: 0,
                  network: "VISA"),
        Malformed(name: "no lengths", json: table(entry(lengths: "[]")), code: .badLength, entryIndex: 0,
                  network: "VISA"),
        Malformed(name: "repeated length", json: table(entry(lengths: "[16, 16]")), code: .badLength,
                  entryIndex: 0, network: "VISA"),
        Malformed(name: "decreasing gaps", json: table(entry(gaps: "[8, 4]")), code: .badGaps, entryIndex: 0,
                  network: "VISA"),
        Malformed(name: "gap past the end", json: table(entry(gaps: "[4, 16]")), code: .badGaps, entryIndex: 0,
                  network: "VISA"),
        Malformed(name: "zero gap", json: table(entry(gaps: "[0]")), code: .badGaps, entryIndex: 0, network: "VISA"),
        Malformed(name: "security code length 5", json: table(entry(code: "{\"name\": \"CVV\", \"length\": 5}")),
                  code: .badSecurityCode, entryIndex: 0, network: "VISA"),
        Malformed(name: "empty security code name", json: table(entry(code: "{\"name\": \" \", \"length\": 3}")),
                  code: .badSecurityCode, entryIndex: 0, network: "VISA"),
        Malformed(name: "lower-case network", json: table(entry("visa")), code: .badNetworkName, entryIndex: 0,
                  network: "visa"),
        Malformed(name: "duplicate network", json: table(entry(), entry(prefixes: "[\"51\"]")),
                  code: .duplicateNetwork, entryIndex: 1, network: "VISA"),
        Malformed(name: "overlapping prefixes", json: table(entry(), entry("ELO", prefixes: "[\"3\", \"4\"]")),
                  code: .overlappingPrefix, entryIndex: 1, network: "ELO"),
        Malformed(name: "equal ranges of two networks",
                  json: table(entry(prefixes: "[\"500-509\"]"), entry("ELO", prefixes: "[\"500-509\"]")),
                  code: .overlappingPrefix, entryIndex: 1, network: "ELO"),
        Malformed(name: "ranges that only partly overlap",
                  json: table(entry(prefixes: "[\"500-505\"]"), entry("ELO", prefixes: "[\"503-509\"]")),
                  code: .overlappingPrefix, entryIndex: 1, network: "ELO"),
        Malformed(name: "no source", json: table(entry(extra: ", \"source\": \" \"")), code: .missingSource,
                  entryIndex: 0, network: "VISA"),
        Malformed(name: "source key missing", json: table(entry(extra: "")), code: .malformedJSON,
                  entryIndex: nil, network: nil),
        Malformed(name: "co-badge with an unknown network",
                  json: table(entry(), entry("NARANJA", prefixes: "[\"589562\"]",
                                             extra: ", \"source\": \"s\", \"coBadges\": [{\"prefixes\": [\"589562\"], \"networks\": [\"NOPE\"]}]")),
                  code: .badCoBadge, entryIndex: 1, network: "NARANJA"),
        Malformed(name: "co-badge prefix outside the network's own",
                  json: table(entry(), entry("NARANJA", prefixes: "[\"589562\"]",
                                             extra: ", \"source\": \"s\", \"coBadges\": [{\"prefixes\": [\"402918\"], \"networks\": [\"VISA\"]}]")),
                  code: .badCoBadge, entryIndex: 1, network: "NARANJA"),
    ]

    @Test("a malformed table is a typed error naming the entry and the problem", arguments: malformed)
    func rejectsMalformed(_ example: Malformed) {
        do {
            _ = try CardNetworkTable(data: Data(example.json.utf8))
            Issue.record("expected \(example.code)")
        } catch {
            #expect(error.code == example.code)
            #expect(error.entryIndex == example.entryIndex)
            #expect(error.network == example.network)
            if let index = example.entryIndex { #expect(error.description.contains("networks[\(index)]")) }
        }
    }

    @Test("a missing file is an unreadable error")
    func missingFile() {
        #expect(throws: CardNetworkTableError.self) {
            try CardNetworkTable(contentsOf: URL(fileURLWithPath: "/nonexistent/card-networks.json"))
        }
    }

    @Test("a nested prefix of another network is allowed (longest wins), an equal-length overlap is not")
    func nestedPrefixAllowed() throws {
        let json = Self.table(Self.entry(), Self.entry("ELO", prefixes: "[\"401178\"]"))
        let table = try CardNetworkTable(data: Data(json.utf8))
        #expect(table.detect("4011781234") == .elo)
        #expect(table.detect("4011771234") == .visa)
    }

    @Test("between two ranges of one digit count, the narrower wins, whichever entry comes first")
    func narrowerRangeWins() throws {
        for (first, second) in [(Self.entry("MAESTRO", prefixes: "[\"500000-509999\"]"), Self.entry("VERVE", prefixes: "[\"506099-506127\"]")),
                                (Self.entry("VERVE", prefixes: "[\"506099-506127\"]"), Self.entry("MAESTRO", prefixes: "[\"500000-509999\"]"))] {
            let table = try CardNetworkTable(data: Data(Self.table(first, second).utf8))
            #expect(table.detect("5060990000") == CardNetwork.verve)
            #expect(table.detect("5061270000") == CardNetwork.verve)
            #expect(table.detect("5061280000") == CardNetwork.maestro)
            #expect(table.detect("5060980000") == CardNetwork.maestro)
        }
    }

    @Test("a co-branded prefix reports the detected network first, then the networks sharing it")
    func coBadgedPrefixes() {
        #expect(Fixtures.table.networks(for: "4029 1800 0000 0000") == [.naranja, .visa])
        #expect(Fixtures.table.networks(for: "5275720000000000") == [.naranja, .mastercard])
        #expect(Fixtures.table.networks(for: "5895620000000000") == [.naranja])
        #expect(Fixtures.table.networks(for: "5061000000000000") == [.verve])
        #expect(Fixtures.table.networks(for: "4242424242424242") == [.visa])
        #expect(Fixtures.table.networks(for: "9") == [])
    }
}
