import COpenSSL

/// Message digests computed by libcrypto.
///
/// A digest names content (request hashes for idempotency, fingerprints of stored keys); it is
/// not a MAC: use `HMAC` when the value must be unforgeable without a key.
public enum Digest {
    /// The size of a SHA-256 digest in bytes.
    public static let sha256ByteCount = 32

    /// The SHA-256 digest (FIPS 180-4) of `bytes`: 32 bytes.
    ///
    /// ```swift
    /// Hex.encode(Digest.sha256(Array("abc".utf8)))  // "ba7816bf...f20015ad"
    /// ```
    /// libcrypto fails here only when it cannot allocate; that stops the process like any other
    /// allocation failure rather than making every caller handle an error that cannot happen.
    public static func sha256(_ bytes: some Collection<UInt8>) -> [UInt8] {
        let md = Algorithms.shared.sha256
        var digest = [UInt8](repeating: 0, count: sha256ByteCount)
        var size: UInt32 = 0
        let status = withBytePointer(bytes) { pointer, count in
            digest.withUnsafeMutableBufferPointer { output in
                EVP_Digest(pointer, count, output.baseAddress, &size, md, nil)
            }
        }
        guard status == 1, size == UInt32(sha256ByteCount) else {
            fatalError(CryptoError.library("SHA-256 (EVP_Digest)").description)
        }
        return digest
    }
}
