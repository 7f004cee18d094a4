/* store_sqlite.h — the durable store: a journal in one SQLite database file (WAL mode).
 *
 * Owns: the database connection, its prepared statements, the on-disk schema (version 2; a
 * version-1 file is migrated when opened for writing, read as it is when opened read-only),
 * the file's owner lock and an in-memory mirror of the journal. A commit is decided by ts_commit_check against the
 * mirror (so this store accepts and refuses exactly what the memory store does), written in
 * one BEGIN IMMEDIATE ... COMMIT transaction, and applied to the mirror only after COMMIT
 * succeeded. Every write call (begin_execution, commit, deliver_signal, complete_task,
 * mark_event) is one transaction that includes events_applied where store.h says so. On any
 * failure the transaction is rolled back and the call returns false with an error that names
 * the operation and SQLite's message; the store stays usable. If the rollback itself fails the
 * store refuses every later call (reopen it); if the mirror cannot follow a committed write
 * (out of memory) it is reloaded from the database before the next call, or that call fails.
 * load copies the mirror into the caller's arena; the mirror is read from the file at open.
 *
 * Another connection (another process) writing the same file is noticed through
 * PRAGMA data_version at the start of each call, and the mirror is reloaded from disk then.
 * One store object is used by one thread at a time.
 *
 * A false return means the write is not visible to this store, and retrying it is safe. One case
 * needs care after a crash: when the final fsync of a COMMIT fails, the WAL may already hold the
 * whole transaction, so a later process that opens the file can find the write applied (the old
 * state or the new, never a mix). A resuming engine reads the journal; it never assumes.
 *
 * On disk: PRAGMA application_id = TS_SQLITE_APPLICATION_ID, PRAGMA user_version =
 * TS_SQLITE_SCHEMA_VERSION; the table meta (the execution id) and the append-only table log
 * (entries, tasks, completions, signals, events, each commit's checkpoint on its last row), with
 * views by kind for people reading the file (store_sqlite_schema.c).
 * JSON values are stored as the codec's compact text and parsed back on load, so that
 * store -> load -> ts_journal_to_json -> ts_codec_write gives the bytes the memory store gives.
 * Timestamps, kinds and inputs are stored verbatim. A database with a newer schema version, a
 * foreign application_id, or tables that are not turnstile's is refused before anything is
 * written to it.
 * Values the codec cannot read back (invalid UTF-8, duplicate keys, non-finite numbers; none
 * can come from parsed JSON) are refused at commit rather than stored unreadable.
 */
#ifndef TURNSTILE_CORE_STORE_SQLITE_H
#define TURNSTILE_CORE_STORE_SQLITE_H

#include <sys/stat.h>

#include "core/json/error.h"
#include "core/resume/store.h"

/* 'TST1': the 32-bit application_id that marks a turnstile journal. */
#define TS_SQLITE_APPLICATION_ID 0x54535431
/* The schema version this build writes (it reads 1 and 2). Version 2 keeps an LLM task's
 * input as the entry its transcript ends at, and an LLM answer once (as its assistant
 * entry's content), instead of the whole transcript and the answer again in every task row:
 * storage grows linearly with the turns, not with their square. */
#define TS_SQLITE_SCHEMA_VERSION 2

typedef enum ts_sqlite_synchronous {
    TS_SQLITE_SYNC_FULL = 0, /* fsync the WAL at every commit: a committed call survives power loss */
    TS_SQLITE_SYNC_NORMAL,   /* fsync at WAL checkpoints only: survives a process crash; a power
                              * loss may drop the last commits (never half of one) */
    TS_SQLITE_SYNC_OFF,      /* never fsync: survives a killed process (the OS keeps what was
                              * written), not a power loss; for stores that only face kills */
} ts_sqlite_synchronous;

/* Who may write the file while this store is open. One process drives an execution: its store
 * owns the file (an exclusive flock(2) on it, held until the store is closed, released by the
 * kernel if the process dies), and a second owner waits for it, or fails, before it has read
 * or written anything. Stores that share (the default; e.g. two connections in one test)
 * still never clobber each other: every write is decided against the journal as it stands
 * under SQLite's write lock (commit.h), so a write computed from an older state is refused.
 * Owner locks are advisory and local: a journal on a network file system is not supported
 * (SQLite's WAL mode does not support one either). */
typedef enum ts_sqlite_owner {
    TS_SQLITE_SHARED = 0,  /* no owner lock */
    TS_SQLITE_OWNER_WAIT,  /* take the owner lock; wait while another process holds it */
    TS_SQLITE_OWNER_FAIL,  /* take the owner lock; fail at once when another process holds it */
} ts_sqlite_owner;

typedef struct ts_sqlite_options {
    ts_sqlite_synchronous synchronous; /* default (zero): FULL */
    const char *vfs;                   /* a registered sqlite3_vfs name; NULL: SQLite's default */
    int busy_timeout_ms;               /* wait for another connection's lock; 0: 5000 ms; < 0: none */
    /* Read only: never writes, never creates — no file, no schema in an empty file, no -wal or
     * -shm of its own (with no -wal next to the file, SQLite reads it as immutable; then the
     * file is checked again, and read once more the ordinary way if a writer came meanwhile).
     * Works in a read-only directory. Every write call is refused. */
    bool read_only;
    ts_sqlite_owner owner;             /* ignored when read_only */
    /* OWNER_WAIT: called once, before waiting, when another process holds the lock. */
    void (*on_wait)(void *context, const char *path);
    void *on_wait_context;
    /* OWNER_WAIT: give up after this many seconds, with an error naming the owner's pid (and
     * whether it is stopped); 0: wait as long as it takes. */
    double owner_wait_seconds;
    /* read_only: while the file is an empty journal (no bytes, or a database without tables)
     * and another process owns it (a run is creating it), look again for up to this many
     * seconds; 0: at once. Either way an empty journal is refused as "empty", never as "not a
     * turnstile journal". */
    double creation_wait_seconds;
} ts_sqlite_options;

/* The pid of the process holding the owner lock (an flock(2) write lock, /proc/locks) on the
 * file st describes, or 0 when none is seen. */
int ts_sqlite_lock_owner(const struct stat *st);

/* Opens the journal database at path (creating it when absent, unless read_only); options
 * NULL means the defaults. A path that exists must be a regular file (or a symlink to one):
 * a device, a directory or a FIFO is refused before anything is created or written. A new or
 * empty file gets the schema in one transaction; a version-1 file is migrated in one
 * transaction. Loads the mirror, checking every row (store_sqlite_read.c: UTF-8, JSON, ids,
 * each task id against its key and its key against its input, the journal's invariants:
 * commit.h). Returns a new store (release with ts_store_close), or NULL with err set: the file
 * cannot be opened or locked (or its owner kept it past owner_wait_seconds), is not a regular
 * file, is an empty journal (read_only: "an empty journal: ..."), is not a SQLite
 * database, is another application's, has a schema newer than this build ("journal schema
 * version 7 is newer than this turnstile (2)"), cannot use WAL, or a row is damaged (the error
 * names it: "load: tasks row 7: ..."). */
ts_store *ts_sqlite_store_open(const char *path, const ts_sqlite_options *options, ts_error *err);

#endif
