#ifndef CBENCH_BASELINES_H
#define CBENCH_BASELINES_H
#include <stddef.h>
#include <stdint.h>

// ---------------------------------------------------------------------------------------------
// Card validation baseline
// ---------------------------------------------------------------------------------------------

/// Baseline for card validation: for each input of `lengths[i]` bytes at `inputs[i]`, skips spaces
/// and dashes, checks digits (13-19 of them), Luhn and a leading-digit prefix (Visa 4, Mastercard
/// 51-55 / 2221-2720, Amex 34/37, Discover 6011/65, JCB 35, UnionPay 62, Diners 36/38/39/300-305).
/// Returns the number of inputs that passed (so the work cannot be optimised away).
long cbench_luhn_prefix(const char *const *inputs, const size_t *lengths, size_t count, long rounds);

// ---------------------------------------------------------------------------------------------
// Allocation counting
// ---------------------------------------------------------------------------------------------

/// The number of malloc/calloc/realloc/posix_memalign/aligned_alloc/memalign calls made by the
/// calling thread since it started. The benchmark executable interposes those functions (they
/// forward to glibc's `__libc_*` entry points and bump a thread-local counter), so this counts
/// every heap allocation of the Swift runtime and Foundation on this thread.
unsigned long long cbench_thread_allocations(void);

/// glibc's bytes currently allocated from the heap (`mallinfo2().uordblks`), or 0 when unknown.
size_t cbench_heap_in_use(void);

/// Returns free heap memory to the system (`malloc_trim(0)`), so that RSS growth measured next
/// reflects new allocations rather than reuse of memory freed earlier.
void cbench_trim_heap(void);

/// Makes stdout line-buffered, so progress shows even when it is a file or a pipe.
void cbench_line_buffer_stdout(void);

/// Resident set size of this process in bytes (from /proc/self/statm), or 0 when unknown.
long cbench_rss_bytes(void);

/// CPU time in seconds, user and system, of every thread of this process (`children` 0), or of
/// its children that have ended and been waited for (`children` 1); -1 when unknown.
double cbench_cpu_seconds(int children);

// ---------------------------------------------------------------------------------------------
// Vault store baselines: raw SQLite C API, prepared statements, the store's exact SQL
// ---------------------------------------------------------------------------------------------
// Every function opens its own connection configured like SQLiteKit's writer (WAL,
// synchronous=NORMAL, foreign_keys, trusted_schema=OFF, defensive, busy timeout), works on a
// database whose schema the Swift `VaultStore` created, and returns 0 or an SQLite result code.
// Instrument values follow the pattern the Swift side uses (see VaultBench.swift):
// token "vt_<c>_<i>", analytics id "an_<c>_<i>", VISA 424242/<1000 + i % 9000>, month 1 + i % 12,
// year 2030, holder "Holder <i>", no BIN data, not default.

/// `applyRemotePage` for one scope: BEGIN IMMEDIATE; the pending-token query; the remote upsert of
/// `rows` instruments (version `version`); the sync_state cursor upsert; COMMIT.
int cbench_vault_apply_page(const char *path, const char *merchant, const char *customer, long customerIndex,
                            long rows, long version, int64_t now);

/// `upsert([...], scope:)` once per customer "c_<n>" (n < `customers`), `perCustomer` instruments
/// each, the store's statements exactly: BEGIN IMMEDIATE; the customer's last-used counter upsert
/// (primary key, reserving `perCustomer` stamps); per instrument the local upsert returning the base
/// version and the outbox insert (the JSON payload bytes the store writes); COMMIT.
int cbench_vault_local_upsert(const char *path, const char *merchant, long customers, long perCustomer, int64_t now);

/// Fills the table with `customers` x `perCustomer` rows (remote-upsert SQL, one transaction per
/// 100k rows): customer ids "c_<n>", merchant `merchant`. Not a measured figure: setup.
int cbench_vault_fill(const char *path, const char *merchant, long customers, long perCustomer, int64_t now);

/// The store's list query for each of `count` customers (`customers[i]`), every row decoded into
/// a C struct (texts copied). `out` receives the total number of rows.
int cbench_vault_list(const char *path, const char *merchant, const char *const *customers, long count, long *out);

/// The store's full-scan query (`forEachInstrument`), every row decoded into a C struct.
int cbench_vault_full_scan(const char *path, long *out);

// ---------------------------------------------------------------------------------------------
// Vault server baseline: the change feed's storage read (SQLiteVaultServerStorage's exact SQL)
// ---------------------------------------------------------------------------------------------

/// One change-feed page's storage read, `rounds` times, on a connection of its own to the vault
/// server's database at `path`: BEGIN (deferred); the tombstone probe (`hasTombstones`); the purge
/// horizon; the changes after sequence 0, at most 201, every column read and its text copied;
/// COMMIT. What the server's SQLite part of a feed request costs with nothing around it.
/// `out` receives the rows of the last round. 0 or an SQLite result code.
int cbench_feed_read(const char *path, const char *merchant, const char *customer, long rounds, long *out);

/// Opens `path` on a connection of its own and takes the database's write lock (`BEGIN IMMEDIATE`),
/// as another process writing the file would; NULL when it cannot. Setup, not a measured figure.
void *cbench_hold_write_lock(const char *path);

/// Commits and closes a connection from `cbench_hold_write_lock`, releasing the lock.
void cbench_release_write_lock(void *lock);

#endif
