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
    /// A key used for many tags is better prepared once as a `Key`.
    /// libcrypto fails here only when it cannot allocate; that stops the process like any other
    /// allocation failure rather than making every caller handle an error that cannot happen.
    public static func sha256(key: some Collection<UInt8>, message: some Collection<UInt8>) -> [UInt8] {
        let context = keyed(key)
        defer { EVP_MAC_CTX_free(context) }
        return finish(context, message)
    }

    /// An HMAC-SHA-256 key prepared once for many tags: libcrypto keeps the key's inner and outer
    /// pads in a context, and each tag starts from a copy of it.
    ///
    /// For a key that signs every request (a server's cursor or token key), a tag then skips
    /// hashing the key into its pads, which over a short message is a large part of the work.
    /// Safe to share between threads: the prepared context is never updated or finalised, only
    /// duplicated, and duplicating copies its state and takes atomic references. The key bytes live
    /// only in libcrypto's context, which libcrypto cleanses when the `Key` goes.
    ///
    /// ```swift
    /// let signer = HMAC.Key(secret)
    /// let tag = signer.sha256(Array(body.utf8))   // == HMAC.sha256(key: secret, message: ...)
    /// ```
    public final class Key: @unchecked Sendable {
        /// The keyed context (`EVP_MAC_CTX`): never updated, only duplicated.
        private let context: OpaquePointer

        /// Prepares `key` (any length, as `HMAC.sha256(key:message:)` takes it).
        public init(_ key: some Collection<UInt8>) {
            context = HMAC.keyed(key)
        }

        deinit { EVP_MAC_CTX_free(context) }

        /// HMAC-SHA-256 of `message` under this key: 32 bytes.
        public func sha256(_ message: some Collection<UInt8>) -> [UInt8] {
            guard let copy = EVP_MAC_CTX_dup(context) else {
                fatalError(CryptoError.library("HMAC-SHA-256 (EVP_MAC_CTX_dup)").description)
            }
            defer { EVP_MAC_CTX_free(copy) }
            return HMAC.finish(copy, message)
        }
    }

    /// A new context keyed with `key`, from the process's HMAC-SHA-256 template.
    private static func keyed(_ key: some Collection<UInt8>) -> OpaquePointer {
        guard let context = EVP_MAC_CTX_dup(Algorithms.shared.hmacSHA256) else {
            fatalError(CryptoError.library("HMAC-SHA-256 (EVP_MAC_CTX_dup)").description)
        }
        // The pointer is never nil, even for an empty key: a nil key means "keep the old key".
        let initialised = withBytePointer(key) { pointer, count in EVP_MAC_init(context, pointer, count, nil) }
        guard initialised == 1 else {
            EVP_MAC_CTX_free(context)
            fatalError(CryptoError.library("HMAC-SHA-256 (EVP_MAC_init)").description)
        }
        return context
    }

    /// The tag of `message` from a keyed context, which this call uses up.
    private static func finish(_ context: OpaquePointer, _ message: some Collection<UInt8>) -> [UInt8] {
        var tag = [UInt8](repeating: 0, count: sha256ByteCount)
        var length = 0
        let succeeded = withBytePointer(message) { pointer, count in
            tag.withUnsafeMutableBufferPointer { output in
                EVP_MAC_update(context, pointer, count) == 1
                    && EVP_MAC_final(context, output.baseAddress, &length, output.count) == 1
            }
        }
        guard succeeded, length == sha256ByteCount else {
            fatalError(CryptoError.library("HMAC-SHA-256 (EVP_MAC_final)").description)
        }
        return tag
    }
}
