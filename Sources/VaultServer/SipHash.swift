/// SipHash-2-4 (Aumasson and Bernstein, 2012): a fast keyed pseudo-random function of short
/// inputs, used to make change-feed cursors opaque. Not a general-purpose hash.
enum SipHash {
    /// The 64-bit SipHash-2-4 of `bytes` under the 128-bit key `(k0, k1)` (little-endian halves).
    static func hash(_ k0: UInt64, _ k1: UInt64, _ bytes: [UInt8]) -> UInt64 {
        var v0: UInt64 = k0 ^ 0x736f_6d65_7073_6575
        var v1: UInt64 = k1 ^ 0x646f_7261_6e64_6f6d
        var v2: UInt64 = k0 ^ 0x6c79_6765_6e65_7261
        var v3: UInt64 = k1 ^ 0x7465_6462_7974_6573

        func round() {
            v0 &+= v1; v1 = rotl(v1, 13); v1 ^= v0; v0 = rotl(v0, 32)
            v2 &+= v3; v3 = rotl(v3, 16); v3 ^= v2
            v0 &+= v3; v3 = rotl(v3, 21); v3 ^= v0
            v2 &+= v1; v1 = rotl(v1, 17); v1 ^= v2; v2 = rotl(v2, 32)
        }

        let whole = bytes.count & ~7
        var index = 0
        while index < whole {
            let word = littleEndianWord(bytes, from: index, count: 8)
            v3 ^= word
            round(); round()
            v0 ^= word
            index += 8
        }
        let last = UInt64(truncatingIfNeeded: bytes.count) << 56 | littleEndianWord(bytes, from: whole, count: bytes.count - whole)
        v3 ^= last
        round(); round()
        v0 ^= last
        v2 ^= 0xff
        round(); round(); round(); round()
        return v0 ^ v1 ^ v2 ^ v3
    }

    /// Reads `count` (at most 8) bytes from `start` as a little-endian integer.
    static func littleEndianWord(_ bytes: [UInt8], from start: Int, count: Int) -> UInt64 {
        var word: UInt64 = 0
        for offset in 0..<count { word |= UInt64(bytes[start + offset]) << (8 * UInt64(offset)) }
        return word
    }

    private static func rotl(_ value: UInt64, _ count: UInt64) -> UInt64 { (value << count) | (value >> (64 - count)) }
}
