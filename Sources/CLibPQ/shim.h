#ifndef CHECKOUTKIT_CLIBPQ_SHIM_H
#define CHECKOUTKIT_CLIBPQ_SHIM_H

// libpq, the PostgreSQL client library (Debian: libpq-dev, headers in /usr/include/postgresql).
#include <postgresql/libpq-fe.h>

/// The SQLSTATE of a failed result (e.g. "40001"), or NULL. `PG_DIAG_SQLSTATE` is a character
/// macro, which Swift does not import reliably; this helper hides it.
static inline const char *clibpq_sqlstate(const PGresult *result) {
    return PQresultErrorField(result, PG_DIAG_SQLSTATE);
}

/// The primary human-readable message of a failed result, or NULL (no detail, no query text:
/// neither may carry bound values into logs).
static inline const char *clibpq_primary_message(const PGresult *result) {
    return PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY);
}

static void clibpq_ignore_notice(void *arg, const char *message) {
    (void)arg;
    (void)message;
}

/// Drops server NOTICE/WARNING messages instead of printing them to stderr (libpq's default),
/// e.g. "relation already exists, skipping" from idempotent DDL.
static inline void clibpq_silence_notices(PGconn *connection) {
    PQsetNoticeProcessor(connection, clibpq_ignore_notice, NULL);
}

#endif
