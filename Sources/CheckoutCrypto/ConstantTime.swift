import COpenSSL

/// Comparisons whose running time does not depend on where two secrets differ.
///
/// API keys, MAC tags and other secrets are compared with this, never with `==`: `==` returns at
/// the first differing byte, so response timing would tell an attacker how many leading bytes of
/// a guess were right, and a key could be found a byte at a time. libcrypto's `CRYPTO_memcmp`
/// reads every byte whatever the contents.
public enum ConstantTime {
    /// True when `lhs` and `rhs` hold the same bytes.
    ///
    /// Inputs of different lengths are unequal at once: the length may leak (a key's length is
    /// not secret), the contents do not.
    public static func equals(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
        _ = LibCrypto.ready
        return withBytePointer(lhs) { left, leftCount in
            withBytePointer(rhs) { right, rightCount in
                leftCount == rightCount && CRYPTO_memcmp(left, right, leftCount) == 0
            }
        }
    }

    /// `equals` over the UTF-8 bytes of two strings.
    public static func equals(_ lhs: String, _ rhs: String) -> Bool {
        equals(lhs.utf8, rhs.utf8)
    }
}
