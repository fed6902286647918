#ifndef CHECKOUTKIT_COPENSSL_SHIM_H
#define CHECKOUTKIT_COPENSSL_SHIM_H
// libcrypto only (no TLS): digests, HMAC, HKDF, AES, random bytes and constant-time comparison.
// Every function used from Swift is a plain C function in OpenSSL 3.0; the `static inline`
// helpers below name an option that is a macro and build a parameter list.
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#include <openssl/params.h>
#include <openssl/rand.h>

/* OpenSSL initialised without its atexit cleanup, which would free locks that a thread still
   using libcrypto at exit then takes (see CCurl's ccurl_global_init, which asks the same: the
   first initialisation decides). Returns 1 on success. */
static inline int copenssl_init_without_atexit(void) {
    return OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL);
}
/* An HMAC context with SHA-256 chosen and no key yet: the template every HMAC-SHA-256 context is
   duplicated from, so that the MAC and its digest are looked up by name once per process rather
   than on every tag (EVP_Q_mac does both lookups per call). NULL when libcrypto cannot. Needs
   OpenSSL 3.0.1 or later: 3.0.0 could not duplicate an HMAC context before its key was set
   (openssl/openssl#17117). */
static inline EVP_MAC_CTX *copenssl_hmac_sha256_template(void) {
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    if (mac == NULL) return NULL;
    EVP_MAC_CTX *context = EVP_MAC_CTX_new(mac);
    EVP_MAC_free(mac); /* the context holds its own reference */
    if (context == NULL) return NULL;
    char digest[] = "SHA256";
    OSSL_PARAM parameters[2] = { OSSL_PARAM_construct_utf8_string("digest", digest, 0), OSSL_PARAM_construct_end() };
    if (EVP_MAC_CTX_set_params(context, parameters) != 1) {
        EVP_MAC_CTX_free(context);
        return NULL;
    }
    return context;
}
#endif
