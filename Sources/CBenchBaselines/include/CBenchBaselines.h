#ifndef CBENCH_BASELINES_H
#define CBENCH_BASELINES_H
#include <stddef.h>
#include <stdint.h>

/// Baseline for card validation: for each NUL-free input of `lengths[i]` bytes at `inputs[i]`,
/// strips spaces, checks digits, Luhn and a leading-digit prefix (4 / 51-55 / 34,37).
/// Returns the number of inputs that passed (so the work cannot be optimised away).
long cbench_luhn_prefix(const char *const *inputs, const size_t *lengths, size_t count, long rounds);

/// Baseline for the vault store: raw SQLite C API with prepared statements.
/// Each returns 0 on success or the SQLite result code; `out` receives the row count processed.
int cbench_sqlite_bulk_upsert(const char *path, long rows, long customers, long *out);
int cbench_sqlite_list_customer(const char *path, const char *customer, long repeats, long *out);
int cbench_sqlite_full_scan(const char *path, long *out);

/// Resident set size of this process in bytes (from /proc/self/statm), or 0 when unknown.
long cbench_rss_bytes(void);
#endif
