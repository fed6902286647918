import COpenSSL

/// Keyed message authentication (RFC 2104) computed by libcrypto.
///
/// A MAC proves that whoever made a value held the key: tags on opaque tokens handed to clients,
/// signatures of webhook bodies, stored hashes of bearer credentials. Compare tags with
/// `ConstantTime.equals`, never `==`.
public enum HMAC {
    /// The size of an HMAC-SHA-256 tag in bytes.
    public static let sha256ByteCount = 32

    /// HMAC-SHA-256 of `message` under `key` (any length; keys over 64 bytes are hashed first, as
    /// RFC 2104 says): 32 bytes.
    ///
    /// ```swift
    /// let tag = HMAC.sha256(key: secret, message: Array(body.utf8))
    /// ```
    /// libcrypto fails here only when it cannot allocate; that stops the process like any other
    /// allocation failure rather than making every caller handle an error that cannot happen.
    public static func sha256(key: some Collection<UInt8>, message: some Collection<UInt8>) -> [UInt8] {
        _ = LibCrypto.ready
        var tag = [UInt8](repeating: 0, count: sha256ByteCount)
        var length = 0
        let result = withBytePointer(key) { keyPointer, keyCount in
            withBytePointer(message) { messagePointer, messageCount in
                tag.withUnsafeMutableBufferPointer { output in
                    // EVP_Q_mac: the one-shot EVP_MAC call, sizes as size_t (HMAC() takes an int key length).
                    EVP_Q_mac(nil, "HMAC", nil, "SHA256", nil, keyPointer, keyCount, messagePointer, messageCount,
                              output.baseAddress, output.count, &length)
                }
            }
        }
        guard result != nil, length == sha256ByteCount else {
            fatalError(CryptoError.library("HMAC-SHA-256 (EVP_Q_mac)").description)
        }
        return tag
    }
}
