/// The opaque change-feed cursor: the last server sequence a client has seen, enciphered for one
/// customer.
///
/// The sequence is server-wide, so a cursor that showed it would let a merchant watch how busy
/// the server is (other merchants' writes included). A `v2.` cursor is 32 letters: the
/// sequence through a 4-round Feistel permutation keyed by the vault's secret and the customer,
/// then a 64-bit tag over the result. Cursors of consecutive changes look unrelated, a cursor of
/// one customer is refused for another, and an edited one is refused. Round function and tag are
/// SipHash-2-4 under a key derived from the secret each storage keeps (`cursorSecret()`, made
/// once by a migration), so cursors survive restarts and every instance on one database issues
/// and accepts the same ones. Legacy `v1.` cursors (the bare sequence in hex, issued before) are
/// still accepted, so clients keep syncing across the upgrade; they are never issued any more.
struct ChangeCursor: Sendable {
    private let k0: UInt64
    private let k1: UInt64

    /// A cursor codec under `secret` (any length; 32 random bytes from the storage).
    init(secret: [UInt8]) {
        let digest = SHA256.digest(Array("checkoutkit change cursor v2".utf8) + secret)
        k0 = SipHash.littleEndianWord(digest, from: 0, count: 8)
        k1 = SipHash.littleEndianWord(digest, from: 8, count: 8)
    }

    /// The cursor after `sequence` for `key`'s feed.
    func encode(_ sequence: Int64, for key: CustomerKey) -> String {
        var message = Self.message(for: key)
        var left = UInt32(truncatingIfNeeded: UInt64(bitPattern: sequence) >> 32)
        var right = UInt32(truncatingIfNeeded: UInt64(bitPattern: sequence))
        for round in 0..<Self.rounds {
            (left, right) = (right, left ^ roundFunction(round, right, &message))
        }
        let block = UInt64(left) << 32 | UInt64(right)
        return "v2." + Self.letters(block) + Self.letters(tag(block, &message))
    }

    /// The sequence inside a cursor issued for `key`; nil when the text is not such a cursor.
    func decode(_ text: String, for key: CustomerKey) -> Int64? {
        if text.hasPrefix("v1.") { return Self.decodeLegacy(text) }
        let utf8 = Array(text.utf8)
        guard utf8.count == 35, text.hasPrefix("v2."),
              let block = Self.parseLetters(utf8[3..<19]), let tag = Self.parseLetters(utf8[19..<35]) else { return nil }
        var message = Self.message(for: key)
        guard tag == self.tag(block, &message) else { return nil }
        var left = UInt32(truncatingIfNeeded: block >> 32)
        var right = UInt32(truncatingIfNeeded: block)
        for round in (0..<Self.rounds).reversed() {
            (left, right) = (right ^ roundFunction(round, left, &message), left)
        }
        let sequence = Int64(bitPattern: UInt64(left) << 32 | UInt64(right))
        return sequence >= 0 ? sequence : nil
    }

    /// The sequence inside a legacy `v1.` cursor (lowercase hex, at most 17 characters).
    private static func decodeLegacy(_ text: String) -> Int64? {
        guard text.hasPrefix("v1."), text.utf8.count <= 20 else { return nil }
        let digits = text.dropFirst(3)
        guard !digits.isEmpty, digits.allSatisfy({ $0.isHexDigit && $0.isASCII && !$0.isUppercase }),
              let value = Int64(digits, radix: 16), value >= 0 else { return nil }
        return value
    }

    private static let rounds: UInt8 = 4

    /// The SipHash input of one cursor, reused by every round and the tag: a domain byte (the
    /// round, or 0xff for the tag), an 8-byte payload, then merchant and customer unambiguously
    /// joined (a NUL cannot occur in either).
    private static func message(for key: CustomerKey) -> [UInt8] {
        [UInt8](repeating: 0, count: 9) + Array(key.merchant.utf8) + [0] + Array(key.customer.utf8)
    }

    private func roundFunction(_ round: UInt8, _ half: UInt32, _ message: inout [UInt8]) -> UInt32 {
        UInt32(truncatingIfNeeded: keyedHash(domain: round, UInt64(half), &message))
    }

    private func tag(_ block: UInt64, _ message: inout [UInt8]) -> UInt64 {
        keyedHash(domain: 0xff, block, &message)
    }

    /// SipHash of `message` with its domain byte and little-endian payload filled in.
    private func keyedHash(domain: UInt8, _ payload: UInt64, _ message: inout [UInt8]) -> UInt64 {
        message[0] = domain
        for index in 0..<8 { message[1 + index] = UInt8(truncatingIfNeeded: payload >> (8 * UInt64(index))) }
        return SipHash.hash(k0, k1, message)
    }

    /// Sixteen nibbles as the letters `a` to `p`, most significant first. Letters, not hex: a
    /// random run of decimal digits could pass for a card number, and every layer (the client's
    /// store included) refuses to keep anything that looks like one.
    private static func letters(_ value: UInt64) -> String {
        var letters: [UInt8] = []
        letters.reserveCapacity(16)
        for shift in stride(from: 60, through: 0, by: -4) {
            letters.append(UInt8(ascii: "a") + UInt8(truncatingIfNeeded: (value >> UInt64(shift)) & 0xf))
        }
        return String(decoding: letters, as: UTF8.self)
    }

    private static func parseLetters(_ bytes: ArraySlice<UInt8>) -> UInt64? {
        var value: UInt64 = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "a"), byte <= UInt8(ascii: "p") else { return nil }
            value = value << 4 | UInt64(byte - UInt8(ascii: "a"))
        }
        return value
    }
}
