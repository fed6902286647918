#ifndef CHECKOUTKIT_CSQLITE_SHIM_H
#define CHECKOUTKIT_CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro cast Swift cannot import; expose it as a function.
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }
/// SQLITE_STATIC likewise.
static inline sqlite3_destructor_type csqlite_static(void) { return SQLITE_STATIC; }
/// sqlite3_db_config is variadic; these wrappers call it with fixed arguments.
static inline int csqlite_enable_defensive(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0);
}
#endif
