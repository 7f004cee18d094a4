/* faultvfs.h — test-only fault injection for SQLite: I/O errors, crashes and failed allocations at
 * the N-th call (SQLite's own test harness's technique, through SQLite's public hooks).
 *
 * Owns: two caller-owned structs and nothing else.
 *   ts_fault_vfs   a pass-through sqlite3_vfs over the default VFS, registered under a name
 *                  (open a database with that vfs name to use it). It counts the write-side
 *                  calls — xWrite, xSync and xTruncate on any file (database, WAL, journal) plus
 *                  the VFS's xDelete — and at call N either fails that call with the matching
 *                  SQLITE_IOERR_* code (once, or that call and every later one), or calls a
 *                  callback before it (a crash test's callback raises SIGKILL in a forked child;
 *                  if the callback returns, the call goes ahead). All counters live in the
 *                  struct, reached through sqlite3_vfs.pAppData and the file objects.
 *   ts_fault_alloc SQLite's allocator (SQLITE_CONFIG_MALLOC) wrapped so that the N-th
 *                  allocation (xMalloc, or an xRealloc) returns NULL, once or from then on.
 *
 * The allocator hook is process-global, and that is deliberate: SQLite's allocator is global
 * state of the library (sqlite3_config), its xMalloc/xRealloc receive no context pointer, and it
 * can only be installed before sqlite3_initialize (or after sqlite3_shutdown). So the struct is
 * reached through one static pointer set by ts_fault_alloc_install. That is acceptable only
 * because this is test-only code (cc_library testonly): one test process installs it once, first
 * thing in main, and it passes every call through unchanged until armed. Production code never
 * links it. Not thread-safe; the tests that use it are single-threaded.
 */
#ifndef TURNSTILE_CORE_TESTING_FAULTVFS_H
#define TURNSTILE_CORE_TESTING_FAULTVFS_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

/* ---------------------------------------------------------------- the fault VFS ----------- */

typedef enum ts_fault_op {
    TS_FAULT_WRITE,
    TS_FAULT_SYNC,
    TS_FAULT_TRUNCATE,
    TS_FAULT_DELETE,
} ts_fault_op;

const char *ts_fault_op_name(ts_fault_op op);

/* Called at the armed write-side call, before it reaches the real VFS. */
typedef void (*ts_fault_callback)(void *context, uint64_t call, ts_fault_op op);

typedef struct ts_fault_vfs {
    /* Counters (read them; ts_fault_vfs_* reset and arm them). */
    uint64_t calls;         /* write-side calls since the last arm or reset */
    uint64_t faults;        /* calls failed, or callbacks run, since then */
    /* Arming. */
    uint64_t fault_at;      /* 1-based call number; 0: never */
    bool persistent;        /* an I/O error at fault_at and at every call after it */
    ts_fault_callback callback; /* NULL: fail with SQLITE_IOERR_*; else call it instead */
    void *callback_context;
    /* private */
    sqlite3_vfs vfs;        /* what SQLite sees; pAppData points back to this struct */
    sqlite3_vfs *base;      /* the default VFS every call is passed to */
    char name[64];
} ts_fault_vfs;

/* Registers fault (caller-owned; it must stay where it is until unregistered) under name, over
 * the current default VFS, not as the default. Disarmed. Returns SQLite's result code. */
int ts_fault_vfs_register(ts_fault_vfs *fault, const char *name);
/* Unregisters it; no connection may still use it. */
void ts_fault_vfs_unregister(ts_fault_vfs *fault);

/* Resets the counters and arms: call number n (counted from now) fails with SQLITE_IOERR_*;
 * persistent also fails every call after it. n = 0 disarms. */
void ts_fault_vfs_fail_at(ts_fault_vfs *fault, uint64_t n, bool persistent);
/* Resets the counters and arms: callback runs before call number n (counted from now). */
void ts_fault_vfs_callback_at(ts_fault_vfs *fault, uint64_t n, ts_fault_callback callback, void *context);
/* Resets the counters and disarms. */
void ts_fault_vfs_disarm(ts_fault_vfs *fault);

/* ------------------------------------------------------------ the failing allocator ------- */

typedef struct ts_fault_alloc {
    uint64_t calls;         /* allocations (xMalloc and xRealloc) since the last arm */
    uint64_t faults;        /* allocations failed since then */
    uint64_t fault_at;      /* 1-based; 0: never */
    bool persistent;        /* also fail every allocation after fault_at */
    /* private */
    sqlite3_mem_methods base; /* SQLite's own allocator, which every call is passed to */
} ts_fault_alloc;

/* Installs the wrapper around SQLite's allocator, disarmed. Must run before any other SQLite
 * call in the process (before sqlite3_initialize); returns SQLITE_MISUSE after it. fault must
 * outlive every SQLite call (a static or main's local). One per process. */
int ts_fault_alloc_install(ts_fault_alloc *fault);

/* Resets the counters and arms: allocation number n (from now) returns NULL; persistent: also
 * every one after it. n = 0 disarms. */
void ts_fault_alloc_fail_at(ts_fault_alloc *fault, uint64_t n, bool persistent);

#endif
