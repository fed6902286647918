import Foundation

/// The card-number rule written from the network table's data (`Config/card-networks.json`,
/// read with Foundation's `JSONSerialization`) and the written rules in the reference notes,
/// sharing no code with `CardNetworkTable` or `CardValidator`: an oracle for the validator.
///
/// The rule: spaces and dashes stripped; nothing left is `required`; any other character is
/// `invalid`; a length outside the table's shortest to longest (12–19), a Luhn failure, or a
/// length missing from the detected network's list is `invalid`; with no network detected,
/// fewer than 13 digits is `invalid`. Detection: the longest matching prefix wins, and between
/// two ranges of the same digit count the narrower.
public struct ReferenceCardRules: Sendable {
    /// What the rule says about a number.
    public enum Verdict: String, Sendable {
        case valid, required, invalid
    }

    struct Range: Sendable {
        let network: String
        let low: Int
        let high: Int
        let digits: Int
    }

    let ranges: [Range]
    let lengths: [String: Set<Int>]
    /// The shortest and longest length any network lists.
    public let lengthBounds: ClosedRange<Int>
    /// The shortest number accepted when no network is detected (the reference notes).
    public static let minimumUnknownLength = 13

    /// Reads the table's JSON document.
    public init(tableJSON: Data) throws {
        struct Malformed: Error {}
        guard let root = try JSONSerialization.jsonObject(with: tableJSON) as? [String: Any],
              let networks = root["networks"] as? [[String: Any]] else { throw Malformed() }
        var ranges: [Range] = []
        var lengths: [String: Set<Int>] = [:]
        for entry in networks {
            guard let name = entry["network"] as? String, let prefixes = entry["prefixes"] as? [String],
                  let listed = entry["lengths"] as? [Int] else { throw Malformed() }
            lengths[name] = Set(listed)
            for prefix in prefixes {
                let parts = prefix.split(separator: "-").map(String.init)
                guard let low = Int(parts[0]), let high = Int(parts.count == 2 ? parts[1] : parts[0]) else { throw Malformed() }
                ranges.append(Range(network: name, low: low, high: high, digits: parts[0].count))
            }
        }
        let all = lengths.values.flatMap { $0 }
        guard let shortest = all.min(), let longest = all.max() else { throw Malformed() }
        self.ranges = ranges
        self.lengths = lengths
        self.lengthBounds = shortest...longest
    }

    /// The network the leading digits of `digits` belong to, or nil.
    public func network(ofDigits digits: [Int]) -> String? {
        var best: Range?
        for range in ranges where digits.count >= range.digits {
            let lead = digits.prefix(range.digits).reduce(0) { $0 * 10 + $1 }
            guard (range.low...range.high).contains(lead) else { continue }
            if let current = best {
                if range.digits > current.digits || (range.digits == current.digits && range.high - range.low < current.high - current.low) {
                    best = range
                }
            } else {
                best = range
            }
        }
        return best?.network
    }

    /// The verdict on a typed number.
    public func verdict(_ number: String) -> Verdict {
        var digits: [Int] = []
        for scalar in number.unicodeScalars where scalar != " " && scalar != "-" {
            guard ("0"..."9").contains(scalar) else { return .invalid }
            digits.append(Int(scalar.value) - 48)
        }
        if digits.isEmpty { return .required }
        guard lengthBounds.contains(digits.count), ReferenceCardNumberDetector.luhn(digits) else { return .invalid }
        if let network = network(ofDigits: digits) {
            return lengths[network]?.contains(digits.count) == true ? .valid : .invalid
        }
        return digits.count >= Self.minimumUnknownLength ? .valid : .invalid
    }
}
