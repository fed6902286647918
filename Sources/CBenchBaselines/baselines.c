// C baselines for checkout-bench: what the Swift code is measured against in the same run.
#define _GNU_SOURCE
#include "CBenchBaselines.h"
#include <errno.h>
#include <malloc.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <uuid/uuid.h>

// =============================================================================================
// Card validation
// =============================================================================================

static int known_prefix(const unsigned char *digits) {
    int p2 = digits[0] * 10 + digits[1];
    int p3 = p2 * 10 + digits[2];
    int p4 = p3 * 10 + digits[3];
    if (digits[0] == 4) return 1;                                   // Visa
    if (p2 >= 51 && p2 <= 55) return 1;                             // Mastercard
    if (p4 >= 2221 && p4 <= 2720) return 1;                         // Mastercard 2-series
    if (p2 == 34 || p2 == 37) return 1;                             // Amex
    if (p4 == 6011 || p2 == 65) return 1;                           // Discover
    if (p2 == 35) return 1;                                         // JCB
    if (p2 == 62) return 1;                                         // UnionPay
    if (p2 == 36 || p2 == 38 || p2 == 39 || (p3 >= 300 && p3 <= 305)) return 1;  // Diners
    return 0;
}

long cbench_luhn_prefix(const char *const *inputs, const size_t *lengths, size_t count, long rounds) {
    long passed = 0;
    for (long round = 0; round < rounds; round++) {
        for (size_t i = 0; i < count; i++) {
            const char *s = inputs[i];
            size_t n = lengths[i];
            unsigned char digits[32];
            size_t d = 0;
            int ok = 1;
            for (size_t j = 0; j < n; j++) {
                char c = s[j];
                if (c == ' ' || c == '-') continue;
                if (c < '0' || c > '9' || d >= 19) { ok = 0; break; }
                digits[d++] = (unsigned char)(c - '0');
            }
            if (!ok || d < 13) continue;
            int sum = 0, dbl = 0;
            for (size_t j = d; j-- > 0;) {
                int v = digits[j];
                if (dbl) { v *= 2; if (v > 9) v -= 9; }
                sum += v;
                dbl = !dbl;
            }
            if (sum % 10 != 0) continue;
            if (known_prefix(digits)) passed++;
        }
    }
    return passed;
}

// =============================================================================================
// Allocation counting: interposed allocator entry points forwarding to glibc
// =============================================================================================
// Defining these in the executable makes the dynamic linker bind every shared library's calls
// (libswiftCore, Foundation, ...) to them. Each forwards to glibc's own implementation, so the
// heap is the same heap (free() is not interposed and frees any of them); the only addition is
// a thread-local counter, which needs no lock and no allocation.

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static __thread unsigned long long thread_allocations;

void *malloc(size_t size) {
    thread_allocations++;
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    thread_allocations++;
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    thread_allocations++;
    return __libc_realloc(pointer, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
    thread_allocations++;
    void *pointer = __libc_memalign(alignment, size);
    if (!pointer && size != 0) return ENOMEM;
    *result = pointer;
    return 0;
}

void *aligned_alloc(size_t alignment, size_t size) {
    thread_allocations++;
    return __libc_memalign(alignment, size);
}

void *memalign(size_t alignment, size_t size) {
    thread_allocations++;
    return __libc_memalign(alignment, size);
}

unsigned long long cbench_thread_allocations(void) { return thread_allocations; }

size_t cbench_heap_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks;
}

void cbench_trim_heap(void) { malloc_trim(0); }

void cbench_line_buffer_stdout(void) { setvbuf(stdout, NULL, _IOLBF, 0); }

long cbench_rss_bytes(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f) return 0;
    long pages_total = 0, pages_resident = 0;
    int n = fscanf(f, "%ld %ld", &pages_total, &pages_resident);
    fclose(f);
    if (n != 2) return 0;
    return pages_resident * sysconf(_SC_PAGESIZE);
}

double cbench_cpu_seconds(int children) {
    struct rusage usage;
    if (getrusage(children ? RUSAGE_CHILDREN : RUSAGE_SELF, &usage) != 0) return -1;
    return (double)usage.ru_utime.tv_sec + (double)usage.ru_utime.tv_usec / 1e6
        + (double)usage.ru_stime.tv_sec + (double)usage.ru_stime.tv_usec / 1e6;
}

// =============================================================================================
// Vault store: the store's SQL (Sources/CheckoutVault/InstrumentRow.swift, VaultStore+*.swift)
// =============================================================================================

#define INSTRUMENT_COLUMNS \
    "token, payment_method_type, instrument_type, network, first6, last4, exp_month, exp_year, " \
    "cardholder_name, bin_networks, bin_country, bin_funding, analytics_id, is_default, version, deleted, " \
    "last_used, updated"

#define INSERT_SQL \
    "INSERT INTO payment_instrument (merchant_id, customer_id, token, payment_method_type, instrument_type, " \
    "network, first6, last4, exp_month, exp_year, cardholder_name, bin_networks, bin_country, bin_funding, " \
    "analytics_id, is_default, version, last_used, updated, deleted) " \
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, 0) " \
    "ON CONFLICT (merchant_id, customer_id, token) DO UPDATE SET " \
    "payment_method_type = excluded.payment_method_type, instrument_type = excluded.instrument_type, " \
    "network = excluded.network, first6 = excluded.first6, last4 = excluded.last4, " \
    "exp_month = excluded.exp_month, exp_year = excluded.exp_year, cardholder_name = excluded.cardholder_name, " \
    "bin_networks = excluded.bin_networks, bin_country = excluded.bin_country, bin_funding = excluded.bin_funding, " \
    "analytics_id = excluded.analytics_id, is_default = excluded.is_default, deleted = 0, updated = excluded.updated"

static const char *REMOTE_UPSERT_SQL =
    INSERT_SQL ", version = excluded.version WHERE payment_instrument.version < excluded.version";
static const char *LOCAL_UPSERT_SQL = INSERT_SQL ", last_used = excluded.last_used RETURNING version";
static const char *PENDING_SQL = "SELECT DISTINCT token FROM outbox WHERE merchant_id = ? AND customer_id = ?";
static const char *SYNC_STATE_SQL =
    "INSERT INTO sync_state (merchant_id, customer_id, cursor, last_synced) VALUES (?, ?, ?, ?) "
    "ON CONFLICT (merchant_id, customer_id) DO UPDATE SET cursor = excluded.cursor, last_synced = excluded.last_synced";
static const char *TICK_SQL =
    "INSERT INTO customer_last_used (merchant_id, customer_id, last_used) VALUES (?1, ?2, ?3) "
    "ON CONFLICT (merchant_id, customer_id) DO UPDATE SET last_used = max(excluded.last_used, last_used + ?4) "
    "RETURNING last_used";
static const char *OUTBOX_SQL =
    "INSERT INTO outbox (op_id, merchant_id, customer_id, kind, token, payload, base_version, created) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)";
static const char *LIST_SQL =
    "SELECT " INSTRUMENT_COLUMNS " FROM payment_instrument "
    "WHERE merchant_id = ? AND customer_id = ? AND deleted = 0 "
    "ORDER BY is_default DESC, last_used DESC, token ASC";
static const char *SCAN_SQL =
    "SELECT merchant_id, customer_id, " INSTRUMENT_COLUMNS " FROM payment_instrument "
    "ORDER BY merchant_id, customer_id, token";

/// Opens a connection the way SQLiteKit opens its writer.
static int open_db(const char *path, sqlite3 **db) {
    int rc = sqlite3_open_v2(path, db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE, NULL);
    if (rc != SQLITE_OK) { sqlite3_close_v2(*db); *db = NULL; return rc; }
    sqlite3_extended_result_codes(*db, 1);
    sqlite3_busy_timeout(*db, 5000);
    sqlite3_db_config(*db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
    rc = sqlite3_exec(*db, "PRAGMA foreign_keys = ON; PRAGMA trusted_schema = OFF; SELECT count(*) FROM sqlite_schema;"
                      " PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;", NULL, NULL, NULL);
    if (rc != SQLITE_OK) { sqlite3_close_v2(*db); *db = NULL; }
    return rc;
}

static int fail(sqlite3 *db, sqlite3_stmt **statements, int count, int rc) {
    for (int i = 0; i < count; i++) sqlite3_finalize(statements[i]);
    if (sqlite3_get_autocommit(db) == 0) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close_v2(db);
    return rc == SQLITE_OK ? SQLITE_ERROR : rc;
}

/// The instrument texts for index `i` of customer number `c`.
struct instrument_text {
    char token[48], analytics[48], last4[8], holder[32];
    int month;
};

static void instrument_text(struct instrument_text *t, long c, long i) {
    snprintf(t->token, sizeof t->token, "vt_%ld_%ld", c, i);
    snprintf(t->analytics, sizeof t->analytics, "an_%ld_%ld", c, i);
    snprintf(t->last4, sizeof t->last4, "%ld", 1000 + i % 9000);
    snprintf(t->holder, sizeof t->holder, "Holder %ld", i);
    t->month = (int)(1 + i % 12);
}

/// Binds ?1-?19 of the upsert like `InstrumentRow.bind`.
static void bind_instrument(sqlite3_stmt *s, const char *merchant, const char *customer, const struct instrument_text *t,
                            long version, int64_t last_used, int64_t now) {
    sqlite3_bind_text(s, 1, merchant, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 2, customer, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 3, t->token, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 4, "PAYMENT_CARD", -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 5, "PAYMENT_CARD", -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 6, "VISA", -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 7, "424242", -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 8, t->last4, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(s, 9, t->month);
    sqlite3_bind_int64(s, 10, 2030);
    sqlite3_bind_text(s, 11, t->holder, -1, SQLITE_TRANSIENT);
    sqlite3_bind_null(s, 12);
    sqlite3_bind_null(s, 13);
    sqlite3_bind_null(s, 14);
    sqlite3_bind_text(s, 15, t->analytics, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(s, 16, 0);
    sqlite3_bind_int64(s, 17, version);
    sqlite3_bind_int64(s, 18, last_used);
    sqlite3_bind_int64(s, 19, now);
}

int cbench_vault_apply_page(const char *path, const char *merchant, const char *customer, long customerIndex,
                            long rows, long version, int64_t now) {
    sqlite3 *db;
    int rc = open_db(path, &db);
    if (rc != SQLITE_OK) return rc;
    sqlite3_stmt *st[3] = {NULL, NULL, NULL};
    if ((rc = sqlite3_prepare_v3(db, PENDING_SQL, -1, SQLITE_PREPARE_PERSISTENT, &st[0], NULL)) != SQLITE_OK ||
        (rc = sqlite3_prepare_v3(db, REMOTE_UPSERT_SQL, -1, SQLITE_PREPARE_PERSISTENT, &st[1], NULL)) != SQLITE_OK ||
        (rc = sqlite3_prepare_v3(db, SYNC_STATE_SQL, -1, SQLITE_PREPARE_PERSISTENT, &st[2], NULL)) != SQLITE_OK)
        return fail(db, st, 3, rc);
    if ((rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL)) != SQLITE_OK) return fail(db, st, 3, rc);
    sqlite3_bind_text(st[0], 1, merchant, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st[0], 2, customer, -1, SQLITE_TRANSIENT);
    long pending = 0;
    while ((rc = sqlite3_step(st[0])) == SQLITE_ROW) pending += sqlite3_column_bytes(st[0], 0);
    if (rc != SQLITE_DONE) return fail(db, st, 3, rc);
    sqlite3_reset(st[0]);
    struct instrument_text t;
    for (long i = 0; i < rows; i++) {
        instrument_text(&t, customerIndex, i);
        sqlite3_reset(st[1]);
        bind_instrument(st[1], merchant, customer, &t, version, 0, now);
        if ((rc = sqlite3_step(st[1])) != SQLITE_DONE) return fail(db, st, 3, rc);
        (void)sqlite3_changes64(db);
    }
    sqlite3_reset(st[1]);
    sqlite3_bind_text(st[2], 1, merchant, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st[2], 2, customer, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st[2], 3, "cursor", -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st[2], 4, now);
    if ((rc = sqlite3_step(st[2])) != SQLITE_DONE) return fail(db, st, 3, rc);
    sqlite3_reset(st[2]);
    if ((rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL)) != SQLITE_OK) return fail(db, st, 3, rc);
    for (int i = 0; i < 3; i++) sqlite3_finalize(st[i]);
    sqlite3_close_v2(db);
    return pending >= 0 ? 0 : 1;
}

int cbench_vault_local_upsert(const char *path, const char *merchant, long customers, long perCustomer, int64_t now) {
    sqlite3 *db;
    int rc = open_db(path, &db);
    if (rc != SQLITE_OK) return rc;
    // The store's statements for a save (VaultStore.upsert): per transaction the customer's
    // last-used counter (one primary-key upsert), per instrument the row's upsert returning its
    // base version, and the outbox row.
    sqlite3_stmt *st[3] = {NULL, NULL, NULL};
    if ((rc = sqlite3_prepare_v3(db, TICK_SQL, -1, SQLITE_PREPARE_PERSISTENT, &st[0], NULL)) != SQLITE_OK ||
        (rc = sqlite3_prepare_v3(db, LOCAL_UPSERT_SQL, -1, SQLITE_PREPARE_PERSISTENT, &st[1], NULL)) != SQLITE_OK ||
        (rc = sqlite3_prepare_v3(db, OUTBOX_SQL, -1, SQLITE_PREPARE_PERSISTENT, &st[2], NULL)) != SQLITE_OK)
        return fail(db, st, 3, rc);
    struct instrument_text t;
    char payload[512], op_id[40], customer[32];
    uuid_t uuid;
    for (long c = 0; c < customers; c++) {
        snprintf(customer, sizeof customer, "c_%ld", c);
        if ((rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL)) != SQLITE_OK) return fail(db, st, 3, rc);
        // Reserve perCustomer last-used stamps.
        int64_t n = perCustomer > 0 ? perCustomer : 1;
        int64_t first_value = now + n - 1 > n ? now + n - 1 : n;
        sqlite3_bind_text(st[0], 1, merchant, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st[0], 2, customer, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st[0], 3, first_value);
        sqlite3_bind_int64(st[0], 4, n);
        if ((rc = sqlite3_step(st[0])) != SQLITE_ROW) return fail(db, st, 3, rc);
        int64_t tick = sqlite3_column_int64(st[0], 0) - n + 1;
        sqlite3_reset(st[0]);
        for (long i = 0; i < perCustomer; i++) {
            instrument_text(&t, c, i);
            // The payload the store writes (WireJSON.appendMethod) for the same instrument.
            snprintf(payload, sizeof payload,
                     "{\"id\":\"%s\",\"paymentMethodType\":\"PAYMENT_CARD\",\"paymentInstrumentType\":\"PAYMENT_CARD\","
                     "\"paymentInstrumentData\":{\"network\":\"VISA\",\"first6Digits\":\"424242\",\"last4Digits\":\"%s\","
                     "\"expirationMonth\":%d,\"expirationYear\":2030,\"cardholderName\":\"%s\"},"
                     "\"analyticsId\":\"%s\",\"isDefault\":false}",
                     t.token, t.last4, t.month, t.holder, t.analytics);
            // A random (version 4) UUID in lower-case text from libuuid, as SafeIdentifier makes it.
            uuid_generate_random(uuid);
            uuid_unparse_lower(uuid, op_id);
            // The row; it returns the base version (tombstones included, 0 for a new row).
            bind_instrument(st[1], merchant, customer, &t, 0, tick++, now);
            if ((rc = sqlite3_step(st[1])) != SQLITE_ROW) return fail(db, st, 3, rc);
            int64_t base = sqlite3_column_int64(st[1], 0);
            sqlite3_reset(st[1]);
            // The outbox op.
            sqlite3_bind_text(st[2], 1, op_id, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(st[2], 2, merchant, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(st[2], 3, customer, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(st[2], 4, "upsert", -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(st[2], 5, t.token, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(st[2], 6, payload, -1, SQLITE_TRANSIENT);
            sqlite3_bind_int64(st[2], 7, base);
            sqlite3_bind_int64(st[2], 8, now);
            if ((rc = sqlite3_step(st[2])) != SQLITE_DONE) return fail(db, st, 3, rc);
            sqlite3_reset(st[2]);
        }
        if ((rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL)) != SQLITE_OK) return fail(db, st, 3, rc);
    }
    for (int i = 0; i < 3; i++) sqlite3_finalize(st[i]);
    sqlite3_close_v2(db);
    return 0;
}

int cbench_vault_fill(const char *path, const char *merchant, long customers, long perCustomer, int64_t now) {
    sqlite3 *db;
    int rc = open_db(path, &db);
    if (rc != SQLITE_OK) return rc;
    sqlite3_stmt *st[1] = {NULL};
    if ((rc = sqlite3_prepare_v3(db, REMOTE_UPSERT_SQL, -1, SQLITE_PREPARE_PERSISTENT, &st[0], NULL)) != SQLITE_OK)
        return fail(db, st, 1, rc);
    struct instrument_text t;
    char customer[32];
    long written = 0;
    if ((rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL)) != SQLITE_OK) return fail(db, st, 1, rc);
    for (long c = 0; c < customers; c++) {
        snprintf(customer, sizeof customer, "c_%ld", c);
        for (long i = 0; i < perCustomer; i++) {
            instrument_text(&t, c, i);
            bind_instrument(st[0], merchant, customer, &t, 1, i, now);
            if ((rc = sqlite3_step(st[0])) != SQLITE_DONE) return fail(db, st, 1, rc);
            sqlite3_reset(st[0]);
            if (++written % 100000 == 0) {
                if ((rc = sqlite3_exec(db, "COMMIT; BEGIN IMMEDIATE", NULL, NULL, NULL)) != SQLITE_OK)
                    return fail(db, st, 1, rc);
            }
        }
    }
    if ((rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL)) != SQLITE_OK) return fail(db, st, 1, rc);
    sqlite3_finalize(st[0]);
    sqlite3_close_v2(db);
    return 0;
}

/// A decoded row: what `StoredInstrument` holds, in C.
struct decoded_row {
    char merchant[64], customer[64], token[64], payment_method_type[32], instrument_type[32], network[32];
    char first6[8], last4[8], cardholder_name[64], bin_networks[64], bin_country[8], bin_funding[16], analytics[64];
    int64_t exp_month, exp_year, version, last_used, updated;
    int has_exp_month, has_exp_year, is_default, deleted;
};

/// Copies a text column (NULL becomes an empty string and `*present` 0).
static void copy_text(sqlite3_stmt *s, int column, char *target, size_t capacity, int *present) {
    const unsigned char *text = sqlite3_column_text(s, column);
    if (present) *present = text != NULL;
    if (!text) { target[0] = 0; return; }
    size_t length = (size_t)sqlite3_column_bytes(s, column);
    if (length >= capacity) length = capacity - 1;
    memcpy(target, text, length);
    target[length] = 0;
}

static void decode_row(sqlite3_stmt *s, int o, struct decoded_row *r) {
    int present;
    copy_text(s, o + 0, r->token, sizeof r->token, NULL);
    copy_text(s, o + 1, r->payment_method_type, sizeof r->payment_method_type, NULL);
    copy_text(s, o + 2, r->instrument_type, sizeof r->instrument_type, NULL);
    copy_text(s, o + 3, r->network, sizeof r->network, &present);
    copy_text(s, o + 4, r->first6, sizeof r->first6, &present);
    copy_text(s, o + 5, r->last4, sizeof r->last4, &present);
    r->has_exp_month = sqlite3_column_type(s, o + 6) != SQLITE_NULL;
    r->exp_month = sqlite3_column_int64(s, o + 6);
    r->has_exp_year = sqlite3_column_type(s, o + 7) != SQLITE_NULL;
    r->exp_year = sqlite3_column_int64(s, o + 7);
    copy_text(s, o + 8, r->cardholder_name, sizeof r->cardholder_name, &present);
    copy_text(s, o + 9, r->bin_networks, sizeof r->bin_networks, &present);
    if (present) {
        copy_text(s, o + 10, r->bin_country, sizeof r->bin_country, NULL);
        copy_text(s, o + 11, r->bin_funding, sizeof r->bin_funding, NULL);
    }
    copy_text(s, o + 12, r->analytics, sizeof r->analytics, NULL);
    r->is_default = sqlite3_column_int64(s, o + 13) != 0;
    r->version = sqlite3_column_int64(s, o + 14);
    r->deleted = sqlite3_column_int64(s, o + 15) != 0;
    r->last_used = sqlite3_column_int64(s, o + 16);
    r->updated = sqlite3_column_int64(s, o + 17);
}

int cbench_vault_list(const char *path, const char *merchant, const char *const *customers, long count, long *out) {
    sqlite3 *db;
    int rc = open_db(path, &db);
    if (rc != SQLITE_OK) return rc;
    sqlite3_stmt *st[1] = {NULL};
    if ((rc = sqlite3_prepare_v3(db, LIST_SQL, -1, SQLITE_PREPARE_PERSISTENT, &st[0], NULL)) != SQLITE_OK)
        return fail(db, st, 1, rc);
    long total = 0;
    size_t capacity = 32;
    struct decoded_row *rows = malloc(capacity * sizeof *rows);
    if (!rows) return fail(db, st, 1, SQLITE_NOMEM);
    for (long i = 0; i < count; i++) {
        sqlite3_bind_text(st[0], 1, merchant, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st[0], 2, customers[i], -1, SQLITE_TRANSIENT);
        size_t n = 0;
        while ((rc = sqlite3_step(st[0])) == SQLITE_ROW) {
            if (n == capacity) {
                capacity *= 2;
                struct decoded_row *grown = realloc(rows, capacity * sizeof *rows);
                if (!grown) { free(rows); return fail(db, st, 1, SQLITE_NOMEM); }
                rows = grown;
            }
            decode_row(st[0], 0, &rows[n++]);
        }
        sqlite3_reset(st[0]);
        if (rc != SQLITE_DONE) { free(rows); return fail(db, st, 1, rc); }
        total += (long)n;
    }
    free(rows);
    sqlite3_finalize(st[0]);
    sqlite3_close_v2(db);
    *out = total;
    return 0;
}

int cbench_vault_full_scan(const char *path, long *out) {
    sqlite3 *db;
    int rc = open_db(path, &db);
    if (rc != SQLITE_OK) return rc;
    sqlite3_stmt *st[1] = {NULL};
    if ((rc = sqlite3_prepare_v3(db, SCAN_SQL, -1, 0, &st[0], NULL)) != SQLITE_OK) return fail(db, st, 1, rc);
    long total = 0;
    struct decoded_row row;
    volatile long sink = 0;
    while ((rc = sqlite3_step(st[0])) == SQLITE_ROW) {
        copy_text(st[0], 0, row.merchant, sizeof row.merchant, NULL);
        copy_text(st[0], 1, row.customer, sizeof row.customer, NULL);
        decode_row(st[0], 2, &row);
        sink += row.version;
        total++;
    }
    if (rc != SQLITE_DONE) return fail(db, st, 1, rc);
    sqlite3_finalize(st[0]);
    sqlite3_close_v2(db);
    *out = total;
    return 0;
}

// =============================================================================================
// Vault server: the change feed's read (Sources/VaultServer/SQLiteVaultServerStorage.swift)
// =============================================================================================

static const char *const FEED_SQL[] = {
    "SELECT 1 FROM instrument WHERE merchant = ?1 AND customer = ?2 AND deleted = 1 AND deleted_at <= ?3 LIMIT 1",
    "SELECT seq FROM purge_horizon WHERE merchant = ?1 AND customer = ?2",
    "SELECT id, version, seq, deleted, is_default, method_json, deleted_at FROM instrument"
    " WHERE merchant = ?1 AND customer = ?2 AND seq > ?3 ORDER BY seq LIMIT ?4",
};

int cbench_feed_read(const char *path, const char *merchant, const char *customer, long rounds, long *out) {
    sqlite3 *db;
    int rc = open_db(path, &db);
    if (rc != SQLITE_OK) return rc;
    sqlite3_stmt *st[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 3; i++) {
        if ((rc = sqlite3_prepare_v3(db, FEED_SQL[i], -1, SQLITE_PREPARE_PERSISTENT, &st[i], NULL)) != SQLITE_OK)
            return fail(db, st, 3, rc);
    }
    // Tombstones older than a 30-day retention, as the server asks (there are none: the probe
    // finds nothing, as on every ordinary request).
    int64_t threshold = (int64_t)time(NULL) * 1000 - 30LL * 24 * 3600 * 1000;
    char id[256], method[8192];
    volatile long sink = 0;
    long rows = 0;
    for (long round = 0; round < rounds; round++) {
        if ((rc = sqlite3_exec(db, "BEGIN", NULL, NULL, NULL)) != SQLITE_OK) return fail(db, st, 3, rc);
        for (int i = 0; i < 3; i++) {
            sqlite3_bind_text(st[i], 1, merchant, -1, SQLITE_STATIC);
            sqlite3_bind_text(st[i], 2, customer, -1, SQLITE_STATIC);
        }
        sqlite3_bind_int64(st[0], 3, threshold);
        sqlite3_bind_int64(st[2], 3, 0);
        sqlite3_bind_int64(st[2], 4, 201);
        rc = sqlite3_step(st[0]);
        sqlite3_reset(st[0]);
        if (rc != SQLITE_DONE && rc != SQLITE_ROW) return fail(db, st, 3, rc);
        if ((rc = sqlite3_step(st[1])) == SQLITE_ROW) sink += sqlite3_column_int64(st[1], 0);
        sqlite3_reset(st[1]);
        if (rc != SQLITE_DONE && rc != SQLITE_ROW) return fail(db, st, 3, rc);
        rows = 0;
        while ((rc = sqlite3_step(st[2])) == SQLITE_ROW) {
            copy_text(st[2], 0, id, sizeof id, NULL);
            sink += sqlite3_column_int64(st[2], 1) + sqlite3_column_int64(st[2], 2) + sqlite3_column_int(st[2], 3)
                + sqlite3_column_int(st[2], 4) + (sqlite3_column_type(st[2], 6) == SQLITE_NULL ? 0 : 1);
            copy_text(st[2], 5, method, sizeof method, NULL);
            rows++;
        }
        sqlite3_reset(st[2]);
        if (rc != SQLITE_DONE) return fail(db, st, 3, rc);
        if ((rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL)) != SQLITE_OK) return fail(db, st, 3, rc);
    }
    for (int i = 0; i < 3; i++) sqlite3_finalize(st[i]);
    sqlite3_close_v2(db);
    *out = rows;
    return 0;
}

// =============================================================================================
// Another process's write lock (not a measured figure: the busy-vault benchmark's setup)
// =============================================================================================

void *cbench_hold_write_lock(const char *path) {
    sqlite3 *db;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        sqlite3_close_v2(db);
        return NULL;
    }
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
        sqlite3_close_v2(db);
        return NULL;
    }
    return db;
}

void cbench_release_write_lock(void *lock) {
    sqlite3 *db = lock;
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    sqlite3_close_v2(db);
}
