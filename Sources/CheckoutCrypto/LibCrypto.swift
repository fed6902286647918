import COpenSSL

/// libcrypto's one-time initialisation, done by the first call into this module.
///
/// OpenSSL is told not to clean up in an atexit handler: a host that exits while another thread
/// still hashes or closes a TLS connection (libcurl's transport thread) would otherwise crash in
/// freed locks. The process's memory is returned on exit anyway. OpenSSL settles this on its
/// first initialisation, so `HTTPTransport` asks the same before `curl_global_init`.
enum LibCrypto {
    /// True once libcrypto is initialised; reading it the first time initialises it (Swift runs a
    /// static initialiser once, thread-safely).
    static let ready: Bool = copenssl_init_without_atexit() == 1
}

/// The libcrypto implementations this module uses, looked up once per process.
///
/// OpenSSL 3 finds an algorithm by name in a locked table on every implicit use (`EVP_sha256()`
/// and `EVP_aes_256_ecb()` passed to an init call, `EVP_Q_mac`); fetched once, each operation skips
/// that lookup, which cost more than hashing a short message. The objects are immutable once made,
/// shared by every thread (each operation makes its own context from them) and kept for the
/// process's life.
final class Algorithms: @unchecked Sendable {
    /// SHA-256 (`EVP_MD`).
    let sha256: OpaquePointer
    /// AES-256 in ECB mode (`EVP_CIPHER`), for single blocks.
    let aes256ECB: OpaquePointer
    /// An HMAC context with SHA-256 chosen and no key (`EVP_MAC_CTX`): only ever duplicated.
    let hmacSHA256: OpaquePointer

    /// The process's algorithms; the first read fetches them (Swift runs a static initialiser
    /// once, thread-safely).
    static let shared = Algorithms()

    private init() {
        _ = LibCrypto.ready
        // Without OpenSSL's default provider nothing here can work; like an allocation failure,
        // that stops the process with the reason rather than making every caller handle it.
        guard let sha256 = EVP_MD_fetch(nil, "SHA256", nil) else {
            fatalError(CryptoError.library("fetching SHA-256 (EVP_MD_fetch)").description)
        }
        guard let aes = EVP_CIPHER_fetch(nil, "AES-256-ECB", nil) else {
            fatalError(CryptoError.library("fetching AES-256-ECB (EVP_CIPHER_fetch)").description)
        }
        guard let hmac = copenssl_hmac_sha256_template() else {
            fatalError(CryptoError.library("fetching HMAC-SHA-256 (EVP_MAC_fetch)").description)
        }
        self.sha256 = sha256
        aes256ECB = aes
        hmacSHA256 = hmac
    }
}
