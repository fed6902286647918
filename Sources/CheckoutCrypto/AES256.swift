import COpenSSL

/// AES-256 (FIPS 197) on exactly one 16-byte block, computed by libcrypto.
///
/// This is AES as a pseudorandom permutation, the standard way to encipher one fixed 16-byte
/// value (an identifier, a counter with its binding) so that the result looks random and only the
/// key holder can invert it. It is ECB mode with padding disabled over a single block, which is
/// safe for that use only: never loop it over longer data (identical blocks would give identical
/// ciphertexts), and add a MAC when tampering matters, since a block cipher alone does not
/// authenticate.
///
/// A libcrypto without AES-256-ECB, SHA-256 or HMAC (no default provider) stops the process on
/// first use rather than throwing: the module looks all three up once (see `Algorithms`).
public enum AES256 {
    /// The key size in bytes.
    public static let keyByteCount = 32
    /// The block size in bytes.
    public static let blockByteCount = 16

    /// `block` enciphered under `key`.
    /// - Throws: `invalidKeyLength` unless `key` is 32 bytes, `invalidBlockLength` unless `block`
    ///   is 16 bytes, `libraryFailure` when libcrypto refuses the operation.
    public static func encryptBlock(_ block: [UInt8], key: [UInt8]) throws(CryptoError) -> [UInt8] {
        try cipher(block, key: key, encrypt: true)
    }

    /// `block` deciphered under `key` (the inverse of `encryptBlock`).
    /// - Throws: `invalidKeyLength` unless `key` is 32 bytes, `invalidBlockLength` unless `block`
    ///   is 16 bytes, `libraryFailure` when libcrypto refuses the operation.
    public static func decryptBlock(_ block: [UInt8], key: [UInt8]) throws(CryptoError) -> [UInt8] {
        try cipher(block, key: key, encrypt: false)
    }

    private static func cipher(_ block: [UInt8], key: [UInt8], encrypt: Bool) throws(CryptoError) -> [UInt8] {
        let aes = Algorithms.shared.aes256ECB
        guard key.count == keyByteCount else {
            throw CryptoError(.invalidKeyLength, "AES-256 needs a \(keyByteCount)-byte key, not \(key.count) bytes")
        }
        guard block.count == blockByteCount else {
            throw CryptoError(.invalidBlockLength, "an AES block is \(blockByteCount) bytes, not \(block.count)")
        }
        // A fresh context per call: nothing is shared between threads.
        guard let context = EVP_CIPHER_CTX_new() else { throw CryptoError.library("AES context (EVP_CIPHER_CTX_new)") }
        defer { EVP_CIPHER_CTX_free(context) }
        // Room for what EVP_CipherUpdate may write (input plus one block), though one block comes out.
        var output = [UInt8](repeating: 0, count: 2 * blockByteCount)
        var updated: Int32 = 0
        var finished: Int32 = 0
        let succeeded = key.withUnsafeBufferPointer { keyBuffer in
            block.withUnsafeBufferPointer { input in
                output.withUnsafeMutableBufferPointer { out in
                    EVP_CipherInit_ex2(context, aes, keyBuffer.baseAddress, nil, encrypt ? 1 : 0, nil) == 1
                        && EVP_CIPHER_CTX_set_padding(context, 0) == 1
                        && EVP_CipherUpdate(context, out.baseAddress, &updated, input.baseAddress, Int32(blockByteCount)) == 1
                        && EVP_CipherFinal_ex(context, out.baseAddress! + Int(updated), &finished) == 1
                }
            }
        }
        guard succeeded, updated + finished == Int32(blockByteCount) else {
            throw CryptoError.library(encrypt ? "AES-256 encrypt" : "AES-256 decrypt")
        }
        return Array(output.prefix(blockByteCount))
    }
}
