import CheckoutCrypto

/// The opaque change-feed cursor: the last server sequence a client has seen and the customer's
/// purge horizon when the cursor was issued, enciphered for one customer.
///
/// The sequence is server-wide, so a cursor that showed it would let a merchant watch how busy
/// the server is (other merchants' writes included). A `v4.` cursor is a standard construction on
/// libcrypto (`CheckoutCrypto`), nothing home-made:
/// - Keys: HKDF-SHA-256 turns the secret each storage keeps (`cursorSecret()`, made once by a
///   migration) into an AES-256 key and an HMAC-SHA-256 key, so cursors survive restarts and every
///   instance on one database issues and accepts the same ones.
/// - Block: the sequence (6 bytes, big-endian), the horizon (6 bytes) and a binding to the
///   customer (the first 4 bytes of HMAC(mac key, "binding" ‖ merchant ‖ 0x00 ‖ customer)),
///   enciphered with AES-256 as a pseudorandom permutation of that one 16-byte block.
/// - Tag: the first 16 bytes of HMAC(mac key, "v4." ‖ ciphertext ‖ merchant ‖ 0x00 ‖ customer),
///   compared in constant time (a `v3.` tag has no prefix in its message).
///
/// Why the horizon: a cursor is expired when tombstones after it were purged *since it was
/// issued* (the client may hold those instruments). A pull from the start that pages through a
/// customer whose tombstones were purged before it began has cursors below the horizon, and
/// must not be sent back to the start forever.
///
/// Cursors of consecutive changes look unrelated, a cursor of one customer is refused for another
/// (the tag and the binding both name the customer; a NUL cannot occur in either id, so the join
/// is unambiguous), and an edited one is refused. `v3.` cursors (8-byte sequence, 8-byte binding,
/// no horizon) are still accepted, with a horizon of 0; a sequence or horizon beyond 2^48 (never
/// reached: a million writes a second for nine years) is issued as `v3.`. Cursors of earlier
/// formats (`v1.`, the bare sequence in hex; `v2.`, a Feistel construction on SipHash) are refused
/// like any foreign text: the server answers 400 `invalid-cursor` and the sync engine resets that
/// customer once.
struct ChangeCursor: Sendable {
    private static let prefix = Array("v4.".utf8)
    private static let legacyPrefix = Array("v3.".utf8)
    /// Ciphertext and tag, 16 bytes each.
    private static let payloadByteCount = 32
    /// The largest sequence or horizon a `v4.` block holds (6 bytes).
    private static let maxPacked: Int64 = (1 << 48) - 1

    /// What a cursor says: where the client is, and the purge horizon when it got there.
    struct Position: Sendable, Equatable {
        var sequence: Int64
        var horizon: Int64
    }

    private let cipherKey: [UInt8]
    private let macKey: HMAC.Key

    /// A cursor codec under `secret` (any length; 32 random bytes from the storage). The keys are
    /// derived once, here.
    init(secret: [UInt8]) throws(CryptoError) {
        let salt = Array("checkoutkit change cursor v3".utf8)
        cipherKey = try HKDF.sha256(key: secret, salt: salt, info: Array("aes-256".utf8),
                                    outputByteCount: AES256.keyByteCount)
        macKey = HMAC.Key(try HKDF.sha256(key: secret, salt: salt, info: Array("hmac-sha-256".utf8),
                                          outputByteCount: HMAC.sha256ByteCount))
    }

    /// The cursor after `sequence` for `key`'s feed, issued while the customer's purge horizon is
    /// `horizon`. Throws only when libcrypto fails.
    func encode(_ sequence: Int64, horizon: Int64 = 0, for key: CustomerKey) throws(CryptoError) -> String {
        let customer = Self.customer(key)
        var block: [UInt8] = []
        block.reserveCapacity(AES256.blockByteCount)
        let prefix: [UInt8]
        if (0...Self.maxPacked).contains(sequence), (0...Self.maxPacked).contains(horizon) {
            prefix = Self.prefix
            Self.append(sequence, bytes: 6, to: &block)
            Self.append(horizon, bytes: 6, to: &block)
            block += binding(customer).prefix(4)
        } else {
            prefix = Self.legacyPrefix
            Self.append(sequence, bytes: 8, to: &block)
            block += binding(customer)
        }
        let ciphertext = try AES256.encryptBlock(block, key: cipherKey)
        let tag = tag(ciphertext, customer, legacy: prefix == Self.legacyPrefix)
        return String(decoding: prefix + NibbleLetters.encode(ciphertext + tag), as: UTF8.self)
    }

    /// The position inside a cursor issued for `key`; nil when the text is not such a cursor.
    /// Throws only when libcrypto fails (not an invalid cursor: a server fault).
    func decode(_ text: String, for key: CustomerKey) throws(CryptoError) -> Position? {
        let utf8 = Array(text.utf8)
        let isLegacy = utf8.starts(with: Self.legacyPrefix)
        guard utf8.count == Self.prefix.count + 2 * Self.payloadByteCount, isLegacy || utf8.starts(with: Self.prefix),
              let payload = NibbleLetters.decode(utf8[Self.prefix.count...]) else { return nil }
        let ciphertext = Array(payload[0..<AES256.blockByteCount])
        let customer = Self.customer(key)
        guard ConstantTime.equals(payload[AES256.blockByteCount...], tag(ciphertext, customer, legacy: isLegacy)) else { return nil }
        let block = try AES256.decryptBlock(ciphertext, key: cipherKey)
        if isLegacy {
            guard ConstantTime.equals(block[8...], binding(customer)) else { return nil }
            let sequence = Int64(bitPattern: Self.number(block[0..<8]))
            return sequence >= 0 ? Position(sequence: sequence, horizon: 0) : nil
        }
        guard ConstantTime.equals(block[12...], binding(customer).prefix(4)) else { return nil }
        return Position(sequence: Int64(Self.number(block[0..<6])), horizon: Int64(Self.number(block[6..<12])))
    }

    private static func append(_ value: Int64, bytes: Int, to block: inout [UInt8]) {
        for shift in stride(from: 8 * (bytes - 1), through: 0, by: -8) {
            block.append(UInt8(truncatingIfNeeded: UInt64(bitPattern: value) >> UInt64(shift)))
        }
    }

    private static func number(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// Merchant and customer joined by a NUL (which neither id can hold).
    private static func customer(_ key: CustomerKey) -> [UInt8] {
        Array(key.merchant.utf8) + [0] + Array(key.customer.utf8)
    }

    /// The 8 bytes that tie a block to its customer.
    private func binding(_ customer: [UInt8]) -> ArraySlice<UInt8> {
        macKey.sha256(Array("binding".utf8) + customer).prefix(8)
    }

    /// The 16-byte tag over a ciphertext for its customer (a `v4.` tag covers the prefix too).
    private func tag(_ ciphertext: [UInt8], _ customer: [UInt8], legacy: Bool) -> ArraySlice<UInt8> {
        macKey.sha256((legacy ? [] : Self.prefix) + ciphertext + customer).prefix(16)
    }
}
