#ifndef CHECKOUTKIT_CMICROHTTPD_SHIM_H
#define CHECKOUTKIT_CMICROHTTPD_SHIM_H
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

/// The TLS profile served unless the operator names another: Mozilla's "intermediate" profile as a
/// GnuTLS priority string. TLS 1.3 (AES-GCM and ChaCha20-Poly1305, no CCM) and TLS 1.2 with
/// ECDHE key exchange and AEAD suites only: no static-RSA key exchange, no CBC, no SHA-1 MACs.
#define CMHD_TLS_INTERMEDIATE "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:-CIPHER-ALL:+AES-128-GCM:+AES-256-GCM:+CHACHA20-POLY1305:-MAC-ALL:+AEAD:-KX-ALL:+ECDHE-ECDSA:+ECDHE-RSA"

/// The type of MHD_OPTION_URI_LOG_CALLBACK: called once per request as soon as its request line
/// has arrived, with the raw request target; what it returns becomes the request's context.
typedef void *(*cmhd_uri_log_callback)(void *cls, const char *uri, struct MHD_Connection *connection);

/// MHD_start_daemon is variadic, which Swift cannot call: this wrapper starts a daemon with a
/// fixed option list. It binds to `host` (an IPv4 or IPv6 literal) and `port` (0 picks a free
/// port), serves with an internal thread pool of `threads` threads, accepts at most
/// `connection_limit` connections, `per_ip_connection_limit` of them from one address (more are
/// closed at once), calls `uri_log` when a request line has arrived and `completed` when a
/// request ends, and `notify` (when not NULL) as each connection opens and closes. With
/// `tls_certificate` and `tls_key` (PEM text, or both NULL for plain HTTP) it serves HTTPS through
/// libmicrohttpd's GnuTLS with the GnuTLS priority string `tls_priorities` (NULL:
/// `CMHD_TLS_INTERMEDIATE`). Returns NULL when the
/// address is not a literal or the daemon cannot start (a certificate or key GnuTLS refuses, a
/// key that does not match the certificate, a port in use).
static inline struct MHD_Daemon *cmhd_start(const char *host, uint16_t port, unsigned int threads,
                                            const char *tls_certificate, const char *tls_key,
                                            unsigned int connection_limit,
                                            unsigned int per_ip_connection_limit,
                                            unsigned int connection_timeout_seconds,
                                            size_t connection_memory_limit,
                                            MHD_AccessHandlerCallback handler, void *handler_cls,
                                            cmhd_uri_log_callback uri_log, void *uri_log_cls,
                                            MHD_RequestCompletedCallback completed, void *completed_cls,
                                            const char *tls_priorities,
                                            MHD_NotifyConnectionCallback notify, void *notify_cls) {
    unsigned int flags = MHD_USE_AUTO | MHD_USE_INTERNAL_POLLING_THREAD;
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
    struct sockaddr *address;
    memset(&v4, 0, sizeof v4);
    memset(&v6, 0, sizeof v6);
    if (inet_pton(AF_INET, host, &v4.sin_addr) == 1) {
        v4.sin_family = AF_INET;
        v4.sin_port = htons(port);
        address = (struct sockaddr *)&v4;
    } else if (inet_pton(AF_INET6, host, &v6.sin6_addr) == 1) {
        v6.sin6_family = AF_INET6;
        v6.sin6_port = htons(port);
        address = (struct sockaddr *)&v6;
        flags |= MHD_USE_IPv6;
    } else {
        return NULL;
    }
/* The options both kinds of daemon share, ending the variadic list. */
#define CMHD_COMMON_OPTIONS \
    MHD_OPTION_THREAD_POOL_SIZE, threads, \
    MHD_OPTION_CONNECTION_LIMIT, connection_limit, \
    MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_connection_limit, \
    MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_seconds, \
    MHD_OPTION_CONNECTION_MEMORY_LIMIT, connection_memory_limit, \
    MHD_OPTION_URI_LOG_CALLBACK, uri_log, uri_log_cls, \
    MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls, \
    MHD_OPTION_NOTIFY_CONNECTION, notify, notify_cls, \
    MHD_OPTION_END
    if (tls_certificate != NULL && tls_key != NULL) {
        return MHD_start_daemon(flags | MHD_USE_TLS, port, NULL, NULL, handler, handler_cls,
                                MHD_OPTION_SOCK_ADDR, address,
                                MHD_OPTION_HTTPS_MEM_CERT, tls_certificate,
                                MHD_OPTION_HTTPS_MEM_KEY, tls_key,
                                MHD_OPTION_HTTPS_PRIORITIES, tls_priorities != NULL ? tls_priorities : CMHD_TLS_INTERMEDIATE,
                                CMHD_COMMON_OPTIONS);
    }
    return MHD_start_daemon(flags, port, NULL, NULL, handler, handler_cls,
                            MHD_OPTION_SOCK_ADDR, address,
                            CMHD_COMMON_OPTIONS);
#undef CMHD_COMMON_OPTIONS
}

/// MHD_get_daemon_info is variadic: returns the port the daemon is bound to, or 0 when unknown.
static inline uint16_t cmhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/// MHD_get_daemon_info again: the connections the daemon has open now (accepted and not yet
/// closed, whatever their state), or 0 when unknown.
static inline unsigned int cmhd_current_connections(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info == NULL ? 0 : info->num_connections;
}

/// True when this libmicrohttpd was built with TLS (Debian's is, with GnuTLS).
static inline int cmhd_supports_tls(void) { return MHD_is_feature_supported(MHD_FEATURE_TLS) == MHD_YES; }

/// MHD_YES and MHD_NO as plain ints, whatever MHD_Result's import looks like in Swift.
static inline enum MHD_Result cmhd_yes(void) { return MHD_YES; }
/// See cmhd_yes.
static inline enum MHD_Result cmhd_no(void) { return MHD_NO; }

/// Looks up a request header (enum constants of MHD_ValueKind do not import cleanly).
static inline const char *cmhd_header(struct MHD_Connection *connection, const char *name) {
    return MHD_lookup_connection_value(connection, MHD_HEADER_KIND, name);
}

/// What cmhd_header_visit looks for: the `wanted`-th field called `name`; counts them all in `seen`.
struct cmhd_header_search {
    const char *name;
    size_t wanted;
    size_t seen;
    const char *value;
};

/// The MHD_KeyValueIterator of cmhd_header_count and cmhd_header_at.
static inline enum MHD_Result cmhd_header_visit(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
    struct cmhd_header_search *search = (struct cmhd_header_search *)cls;
    (void)kind;
    if (key == NULL || strcasecmp(key, search->name) != 0) return MHD_YES;
    if (search->seen++ == search->wanted) {
        search->value = value;
        return MHD_NO;
    }
    return MHD_YES;
}

/// How many header fields called `name` (case-insensitive) the request has; cmhd_header only
/// sees the first, and a repeated Content-Length must be refused, not half-read.
static inline size_t cmhd_header_count(struct MHD_Connection *connection, const char *name) {
    struct cmhd_header_search search = { name, SIZE_MAX, 0, NULL };
    MHD_get_connection_values(connection, MHD_HEADER_KIND, cmhd_header_visit, &search);
    return search.seen;
}

/// The value of the `index`-th header field called `name` (from 0), or NULL.
static inline const char *cmhd_header_at(struct MHD_Connection *connection, const char *name, size_t index) {
    struct cmhd_header_search search = { name, index, 0, NULL };
    MHD_get_connection_values(connection, MHD_HEADER_KIND, cmhd_header_visit, &search);
    return search.value;
}

/// MHD_get_connection_info is variadic: the size of the request head as received (request line,
/// header fields and the blank line), or 0 when unknown. Valid from the first access-handler call.
static inline size_t cmhd_head_size(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    return info == NULL ? 0 : info->header_size;
}

/// MHD_get_connection_info is variadic: writes the peer's whole address as text into `buffer`
/// (IPv4 or IPv6). Returns 0 when unknown.
static inline int cmhd_peer_address(struct MHD_Connection *connection, char *buffer, size_t size) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL || size == 0) return 0;
    const struct sockaddr *address = info->client_addr;
    if (address->sa_family == AF_INET) {
        return inet_ntop(AF_INET, &((const struct sockaddr_in *)address)->sin_addr, buffer, (socklen_t)size) != NULL;
    }
    if (address->sa_family == AF_INET6) {
        return inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)address)->sin6_addr, buffer, (socklen_t)size) != NULL;
    }
    return 0;
}

/// MHD_set_connection_option is variadic: sets the connection's inactivity timeout in seconds
/// (the daemon's idle timeout is the default). libmicrohttpd closes the connection once no byte
/// has arrived for that long. True on success.
static inline int cmhd_set_timeout(struct MHD_Connection *connection, unsigned int seconds) {
    return MHD_set_connection_option(connection, MHD_CONNECTION_OPTION_TIMEOUT, seconds) == MHD_YES;
}

/// MHD_get_connection_info is variadic: the connection's socket, or -1 when unknown.
static inline int cmhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/// True when a MHD_NotifyConnectionCallback reports a connection that has just opened (false: it
/// is closing; libmicrohttpd closes its socket only after the callback returns).
static inline int cmhd_connection_opened(enum MHD_ConnectionNotificationCode code) {
    return code == MHD_CONNECTION_NOTIFY_STARTED;
}

/// The default TLS profile (`CMHD_TLS_INTERMEDIATE`) as a C string.
static inline const char *cmhd_tls_intermediate(void) { return CMHD_TLS_INTERMEDIATE; }

/// MHD_CONTENT_READER_END_WITH_ERROR as a typed value (the macro is a cast Swift does not import):
/// what a content reader returns when it cannot go on; libmicrohttpd then closes the connection.
static inline ssize_t cmhd_reader_error(void) { return MHD_CONTENT_READER_END_WITH_ERROR; }

/// Creates a response of exactly `size` bytes that libmicrohttpd asks `reader` for, at most
/// `block_size` at a time, as the connection can take them (so the body is never held whole).
/// libmicrohttpd calls `free_reader` with `cls` once, when the response is destroyed and no
/// connection uses it any more: after the last byte, or when the client went away. On NULL (out
/// of memory) nothing was taken over and `free_reader` is never called: the caller frees `cls`.
static inline struct MHD_Response *cmhd_response_stream(uint64_t size, size_t block_size,
                                                        MHD_ContentReaderCallback reader, void *cls,
                                                        MHD_ContentReaderFreeCallback free_reader) {
    return MHD_create_response_from_callback(size, block_size, reader, cls, free_reader);
}

/// Creates a response that takes over `size` bytes at `data`, which must come from malloc:
/// libmicrohttpd frees them when the response is destroyed. No copy is made, and the head and
/// body can leave in one send. On NULL nothing was taken over: the caller frees `data`.
static inline struct MHD_Response *cmhd_response_take(size_t size, void *data) {
    return MHD_create_response_from_buffer(size, data, MHD_RESPMEM_MUST_FREE);
}

/// Creates a response holding a private copy of `size` bytes at `data`.
static inline struct MHD_Response *cmhd_response_copy(size_t size, const void *data) {
    return MHD_create_response_from_buffer(size, (void *)data, MHD_RESPMEM_MUST_COPY);
}
/// The iterator cmhd_header_fields calls for each header field: (cls, name, value), MHD_YES to go on.
typedef enum MHD_Result (*cmhd_field_visitor)(void *cls, const char *name, const char *value);

/// What cmhd_header_fields passes through libmicrohttpd's iterator to the caller's visitor.
struct cmhd_field_walk {
    cmhd_field_visitor visit;
    void *cls;
};

/// The MHD_KeyValueIterator of cmhd_header_fields (hides the MHD_ValueKind argument).
static inline enum MHD_Result cmhd_field_walk_step(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
    struct cmhd_field_walk *walk = (struct cmhd_field_walk *)cls;
    (void)kind;
    return walk->visit(walk->cls, key, value);
}

/// Calls `visit` for every header field of the request, in order; returns how many there are.
static inline int cmhd_header_fields(struct MHD_Connection *connection, cmhd_field_visitor visit, void *cls) {
    struct cmhd_field_walk walk = { visit, cls };
    return MHD_get_connection_values(connection, MHD_HEADER_KIND, cmhd_field_walk_step, &walk);
}
#endif
