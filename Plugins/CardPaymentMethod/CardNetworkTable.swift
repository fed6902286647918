import CheckoutCore
import Foundation

/// The card-network detection table, loaded from `Config/card-networks.json` and validated at load.
///
/// Detection follows the reference rule "the longest matching prefix wins": a number starting
/// `401178` is ELO, not VISA (`4`). Between two ranges of the same digit count, one inside the
/// other, the narrower wins (a Verve BIN inside Maestro's broad `504176-506698`); ranges of the
/// same digit count that overlap without one containing the other are refused at load.
/// `coBadges` entries name prefixes genuinely shared with other networks (co-branded cards), which
/// `networks(for:)` reports after the detected network. At load the prefixes are compiled into a `PrefixIndex`
/// (disjoint segments per typed-digit count, indexed by the first three digits), so `detect` is
/// a table read and a comparison, with no allocation.
///
/// ```json
/// { "version": 1, "networks": [
///   { "network": "AMEX", "prefixes": ["34", "37"], "gaps": [4, 10], "lengths": [15],
///     "securityCode": { "name": "CID", "length": 4 }, "source": "braintree/credit-card-type v10.3" },
///   { "network": "NARANJA", "prefixes": ["589562", "402918"], "gaps": [4, 8, 12], "lengths": [16],
///     "securityCode": { "name": "CVV", "length": 3 },
///     "coBadges": [{ "prefixes": ["402918"], "networks": ["VISA"] }], "source": "..." } ] }
/// ```
/// Every entry needs a non-empty `source`: where its ranges come from.
/// A prefix is `"D..."` (1-8 digits) or `"LO-HI"` (bounds with the same digit count). A network
/// with `"prefixes": []` is known only from a BIN lookup (co-badged schemes such as EFTPOS).
public struct CardNetworkTable: Sendable, Equatable {
    /// The rules in file order.
    public let rules: [CardNetworkRule]

    /// The longest-prefix lookup structure, built at load.
    private let index: PrefixIndex

    /// The most networks one table may hold (the validator keeps allowed networks in a 64-bit set).
    public static let maximumNetworks = 64
    /// The card-number lengths a network may declare.
    public static let allowedLengths = 12...19

    /// Builds and validates a table from rules.
    /// - Throws: `CardNetworkTableError` naming the first bad entry and what is wrong with it.
    public init(rules: [CardNetworkRule]) throws(CardNetworkTableError) {
        guard rules.count <= Self.maximumNetworks else {
            throw CardNetworkTableError(.tooManyNetworks, "\(rules.count) networks; at most \(Self.maximumNetworks) are supported")
        }
        var seen: [CardNetwork: Int] = [:]
        for (index, rule) in rules.enumerated() {
            try Self.validate(rule, index: index)
            if let first = seen[rule.network] {
                throw CardNetworkTableError(.duplicateNetwork, entryIndex: index, network: rule.network.rawValue,
                                            "the network is already defined by networks[\(first)]")
            }
            seen[rule.network] = index
        }
        var ranges: [(range: CardPrefixRange, owner: Int)] = []
        for (index, rule) in rules.enumerated() {
            for prefix in rule.prefixes { ranges.append((prefix, index)) }
        }
        ranges.sort { ($0.range.digitCount, $0.range.lowerBound) < ($1.range.digitCount, $1.range.lowerBound) }
        // Same digit count: a range strictly inside a wider one is allowed (the narrower wins);
        // equal ranges, or ranges that only partly overlap, would leave the winner undefined.
        for (position, next) in ranges.enumerated() {
            for previous in ranges[..<position].reversed() where previous.range.digitCount == next.range.digitCount {
                guard previous.range.overlaps(next.range) else { continue }
                let nested = previous.range.width != next.range.width
                    && (previous.range.contains(next.range) || next.range.contains(previous.range))
                if nested && previous.owner != next.owner { continue }
                let owner = rules[next.owner].network.rawValue
                let other = rules[previous.owner].network.rawValue
                throw CardNetworkTableError(.overlappingPrefix, entryIndex: next.owner, network: owner,
                                            "prefix \(next.range) overlaps \(other) prefix \(previous.range)"
                                            + (nested ? "" : " (only a range strictly inside another may overlap it)"))
            }
        }
        for (index, rule) in rules.enumerated() {
            for coBadge in rule.coBadges {
                for network in coBadge.networks where seen[network] == nil || network == rule.network {
                    throw CardNetworkTableError(.badCoBadge, entryIndex: index, network: rule.network.rawValue,
                                                "coBadges: \(network) is not another network of the table")
                }
                guard !coBadge.networks.isEmpty else {
                    throw CardNetworkTableError(.badCoBadge, entryIndex: index, network: rule.network.rawValue,
                                                "coBadges: networks must not be empty")
                }
                for prefix in coBadge.prefixes where !rule.prefixes.contains(where: { $0.contains(prefix) }) {
                    throw CardNetworkTableError(.badCoBadge, entryIndex: index, network: rule.network.rawValue,
                                                "coBadges: prefix \(prefix) is not one of the network's own prefixes")
                }
            }
        }
        self.rules = rules
        index = PrefixIndex(ranges: ranges)
    }

    /// Parses and validates the JSON table.
    /// - Throws: `CardNetworkTableError` (`malformed-json` with the JSON path, or the entry's problem).
    public init(data: Data) throws(CardNetworkTableError) {
        let file: TableFile
        do {
            file = try JSONReader.decode(TableFile.self, from: data)
        } catch {
            throw CardNetworkTableError(.malformedJSON, DecodingErrorDescription.describe(error))
        }
        var rules: [CardNetworkRule] = []
        for (index, entry) in file.networks.enumerated() {
            rules.append(try entry.rule(index: index))
        }
        try self.init(rules: rules)
    }

    /// Reads, parses and validates a table file.
    /// - Throws: `CardNetworkTableError` `.unreadable` when the file cannot be read, else as `init(data:)`.
    public init(contentsOf url: URL) throws(CardNetworkTableError) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw CardNetworkTableError(.unreadable, "cannot read \(url.path)")
        }
        try self.init(data: data)
    }

    /// The rule of a network, if the table has one.
    public func rule(for network: CardNetwork) -> CardNetworkRule? {
        rules.first { $0.network == network }
    }

    /// True when the table describes `network` (with or without local prefixes).
    public func contains(_ network: CardNetwork) -> Bool { ruleIndex(of: network) != nil }

    /// The network whose longest prefix matches the leading digits of `number` (spaces and
    /// dashes ignored, reading stops at any other character); nil when nothing matches.
    /// Allocation-free. `CardValidator.check` detects the same way, so an invalid number still
    /// reports the network its leading digits belong to.
    public func detect(_ number: String) -> CardNetwork? {
        let (lead, count) = Self.leadingDigits(number)
        let index = ruleIndex(lead: lead, digits: count)
        return index < 0 ? nil : rules[index].network
    }

    /// Every network a card may be processed on, from its leading digits: the detected network
    /// first, then the networks a co-badge entry shares its prefix with (`[NARANJA, VISA]` for
    /// `402918...`). Empty when nothing matches. Local detection only: a BIN lookup knows more.
    public func networks(for number: String) -> [CardNetwork] {
        let (lead, count) = Self.leadingDigits(number)
        let index = ruleIndex(lead: lead, digits: count)
        guard index >= 0 else { return [] }
        return [rules[index].network] + coBadgedNetworks(ruleIndex: index, lead: lead, digits: count)
    }

    /// The co-badged networks of rule `ruleIndex` for the leading digits `lead` (`digits` of them).
    func coBadgedNetworks(ruleIndex: Int, lead: UInt32, digits: Int) -> [CardNetwork] {
        var networks: [CardNetwork] = []
        for coBadge in rules[ruleIndex].coBadges where coBadge.prefixes.contains(where: { $0.matches(lead: lead, digits: digits) }) {
            for network in coBadge.networks where !networks.contains(network) { networks.append(network) }
        }
        return networks
    }

    /// The value of the first (up to 8) digits of `number` and how many were read (spaces and
    /// dashes ignored, reading stops at any other character).
    static func leadingDigits(_ number: String) -> (lead: UInt32, count: Int) {
        var lead: UInt32 = 0
        var count = 0
        for byte in number.utf8 {
            if byte >= 48 && byte <= 57 {
                lead = lead * 10 + UInt32(byte - 48)
                count += 1
                if count == CardPrefixRange.maximumDigits { break }
            } else if byte != 32 && byte != 45 {
                break
            }
        }
        return (lead, count)
    }

    // MARK: Internals used by the validator

    /// The index of `network` in `rules`.
    func ruleIndex(of network: CardNetwork) -> Int? {
        rules.firstIndex { $0.network == network }
    }

    /// The rule index matching `lead`, the value of the first `digits` (0-8) digits; -1 for none.
    @inline(__always)
    func ruleIndex(lead: UInt32, digits: Int) -> Int {
        index.owner(lead: lead, digits: digits)
    }

    /// Tables are equal when their rules are (the index is derived from them).
    public static func == (lhs: CardNetworkTable, rhs: CardNetworkTable) -> Bool { lhs.rules == rhs.rules }

    // MARK: Validation

    private static func validate(_ rule: CardNetworkRule, index: Int) throws(CardNetworkTableError) {
        let name = rule.network.rawValue
        func fail(_ code: CardNetworkTableError.Code, _ message: String) -> CardNetworkTableError {
            CardNetworkTableError(code, entryIndex: index, network: name, message)
        }
        guard !name.isEmpty, name.utf8.count <= 32, name.utf8.allSatisfy({ byte in
            (byte >= 65 && byte <= 90) || (byte >= 48 && byte <= 57) || byte == 95
        }) else {
            throw fail(.badNetworkName, "network must be 1-32 upper-case letters, digits or '_'")
        }
        for prefix in rule.prefixes {
            guard (1...CardPrefixRange.maximumDigits).contains(prefix.digitCount) else {
                throw fail(.badPrefix, "prefix \(prefix) must have 1-\(CardPrefixRange.maximumDigits) digits")
            }
            guard prefix.lowerBound <= prefix.upperBound else {
                throw fail(.invertedRange, "prefix range \(prefix) has lo > hi")
            }
            var limit: UInt32 = 1
            for _ in 0..<prefix.digitCount { limit *= 10 }
            guard prefix.upperBound < limit else {
                throw fail(.badPrefix, "prefix \(prefix) has more than \(prefix.digitCount) digits")
            }
        }
        guard !rule.lengths.isEmpty else { throw fail(.badLength, "lengths must not be empty") }
        for length in rule.lengths where !allowedLengths.contains(length) {
            throw fail(.badLength, "lengths: \(length) is outside \(allowedLengths.lowerBound)-\(allowedLengths.upperBound)")
        }
        guard Set(rule.lengths).count == rule.lengths.count else { throw fail(.badLength, "lengths repeat a value") }
        var previous = 0
        for gap in rule.gaps {
            guard gap > previous, gap < rule.maximumLength else {
                throw fail(.badGaps, "gaps must be strictly increasing positions between 1 and \(rule.maximumLength - 1)")
            }
            previous = gap
        }
        guard rule.securityCodeLength == 3 || rule.securityCodeLength == 4 else {
            throw fail(.badSecurityCode, "securityCode.length must be 3 or 4, got \(rule.securityCodeLength)")
        }
        guard !rule.securityCodeName.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw fail(.badSecurityCode, "securityCode.name must not be empty")
        }
        guard !rule.source.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw fail(.missingSource, "source must name where the network's ranges come from")
        }
    }

    // MARK: File format

    private struct TableFile: Decodable {
        var version: Int?
        var networks: [Entry]
    }

    private struct Entry: Decodable {
        struct SecurityCode: Decodable {
            var name: String
            var length: Int
        }

        var network: String
        var prefixes: [String]
        var gaps: [Int]
        var lengths: [Int]
        var securityCode: SecurityCode
        var coBadges: [CoBadge]?
        var source: String

        struct CoBadge: Decodable {
            var prefixes: [String]
            var networks: [String]
        }

        func rule(index: Int) throws(CardNetworkTableError) -> CardNetworkRule {
            let ranges = try parse(prefixes, index: index)
            var shared: [CardCoBadge] = []
            for coBadge in coBadges ?? [] {
                shared.append(CardCoBadge(prefixes: try parse(coBadge.prefixes, index: index),
                                          networks: coBadge.networks.map { CardNetwork(rawValue: $0) }))
            }
            return CardNetworkRule(network: CardNetwork(network), prefixes: ranges, gaps: gaps, lengths: lengths,
                                   securityCodeName: securityCode.name, securityCodeLength: securityCode.length,
                                   coBadges: shared, source: source)
        }

        private func parse(_ texts: [String], index: Int) throws(CardNetworkTableError) -> [CardPrefixRange] {
            var ranges: [CardPrefixRange] = []
            for text in texts {
                do {
                    ranges.append(try CardPrefixRange(parsing: text))
                } catch {
                    let message = switch error {
                    case .malformed: "prefix '\(text)' must be 1-8 digits or LO-HI"
                    case .mixedDigitCounts: "prefix range '\(text)' must have bounds with the same number of digits"
                    case .inverted: "prefix range '\(text)' has lo > hi"
                    }
                    throw CardNetworkTableError(error == .inverted ? .invertedRange : .badPrefix,
                                                entryIndex: index, network: network, message)
                }
            }
            return ranges
        }
    }
}
