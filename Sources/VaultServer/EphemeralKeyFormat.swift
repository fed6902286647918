import CheckoutCrypto

/// The text of ephemeral key ids and secrets: a prefix, then random bytes from libcrypto spelt
/// as letters a–p.
///
/// Letters only, never digits: the server refuses to store anything that looks like a card
/// number (12–19 digits passing Luhn), and an id or secret can never hold even one digit.
enum EphemeralKeyFormat {
    /// The prefix of a key's public id.
    static let idPrefix = "ek_"
    /// The prefix of a key's secret: how the server tells a device's bearer token from a merchant
    /// API key (plain API keys may not start with it).
    static let secretPrefix = "eks_"
    /// Random bytes in an id: 96 bits, 24 letters (ids need only be unique).
    static let idByteCount = 12
    /// Random bytes in a secret: 256 bits, 64 letters.
    static let secretByteCount = 32

    /// A fresh id, `ek_` and 24 letters.
    static func newId() throws(CryptoError) -> String {
        idPrefix + NibbleLetters.string(try SecureRandom.bytes(idByteCount))
    }

    /// A fresh secret, `eks_` and 64 letters.
    static func newSecret() throws(CryptoError) -> String {
        secretPrefix + NibbleLetters.string(try SecureRandom.bytes(secretByteCount))
    }

    /// True when `text` has the shape of an id (anything else cannot name a key).
    static func isId(_ text: String) -> Bool {
        has(Array(text.utf8), prefix: idPrefix, byteCount: idByteCount)
    }

    /// True when `bytes` start like a secret, whatever follows: such a bearer token is never
    /// tried as a merchant API key.
    static func looksLikeSecret(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: secretPrefix.utf8)
    }

    /// True when `bytes` have the exact shape of a secret.
    static func isSecret(_ bytes: [UInt8]) -> Bool {
        has(bytes, prefix: secretPrefix, byteCount: secretByteCount)
    }

    private static func has(_ bytes: [UInt8], prefix: String, byteCount: Int) -> Bool {
        bytes.count == prefix.utf8.count + 2 * byteCount && bytes.starts(with: prefix.utf8)
            && NibbleLetters.decode(bytes.dropFirst(prefix.utf8.count)) != nil
    }
}
