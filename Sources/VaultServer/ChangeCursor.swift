import CheckoutCrypto

/// The opaque change-feed cursor: the last server sequence a client has seen, enciphered for one
/// customer.
///
/// The sequence is server-wide, so a cursor that showed it would let a merchant watch how busy
/// the server is (other merchants' writes included). A `v3.` cursor is a standard construction on
/// libcrypto (`CheckoutCrypto`), nothing home-made:
/// - Keys: HKDF-SHA-256 turns the secret each storage keeps (`cursorSecret()`, made once by a
///   migration) into an AES-256 key and an HMAC-SHA-256 key, so cursors survive restarts and every
///   instance on one database issues and accepts the same ones.
/// - Block: the sequence (8 bytes, big-endian) then a binding to the customer (the first 8 bytes
///   of HMAC(mac key, "binding" ‖ merchant ‖ 0x00 ‖ customer)), enciphered with AES-256 as a
///   pseudorandom permutation of that one 16-byte block.
/// - Tag: the first 16 bytes of HMAC(mac key, ciphertext ‖ merchant ‖ 0x00 ‖ customer), compared
///   in constant time.
///
/// Cursors of consecutive changes look unrelated, a cursor of one customer is refused for another
/// (the tag and the binding both name the customer; a NUL cannot occur in either id, so the join
/// is unambiguous), and an edited one is refused. Cursors of earlier formats (`v1.`, the bare
/// sequence in hex; `v2.`, a Feistel construction on SipHash) are refused like any foreign text:
/// the server answers 400 `invalid-cursor` and the sync engine resets that customer once.
struct ChangeCursor: Sendable {
    private static let prefix = Array("v3.".utf8)
    /// Ciphertext and tag, 16 bytes each.
    private static let payloadByteCount = 32

    private let cipherKey: [UInt8]
    private let macKey: [UInt8]

    /// A cursor codec under `secret` (any length; 32 random bytes from the storage). The keys are
    /// derived once, here.
    init(secret: [UInt8]) throws(CryptoError) {
        let salt = Array("checkoutkit change cursor v3".utf8)
        cipherKey = try HKDF.sha256(key: secret, salt: salt, info: Array("aes-256".utf8),
                                    outputByteCount: AES256.keyByteCount)
        macKey = try HKDF.sha256(key: secret, salt: salt, info: Array("hmac-sha-256".utf8),
                                 outputByteCount: HMAC.sha256ByteCount)
    }

    /// The cursor after `sequence` for `key`'s feed. Throws only when libcrypto fails.
    func encode(_ sequence: Int64, for key: CustomerKey) throws(CryptoError) -> String {
        let customer = Self.customer(key)
        var block: [UInt8] = []
        block.reserveCapacity(AES256.blockByteCount)
        for shift in stride(from: 56, through: 0, by: -8) {
            block.append(UInt8(truncatingIfNeeded: UInt64(bitPattern: sequence) >> UInt64(shift)))
        }
        block += binding(customer)
        let ciphertext = try AES256.encryptBlock(block, key: cipherKey)
        return String(decoding: Self.prefix + NibbleLetters.encode(ciphertext + tag(ciphertext, customer)), as: UTF8.self)
    }

    /// The sequence inside a cursor issued for `key`; nil when the text is not such a cursor.
    /// Throws only when libcrypto fails (not an invalid cursor: a server fault).
    func decode(_ text: String, for key: CustomerKey) throws(CryptoError) -> Int64? {
        let utf8 = Array(text.utf8)
        guard utf8.count == Self.prefix.count + 2 * Self.payloadByteCount, utf8.starts(with: Self.prefix),
              let payload = NibbleLetters.decode(utf8[Self.prefix.count...]) else { return nil }
        let ciphertext = Array(payload[0..<AES256.blockByteCount])
        let customer = Self.customer(key)
        guard ConstantTime.equals(payload[AES256.blockByteCount...], tag(ciphertext, customer)) else { return nil }
        let block = try AES256.decryptBlock(ciphertext, key: cipherKey)
        guard ConstantTime.equals(block[8...], binding(customer)) else { return nil }
        let sequence = Int64(bitPattern: block[0..<8].reduce(0) { $0 << 8 | UInt64($1) })
        return sequence >= 0 ? sequence : nil
    }

    /// Merchant and customer joined by a NUL (which neither id can hold).
    private static func customer(_ key: CustomerKey) -> [UInt8] {
        Array(key.merchant.utf8) + [0] + Array(key.customer.utf8)
    }

    /// The 8 bytes that tie a block to its customer.
    private func binding(_ customer: [UInt8]) -> ArraySlice<UInt8> {
        HMAC.sha256(key: macKey, message: Array("binding".utf8) + customer).prefix(8)
    }

    /// The 16-byte tag over a ciphertext for its customer.
    private func tag(_ ciphertext: [UInt8], _ customer: [UInt8]) -> ArraySlice<UInt8> {
        HMAC.sha256(key: macKey, message: ciphertext + customer).prefix(16)
    }
}
