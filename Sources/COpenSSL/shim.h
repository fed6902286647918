#ifndef CHECKOUTKIT_COPENSSL_SHIM_H
#define CHECKOUTKIT_COPENSSL_SHIM_H
// libcrypto only (no TLS): digests, HMAC, HKDF, AES, random bytes and constant-time comparison.
// Every function used from Swift is a plain C function in OpenSSL 3.0; the one `static inline`
// helper below names an option that is a macro.
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#include <openssl/rand.h>

/* OpenSSL initialised without its atexit cleanup, which would free locks that a thread still
   using libcrypto at exit then takes (see CCurl's ccurl_global_init, which asks the same: the
   first initialisation decides). Returns 1 on success. */
static inline int copenssl_init_without_atexit(void) {
    return OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL);
}
#endif
