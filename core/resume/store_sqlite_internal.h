/* store_sqlite_internal.h — private to the SQLite store (store_sqlite.h): the store object and
 * what its three files share. Nothing outside core/resume/store_sqlite*.c includes it.
 *
 *   store_sqlite.c         the store: transactions, the write calls, load, open and close;
 *   store_sqlite_open.c    the file and the connection: regular files only, the owner lock,
 *                          read-write or read-only opening, closing in the right order;
 *   store_sqlite_schema.c  the on-disk schema, its versions and the migration from version 1,
 *                          the statements and deciding what a file is;
 *   store_sqlite_read.c    reading the journal back, every row checked, then the whole.
 */
#ifndef TURNSTILE_CORE_RESUME_STORE_SQLITE_INTERNAL_H
#define TURNSTILE_CORE_RESUME_STORE_SQLITE_INTERNAL_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "core/json/buf.h"
#include "core/resume/store_sqlite.h"

/* The statements the store runs, prepared once at open (SQLITE_PREPARE_PERSISTENT). Preparing
 * them is also how an existing file is verified to have turnstile's tables. A read-only store
 * prepares the reading ones only (up to ST_LAST_READ); a version-1 file opened read-only gets
 * the v1 statements instead (store_sqlite_schema.c). */
typedef enum statement_id {
    ST_BEGIN_READ,
    ST_ROLLBACK,
    ST_DATA_VERSION,
    ST_READ_META,
    ST_READ_LOG,
    ST_LAST_READ = ST_READ_LOG,
    ST_BEGIN_WRITE,
    ST_COMMIT,
    ST_SET_EXECUTION,
    ST_APPEND,
    ST_COUNT
} statement_id;

typedef enum v1_statement_id { ST_V1_META, ST_V1_ENTRIES, ST_V1_TASKS, ST_V1_SIGNALS, ST_V1_CHECKPOINT, ST_V1_COUNT } v1_statement_id;

/* The columns of ST_APPEND's row (and ST_READ_LOG's, after seq): see the schema. */
typedef enum log_column {
    COL_KIND = 1,
    COL_ID,
    COL_PARENT,
    COL_NAME,
    COL_KEY,
    COL_STATUS,
    COL_BODY,
    COL_RESULT,
    COL_HOLDER,
    COL_TIMESTAMP,
    COL_EVENTS,
    COL_CP_SEQUENCE,
    COL_CP_LEAF,
    COL_CP_CONSUMED,
    COL_CP_STATE,
    COL_COUNT = COL_CP_STATE
} log_column;

typedef struct sqlite_store {
    ts_store base; /* first: a sqlite_store * is a ts_store * */
    sqlite3 *db;
    sqlite3_stmt *statements[ST_COUNT];
    sqlite3_stmt *v1_statements[ST_V1_COUNT];
    bool read_only;
    int schema_version;     /* of the file as opened (a read-only store reads version 1 as it is) */
    int fd;                 /* the file, held open while SQLite has it (and flock'ed by an owner) */
    /* The journal as committed, decided against and updated after each COMMIT. */
    ts_arena mirror_arena;
    ts_journal mirror;
    bool mirror_stale;      /* a committed write could not be applied: reload before use */
    int64_t data_version;   /* PRAGMA data_version when the mirror was last read from disk */
    char unusable[260];     /* non-empty: a ROLLBACK failed; every later call is refused */
    ts_buf text;            /* scratch: the JSON text of the value being bound */
    ts_buf text2;           /* scratch: a second value's text, to compare with the first */
    ts_buf text3;           /* scratch: a checkpoint's state */
    ts_arena scratch;       /* scratch: values parsed back before they are checked */
    char open_op[200];      /* "open PATH": how errors while opening name the operation */
    bool empty_file;        /* read_only open: the file held no journal yet (no bytes or no tables) */
} sqlite_store;

/* Fills err with "OP: WHAT: SQLite's message (SQLite error CODE)"; returns false. */
bool ts_sqlite_failed(sqlite_store *s, ts_error *err, const char *op, const char *what, int rc);

/* ------------------------------------------------------- store_sqlite_schema.c ----------- */

typedef enum file_kind { FILE_TURNSTILE, FILE_EMPTY, FILE_REFUSED } file_kind;

/* Reads the header fields and decides what the file is; FILE_TURNSTILE sets s->schema_version
 * (1 or the current one); FILE_REFUSED fills err (a newer version, another application's
 * database, tables that are not turnstile's). */
file_kind ts_sqlite_classify(sqlite_store *s, ts_error *err);

/* Inside BEGIN IMMEDIATE: gives an empty file the current schema, or brings a version-1 file
 * to the current version (its rows become log rows, their values inline, as version 1 wrote
 * them). */
bool ts_sqlite_create_schema(sqlite_store *s, ts_error *err);
bool ts_sqlite_migrate(sqlite_store *s, ts_error *err);

/* Prepares the statements for s->schema_version (reading ones only when s->read_only or the
 * file is version 1); a missing table or column fails here, before anything is written. */
bool ts_sqlite_prepare(sqlite_store *s, ts_error *err);

/* ------------------------------------------------------- store_sqlite_open.c ------------- */

/* Opens the file itself, before SQLite does: a regular file (or a symlink to one) only, and an
 * owner takes its lock here, before anything is read or written. Sets s->fd and *st. */
bool ts_sqlite_open_file(sqlite_store *s, const char *path, const ts_sqlite_options *o, struct stat *st,
                         ts_error *err);
/* SQLite opened the very file checked (not one swapped in at that path meanwhile). */
bool ts_sqlite_same_file(sqlite_store *s, const char *path, const struct stat *st, ts_error *err);
/* Connects for writing: decides what the file is, verifies or creates (or migrates) the
 * schema, WAL mode and the synchronous setting; prepares the statements. */
bool ts_sqlite_open_read_write(sqlite_store *s, const char *path, const ts_sqlite_options *o, ts_error *err);
/* Connects for reading only (store_sqlite.h: read_only); *immutable in: may SQLite read the
 * file as immutable; out: whether it does. */
bool ts_sqlite_open_read_only(sqlite_store *s, const char *path, const ts_sqlite_options *o, const struct stat *before,
                              bool *immutable, ts_error *err);
/* Sleeps `seconds` (interrupted sleeps go on). */
void ts_sqlite_pause(double seconds);
/* The file is as it was at `before` and no -wal has appeared next to it. */
bool ts_sqlite_unchanged_since(const char *path, const struct stat *before);
void ts_sqlite_finalize_statements(sqlite_store *s);
/* Finalizes the statements and closes the connection (never the descriptor first: closing any
 * descriptor of a file drops the process's POSIX locks on it, SQLite's included). */
void ts_sqlite_close_database(sqlite_store *s);

/* ------------------------------------------------------- store_sqlite_read.c ------------- */

/* Reads the whole journal into out (initialised by the caller) inside the caller's
 * transaction, so that every table is read from one snapshot. Every row is checked as it is
 * read (UTF-8, JSON, ids, the task id and key — commit.h's item rules), and the error names
 * the row ("load: tasks row 7: ..."); then the whole journal (ts_journal_check_loaded). */
bool ts_sqlite_read_journal(sqlite_store *s, ts_arena *arena, ts_journal *out, ts_error *err);

/* Why the codec would not read value's compact text back (a static string), or NULL when it
 * would, as the same value: what a ts_json can hold but parsed JSON cannot — invalid UTF-8 (a
 * UTF-8 surrogate included) in a string or key, a NUL in a key, two members with one key,
 * nesting 2048 deep (the parser's limit); a number that is not finite the writer
 * refuses itself. Checked without writing or parsing anything: a commit's values cost a walk,
 * not a second parse (store_test's unreadable_values_refused pins each case). */
const char *ts_sqlite_unloadable(const ts_json *value);

#endif
