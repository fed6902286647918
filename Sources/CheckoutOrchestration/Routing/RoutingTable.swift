/// The routes of a routing file compiled for a fast decision (`decide(_:)`: well under 2 µs over
/// 100 routes), plus the slow, wordy `explain(_:)` that says why each route did or did not match.
///
/// Compilation interns every string a condition mentions into a small integer per dimension, so a
/// decision hashes each fact of the payment once and then tests bits per route.
public struct RoutingTable: Sendable {
    /// The routes, in file order.
    public let routes: [Route]

    private struct Bits: Sendable {
        var words: [UInt64] = []
        mutating func insert(_ index: Int) {
            let word = index >> 6
            if words.count <= word { words.append(contentsOf: repeatElement(0, count: word - words.count + 1)) }
            words[word] |= 1 << UInt64(index & 63)
        }
        func contains(_ index: Int) -> Bool {
            let word = index >> 6
            return index >= 0 && word < words.count && words[word] & (1 << UInt64(index & 63)) != 0
        }
        func intersects(_ other: Bits) -> Bool {
            for index in 0..<min(words.count, other.words.count) where words[index] & other.words[index] != 0 { return true }
            return false
        }
    }

    private struct Compiled: Sendable {
        var methodType: Bits?
        var cardNetwork: Bits?
        var issuerCountry: Bits?
        var currency: Bits?
        var bin: [BinRange]?
        var amount: AmountRange?
        /// One bit set per metadata key the route tests; the payment must hit each.
        var merchant: [Bits]?
        var customer: [Bits]?
    }

    private let compiled: [Compiled]
    private let methodTypes: [String: Int]
    private let networks: [String: Int]
    private let countries: [String: Int]
    private let currencies: [String: Int]
    private let merchantPairs: [String: Int]
    private let customerPairs: [String: Int]
    private let merchantKeys: Set<String>
    private let customerKeys: Set<String>

    /// Compiles `routes`.
    public init(routes: [Route]) {
        self.routes = routes
        var methodTypes: [String: Int] = [:], networks: [String: Int] = [:], countries: [String: Int] = [:]
        var currencies: [String: Int] = [:], merchantPairs: [String: Int] = [:], customerPairs: [String: Int] = [:]
        func bits(_ values: Set<String>?, _ table: inout [String: Int]) -> Bits? {
            guard let values else { return nil }
            var result = Bits()
            for value in values.sorted() {
                let index = table[value] ?? table.count
                table[value] = index
                result.insert(index)
            }
            return result
        }
        func pairs(_ metadata: [String: Set<String>]?, _ table: inout [String: Int]) -> [Bits]? {
            guard let metadata else { return nil }
            return metadata.sorted(by: { $0.key < $1.key }).map { key, values in
                var result = Bits()
                for value in values.sorted() {
                    let pair = Self.pair(key, value)
                    let index = table[pair] ?? table.count
                    table[pair] = index
                    result.insert(index)
                }
                return result
            }
        }
        var merchantKeys: Set<String> = [], customerKeys: Set<String> = []
        compiled = routes.map { route in
            let when = route.when
            merchantKeys.formUnion(when.merchant?.keys ?? [:].keys)
            customerKeys.formUnion(when.customer?.keys ?? [:].keys)
            return Compiled(methodType: bits(when.methodType, &methodTypes), cardNetwork: bits(when.cardNetwork, &networks),
                            issuerCountry: bits(when.issuerCountry, &countries), currency: bits(when.currency, &currencies),
                            bin: when.bin, amount: when.amount, merchant: pairs(when.merchant, &merchantPairs),
                            customer: pairs(when.customer, &customerPairs))
        }
        self.methodTypes = methodTypes
        self.networks = networks
        self.countries = countries
        self.currencies = currencies
        self.merchantPairs = merchantPairs
        self.customerPairs = customerPairs
        self.merchantKeys = merchantKeys
        self.customerKeys = customerKeys
    }

    private static func pair(_ key: String, _ value: String) -> String { key + "\u{0}" + value }

    /// The index of the first route whose conditions hold, or nil when none does.
    public func decide(_ facts: RoutingFacts) -> Int? {
        let method = methodTypes[facts.methodType] ?? -1
        let network = facts.cardNetwork.flatMap { networks[$0] } ?? -1
        let country = facts.issuerCountry.flatMap { countries[$0] } ?? -1
        let currency = currencies[facts.currency] ?? -1
        var binDigits: [Int] = []
        if let bin = facts.bin {
            var value = 0
            for byte in bin.utf8 where byte >= 48 && byte <= 57 {
                value = value * 10 + Int(byte - 48)
                binDigits.append(value)
            }
        }
        var merchant = Bits(), customer = Bits()
        if !merchantPairs.isEmpty {
            for (key, value) in facts.merchant where merchantKeys.contains(key) {
                if let index = merchantPairs[Self.pair(key, value)] { merchant.insert(index) }
            }
        }
        if !customerPairs.isEmpty {
            for (key, value) in facts.customer where customerKeys.contains(key) {
                if let index = customerPairs[Self.pair(key, value)] { customer.insert(index) }
            }
        }
        for (index, route) in compiled.enumerated() {
            if let bits = route.methodType, !bits.contains(method) { continue }
            if let bits = route.currency, !bits.contains(currency) { continue }
            if let amount = route.amount, !amount.contains(facts.amount) { continue }
            if let bits = route.cardNetwork, !bits.contains(network) { continue }
            if let bits = route.issuerCountry, !bits.contains(country) { continue }
            if let ranges = route.bin, !ranges.contains(where: { Self.binMatches($0, binDigits) }) { continue }
            if let keys = route.merchant, !keys.allSatisfy({ $0.intersects(merchant) }) { continue }
            if let keys = route.customer, !keys.allSatisfy({ $0.intersects(customer) }) { continue }
            return index
        }
        return nil
    }

    private static func binMatches(_ range: BinRange, _ prefixes: [Int]) -> Bool {
        guard prefixes.count >= range.digits else { return false }
        let value = prefixes[range.digits - 1]
        return value >= range.low && value <= range.high
    }

    /// Why each route did or did not match, up to and including the chosen one.
    public func explain(_ facts: RoutingFacts) -> [RouteVerdict] {
        var verdicts: [RouteVerdict] = []
        for route in routes {
            let failures = Self.failures(route.when, facts)
            verdicts.append(RouteVerdict(route: route.name, matched: failures.isEmpty,
                                         reasons: failures.isEmpty ? Self.matches(route.when, facts) : failures))
            if failures.isEmpty { break }
        }
        return verdicts
    }

    private static func list(_ values: Set<String>) -> String { "[" + values.sorted().joined(separator: ", ") + "]" }

    private static func failures(_ when: RouteConditions, _ facts: RoutingFacts) -> [String] {
        var reasons: [String] = []
        if let values = when.methodType, !values.contains(facts.methodType) {
            reasons.append("methodType \(facts.methodType) not in \(list(values))")
        }
        if let values = when.currency, !values.contains(facts.currency) {
            reasons.append("currency \(facts.currency) not in \(list(values))")
        }
        if let amount = when.amount, !amount.contains(facts.amount) {
            reasons.append("amount \(facts.amount) outside \(amount.min.map(String.init) ?? "-inf")...\(amount.max.map(String.init) ?? "inf")")
        }
        if let values = when.cardNetwork, !(facts.cardNetwork.map(values.contains) ?? false) {
            reasons.append("cardNetwork \(facts.cardNetwork ?? "unknown") not in \(list(values))")
        }
        if let values = when.issuerCountry, !(facts.issuerCountry.map(values.contains) ?? false) {
            reasons.append("issuerCountry \(facts.issuerCountry ?? "unknown") not in \(list(values))")
        }
        if let ranges = when.bin {
            let bin = facts.bin ?? ""
            let hit = ranges.contains { range in
                bin.utf8.count >= range.digits && Int(bin.prefix(range.digits)).map { $0 >= range.low && $0 <= range.high } == true
            }
            if !hit { reasons.append("bin \(bin.isEmpty ? "unknown" : String(bin.prefix(6))) not in \(ranges.map { "\($0.from)-\($0.to)" }.joined(separator: ", "))") }
        }
        for (label, conditions, values) in [("merchant", when.merchant, facts.merchant), ("customer", when.customer, facts.customer)] {
            for (key, accepted) in (conditions ?? [:]).sorted(by: { $0.key < $1.key }) where !(values[key].map(accepted.contains) ?? false) {
                reasons.append("\(label).\(key) \(values[key] ?? "unset") not in \(list(accepted))")
            }
        }
        return reasons
    }

    private static func matches(_ when: RouteConditions, _ facts: RoutingFacts) -> [String] {
        var reasons: [String] = []
        if when.methodType != nil { reasons.append("methodType \(facts.methodType)") }
        if when.currency != nil { reasons.append("currency \(facts.currency)") }
        if let amount = when.amount {
            reasons.append("amount \(facts.amount) in \(amount.min.map(String.init) ?? "-inf")...\(amount.max.map(String.init) ?? "inf")")
        }
        if when.cardNetwork != nil { reasons.append("cardNetwork \(facts.cardNetwork ?? "")") }
        if when.issuerCountry != nil { reasons.append("issuerCountry \(facts.issuerCountry ?? "")") }
        if when.bin != nil { reasons.append("bin \(String((facts.bin ?? "").prefix(6))) in range") }
        for key in (when.merchant ?? [:]).keys.sorted() { reasons.append("merchant.\(key) \(facts.merchant[key] ?? "")") }
        for key in (when.customer ?? [:]).keys.sorted() { reasons.append("customer.\(key) \(facts.customer[key] ?? "")") }
        if reasons.isEmpty { reasons.append("no conditions: matches every payment") }
        return reasons
    }
}

/// One route's verdict in `RoutingTable.explain(_:)`.
public struct RouteVerdict: Sendable, Equatable {
    /// The route's name.
    public var route: String
    /// Whether it matched (the last verdict of an explanation is the chosen route when it matched).
    public var matched: Bool
    /// Why: the conditions that failed, or those that held.
    public var reasons: [String]
}
