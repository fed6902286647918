#ifndef CHECKOUTKIT_CCURL_SHIM_H
#define CHECKOUTKIT_CCURL_SHIM_H
#include <curl/curl.h>
#include <openssl/crypto.h>

/* libcurl's global init, after telling OpenSSL (libcurl's TLS library here) not to clean itself
   up in an atexit handler: a process that exits while a transport thread still closes a TLS
   connection would otherwise have that thread take locks the handler already freed (a crash at
   exit, seen as SIGSEGV in pthread_rwlock_rdlock). The process's memory goes anyway. OpenSSL
   decides this on its first initialisation, so CheckoutCrypto asks the same. */
static inline CURLcode ccurl_global_init(void) {
    OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL);
    return curl_global_init(CURL_GLOBAL_DEFAULT);
}

/* curl_easy_setopt, curl_easy_getinfo, curl_multi_setopt and curl_share_setopt are variadic,
   which Swift cannot call: one typed wrapper per argument type. */

static inline CURLcode ccurl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_share(CURL *handle, CURLSH *share) {
    return curl_easy_setopt(handle, CURLOPT_SHARE, share);
}

/// CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION: size_t (char *, size_t, size_t, void *).
typedef size_t (*ccurl_data_callback)(char *data, size_t size, size_t count, void *context);

static inline CURLcode ccurl_easy_setopt_data_callback(CURL *handle, CURLoption option, ccurl_data_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

static inline CURLcode ccurl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode ccurl_easy_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode ccurl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLMcode ccurl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

static inline CURLSHcode ccurl_share_setopt_lock_data(CURLSH *share, curl_lock_data data) {
    return curl_share_setopt(share, CURLSHOPT_SHARE, data);
}

/// The transfer a finished-message is about, and its result (the union Swift cannot read).
static inline CURL *ccurl_message_handle(const CURLMsg *message) { return message->easy_handle; }
static inline CURLcode ccurl_message_result(const CURLMsg *message) { return message->data.result; }
static inline int ccurl_message_is_done(const CURLMsg *message) { return message->msg == CURLMSG_DONE; }

#endif
