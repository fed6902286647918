#ifndef CHECKOUTKIT_COPENSSL_SHIM_H
#define CHECKOUTKIT_COPENSSL_SHIM_H
// libcrypto only (no TLS): digests, HMAC, HKDF, AES, random bytes and constant-time comparison.
// Every function used from Swift is a plain C function in OpenSSL 3.0, so no wrappers are needed
// yet; add a `static inline` one here for any macro or variadic API that becomes necessary.
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#include <openssl/rand.h>
#endif
