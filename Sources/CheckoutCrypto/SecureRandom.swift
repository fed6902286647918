import COpenSSL

/// Cryptographically secure random bytes from libcrypto's generator (seeded by the OS).
///
/// For secrets: keys, salts, tokens. A failure is an error to handle, never a silent fallback to
/// a weaker generator: a predictable secret is worse than none.
public enum SecureRandom {
    /// `count` random bytes (`count` may be zero).
    ///
    /// ```swift
    /// let secret = try SecureRandom.bytes(32)
    /// ```
    /// - Throws: `invalidOutputLength` for a negative or over-2-GiB count, `randomUnavailable`
    ///   when the generator cannot produce bytes.
    public static func bytes(_ count: Int) throws(CryptoError) -> [UInt8] {
        _ = LibCrypto.ready
        guard count >= 0, count <= Int32.max else {
            throw CryptoError(.invalidOutputLength, "random byte count must be 0 to \(Int32.max), not \(count)")
        }
        guard count > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: count)
        let status = bytes.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32($0.count)) }
        guard status == 1 else { throw CryptoError.library("RAND_bytes", code: .randomUnavailable) }
        return bytes
    }
}
