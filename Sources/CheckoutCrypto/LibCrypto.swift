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
