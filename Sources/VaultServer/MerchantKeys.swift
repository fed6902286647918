import CheckoutCrypto

/// The configured merchant API keys, held as SHA-256 digests and compared in constant time.
///
/// An `apiKeys` entry is either the key itself or `sha256:` and the lowercase hex SHA-256 of the
/// key, so a configuration file (or a secret store feeding it) need not hold usable keys. Both
/// kinds become a 32-byte digest here; a presented key is hashed once and its digest compared
/// with every entry, so every comparison has the same length whatever the keys' lengths and
/// kinds. Several entries may name one merchant: that is how keys are rotated (add the new key,
/// move the backends over, remove the old one).
package struct MerchantKeys: Sendable {
    /// The prefix of an entry that holds a key's SHA-256 instead of the key.
    static let hashPrefix = "sha256:"

    /// One digest per valid entry, in a fixed order (by entry text).
    let entries: [(key: [UInt8], merchant: String)]

    /// The table of `apiKeys` (key or `sha256:` entry -> merchant). An entry that `validate()`
    /// would refuse (a malformed `sha256:` one) is left out: it can never match.
    package init(_ apiKeys: [String: String]) {
        entries = apiKeys.sorted { $0.key < $1.key }.compactMap { entry in
            Self.digest(ofEntry: entry.key).map { (key: $0, merchant: entry.value) }
        }
    }

    /// The digest an entry stands for: the SHA-256 of a plain key, or the bytes of a `sha256:`
    /// entry's hex; nil for a `sha256:` entry without exactly 64 lowercase hex digits.
    static func digest(ofEntry entry: String) -> [UInt8]? {
        guard entry.hasPrefix(hashPrefix) else { return Digest.sha256(Array(entry.utf8)) }
        let hex = Array(entry.utf8.dropFirst(hashPrefix.utf8.count))
        guard hex.count == 2 * Digest.sha256ByteCount else { return nil }
        var digest: [UInt8] = []
        digest.reserveCapacity(Digest.sha256ByteCount)
        var high: UInt8 = 0
        for (index, character) in hex.enumerated() {
            let nibble: UInt8
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = character - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = character - UInt8(ascii: "a") + 10
            default: return nil
            }
            if index.isMultiple(of: 2) { high = nibble } else { digest.append(high << 4 | nibble) }
        }
        return digest
    }

    /// The merchant whose key is `presented`, or nil (an empty key is never accepted).
    /// `equals` is a parameter only so that a test can count the comparisons.
    package func merchant(presenting presented: [UInt8],
                  equals: ([UInt8], [UInt8]) -> Bool = { ConstantTime.equals($0, $1) }) -> String? {
        let merchant = Self.merchant(presenting: Digest.sha256(presented), among: entries, equals: equals)
        return presented.isEmpty ? nil : merchant
    }

    /// The merchant whose entry is `presented`, or nil. Every entry is compared, each with
    /// `ConstantTime.equals` (libcrypto's `CRYPTO_memcmp`), and the loop never stops at a match, so
    /// the time taken tells neither how much of a guess was right nor which entry matched.
    static func merchant(presenting presented: [UInt8], among keys: [(key: [UInt8], merchant: String)],
                         equals: ([UInt8], [UInt8]) -> Bool = { ConstantTime.equals($0, $1) }) -> String? {
        var merchant: String?
        for entry in keys {
            let matches = equals(entry.key, presented)
            if matches, merchant == nil { merchant = entry.merchant }
        }
        return merchant
    }
}
