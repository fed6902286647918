#include "CBenchBaselines.h"
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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
            int p2 = digits[0] * 10 + digits[1];
            if (digits[0] == 4 || (p2 >= 51 && p2 <= 55) || p2 == 34 || p2 == 37) passed++;
        }
    }
    return passed;
}

static const char *SCHEMA =
    "CREATE TABLE IF NOT EXISTS payment_instrument ("
    " merchant_id TEXT NOT NULL, customer_id TEXT NOT NULL, token TEXT NOT NULL,"
    " payment_method_type TEXT NOT NULL, instrument_type TEXT NOT NULL, network TEXT,"
    " first6 TEXT, last4 TEXT, exp_month INTEGER, exp_year INTEGER, cardholder_name TEXT,"
    " analytics_id TEXT NOT NULL, version INTEGER NOT NULL, is_deleted INTEGER NOT NULL,"
    " is_default INTEGER NOT NULL, last_used INTEGER NOT NULL,"
    " PRIMARY KEY (merchant_id, customer_id, token)) WITHOUT ROWID;"
    "CREATE INDEX IF NOT EXISTS pi_list ON payment_instrument (merchant_id, customer_id, is_default DESC, last_used DESC);";

static int open_db(const char *path, sqlite3 **db) {
    int rc = sqlite3_open_v2(path, db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) { sqlite3_close(*db); *db = NULL; return rc; }
    sqlite3_exec(*db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", NULL, NULL, NULL);
    return sqlite3_exec(*db, SCHEMA, NULL, NULL, NULL);
}

int cbench_sqlite_bulk_upsert(const char *path, long rows, long customers, long *out) {
    sqlite3 *db;
    int rc = open_db(path, &db);
    if (rc != SQLITE_OK) return rc;
    sqlite3_stmt *stmt;
    rc = sqlite3_prepare_v2(db,
        "INSERT INTO payment_instrument (merchant_id, customer_id, token, payment_method_type, instrument_type,"
        " network, first6, last4, exp_month, exp_year, cardholder_name, analytics_id, version, is_deleted,"
        " is_default, last_used) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,0,0,?)"
        " ON CONFLICT (merchant_id, customer_id, token) DO UPDATE SET network=excluded.network,"
        " first6=excluded.first6, last4=excluded.last4, exp_month=excluded.exp_month, exp_year=excluded.exp_year,"
        " cardholder_name=excluded.cardholder_name, version=excluded.version, last_used=excluded.last_used",
        -1, &stmt, NULL);
    if (rc != SQLITE_OK) { sqlite3_close(db); return rc; }
    sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    char customer[32], token[32], last4[8];
    for (long i = 0; i < rows; i++) {
        snprintf(customer, sizeof customer, "cus_%ld", i % customers);
        snprintf(token, sizeof token, "tok_%ld", i);
        snprintf(last4, sizeof last4, "%04ld", i % 10000);
        sqlite3_bind_text(stmt, 1, "merchant_a", -1, SQLITE_STATIC);
        sqlite3_bind_text(stmt, 2, customer, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(stmt, 3, token, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(stmt, 4, "PAYMENT_CARD", -1, SQLITE_STATIC);
        sqlite3_bind_text(stmt, 5, "PAYMENT_CARD", -1, SQLITE_STATIC);
        sqlite3_bind_text(stmt, 6, "VISA", -1, SQLITE_STATIC);
        sqlite3_bind_text(stmt, 7, "424242", -1, SQLITE_STATIC);
        sqlite3_bind_text(stmt, 8, last4, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(stmt, 9, 12);
        sqlite3_bind_int64(stmt, 10, 2030);
        sqlite3_bind_text(stmt, 11, "Ada Lovelace", -1, SQLITE_STATIC);
        sqlite3_bind_text(stmt, 12, token, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(stmt, 13, 1);
        sqlite3_bind_int64(stmt, 14, i);
        rc = sqlite3_step(stmt);
        if (rc != SQLITE_DONE) { sqlite3_finalize(stmt); sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL); sqlite3_close(db); return rc; }
        sqlite3_reset(stmt);
    }
    rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    *out = rows;
    return rc == SQLITE_OK ? 0 : rc;
}

int cbench_sqlite_list_customer(const char *path, const char *customer, long repeats, long *out) {
    sqlite3 *db;
    int rc = open_db(path, &db);
    if (rc != SQLITE_OK) return rc;
    sqlite3_stmt *stmt;
    rc = sqlite3_prepare_v2(db,
        "SELECT token, payment_method_type, instrument_type, network, first6, last4, exp_month, exp_year,"
        " cardholder_name, analytics_id, is_default FROM payment_instrument"
        " WHERE merchant_id = ? AND customer_id = ? AND is_deleted = 0"
        " ORDER BY is_default DESC, last_used DESC LIMIT 20", -1, &stmt, NULL);
    if (rc != SQLITE_OK) { sqlite3_close(db); return rc; }
    long total = 0;
    volatile long sink = 0;
    for (long r = 0; r < repeats; r++) {
        sqlite3_bind_text(stmt, 1, "merchant_a", -1, SQLITE_STATIC);
        sqlite3_bind_text(stmt, 2, customer, -1, SQLITE_STATIC);
        while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
            /* Decode every column the Swift side decodes. */
            for (int c = 0; c < 10; c++) {
                if (c == 6 || c == 7) sink += sqlite3_column_int64(stmt, c);
                else sink += sqlite3_column_bytes(stmt, c) + (long)(size_t)sqlite3_column_text(stmt, c);
            }
            sink += sqlite3_column_int64(stmt, 10);
            total++;
        }
        sqlite3_reset(stmt);
    }
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    *out = total;
    return 0;
}

int cbench_sqlite_full_scan(const char *path, long *out) {
    sqlite3 *db;
    int rc = open_db(path, &db);
    if (rc != SQLITE_OK) return rc;
    sqlite3_stmt *stmt;
    rc = sqlite3_prepare_v2(db,
        "SELECT token, payment_method_type, instrument_type, network, first6, last4, exp_month, exp_year,"
        " cardholder_name, analytics_id, is_default FROM payment_instrument WHERE is_deleted = 0", -1, &stmt, NULL);
    if (rc != SQLITE_OK) { sqlite3_close(db); return rc; }
    long total = 0;
    volatile long sink = 0;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        for (int c = 0; c < 10; c++) {
            if (c == 6 || c == 7) sink += sqlite3_column_int64(stmt, c);
            else sink += sqlite3_column_bytes(stmt, c) + (long)(size_t)sqlite3_column_text(stmt, c);
        }
        sink += sqlite3_column_int64(stmt, 10);
        total++;
    }
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    *out = total;
    return 0;
}

long cbench_rss_bytes(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f) return 0;
    long pages_total = 0, pages_resident = 0;
    int n = fscanf(f, "%ld %ld", &pages_total, &pages_resident);
    fclose(f);
    if (n != 2) return 0;
    return pages_resident * sysconf(_SC_PAGESIZE);
}
