import COpenSSL

/// Key derivation (RFC 5869, extract then expand) computed by libcrypto.
///
/// One secret becomes several independent keys, one per purpose (`info`), so that a key used to
/// encipher is never also used to authenticate. The input must already be secret and high in
/// entropy (random bytes, a shared secret); HKDF is not a password hash.
public enum HKDF {
    /// The largest output of HKDF-SHA-256: 255 blocks of 32 bytes.
    public static let sha256MaxOutputByteCount = 255 * 32

    /// `outputByteCount` bytes derived from `key` with HKDF-SHA-256.
    ///
    /// ```swift
    /// let macKey = try HKDF.sha256(key: secret, salt: Array("app v1".utf8), info: Array("hmac".utf8),
    ///                              outputByteCount: 32)
    /// ```
    /// - Parameters:
    ///   - key: the input keying material.
    ///   - salt: optional, non-secret; empty means RFC 5869's default (32 zero bytes).
    ///   - info: what the key is for; different `info` gives unrelated keys. OpenSSL 3.0 accepts
    ///     up to 1,024 bytes.
    ///   - outputByteCount: 1 through `sha256MaxOutputByteCount`.
    /// - Throws: `invalidOutputLength` for a count out of range, `invalidKeyLength` for inputs too
    ///   long for libcrypto's `int` lengths, `libraryFailure` when libcrypto refuses.
    public static func sha256(key: some Collection<UInt8>, salt: some Collection<UInt8>, info: some Collection<UInt8>,
                              outputByteCount: Int) throws(CryptoError) -> [UInt8] {
        _ = LibCrypto.ready
        guard (1...sha256MaxOutputByteCount).contains(outputByteCount) else {
            throw CryptoError(.invalidOutputLength,
                              "HKDF-SHA-256 gives 1 to \(sha256MaxOutputByteCount) bytes, not \(outputByteCount)")
        }
        guard key.count <= Int32.max, salt.count <= Int32.max, info.count <= Int32.max else {
            throw CryptoError(.invalidKeyLength, "HKDF inputs must be shorter than 2 GiB")
        }
        // A fresh context per call: nothing is shared between threads.
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "HKDF", nil) else {
            throw CryptoError.library("HKDF context (EVP_PKEY_CTX_new_from_name)")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_derive_init(context) == 1, EVP_PKEY_CTX_set_hkdf_md(context, EVP_sha256()) == 1 else {
            throw CryptoError.library("HKDF setup")
        }
        // The set1/add1 calls copy their input, so the pointers need only live for each call.
        guard withBytePointer(key, { EVP_PKEY_CTX_set1_hkdf_key(context, $0, Int32($1)) }) == 1 else {
            throw CryptoError.library("HKDF key")
        }
        // No salt and an empty salt are the same in RFC 5869; libcrypto wants no call for none.
        if !salt.isEmpty, withBytePointer(salt, { EVP_PKEY_CTX_set1_hkdf_salt(context, $0, Int32($1)) }) != 1 {
            throw CryptoError.library("HKDF salt")
        }
        if !info.isEmpty, withBytePointer(info, { EVP_PKEY_CTX_add1_hkdf_info(context, $0, Int32($1)) }) != 1 {
            throw CryptoError.library("HKDF info")
        }
        var output = [UInt8](repeating: 0, count: outputByteCount)
        var length = outputByteCount
        let status = output.withUnsafeMutableBufferPointer { EVP_PKEY_derive(context, $0.baseAddress, &length) }
        guard status == 1, length == outputByteCount else { throw CryptoError.library("HKDF derive") }
        return output
    }
}
