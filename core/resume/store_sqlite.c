/* store_sqlite.c — the SQLite store; see store_sqlite.h. */
#include "core/resume/store_sqlite.h"

#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json/buf.h"
#include "core/json/codec.h"

/* ------------------------------------------------------------------------- the schema ----- */

/* Version 1. One row in meta and at most one in checkpoint (id = 1); entries, tasks and signals
 * keep their commit order in seq. JSON columns hold the codec's compact text; a root entry's
 * parent_id is NULL; a task's result is "null" while it is pending. */
static const char schema_v1[] =
    "CREATE TABLE meta("
    " id INTEGER PRIMARY KEY CHECK (id = 1),"
    " execution_id TEXT NOT NULL,"
    " events_applied INTEGER NOT NULL);"
    "INSERT INTO meta(id, execution_id, events_applied) VALUES (1, '', 0);"
    "CREATE TABLE entries("
    " seq INTEGER PRIMARY KEY,"
    " entry_id TEXT UNIQUE NOT NULL,"
    " parent_id TEXT,"
    " role TEXT NOT NULL,"
    " content TEXT NOT NULL,"
    " timestamp TEXT NOT NULL);"
    "CREATE TABLE tasks("
    " seq INTEGER PRIMARY KEY,"
    " task_id TEXT UNIQUE NOT NULL,"
    " key TEXT NOT NULL,"
    " kind TEXT NOT NULL,"
    " input TEXT NOT NULL,"
    " status TEXT NOT NULL,"
    " result TEXT NOT NULL);"
    "CREATE TABLE signals("
    " seq INTEGER PRIMARY KEY,"
    " content TEXT NOT NULL);"
    "CREATE TABLE checkpoint("
    " id INTEGER PRIMARY KEY CHECK (id = 1),"
    " sequence INTEGER NOT NULL,"
    " leaf_id TEXT NOT NULL,"
    " signals_consumed INTEGER NOT NULL,"
    " state TEXT NOT NULL);";

/* The statements the store runs, prepared once at open (SQLITE_PREPARE_PERSISTENT). Preparing
 * them is also how an existing version-1 file is verified to have turnstile's tables. */
typedef enum statement_id {
    ST_BEGIN_WRITE,
    ST_BEGIN_READ,
    ST_COMMIT,
    ST_ROLLBACK,
    ST_DATA_VERSION,
    ST_SET_EXECUTION,
    ST_SET_EVENTS,
    ST_INSERT_ENTRY,
    ST_INSERT_TASK,
    ST_UPDATE_TASK,
    ST_INSERT_SIGNAL,
    ST_SET_CHECKPOINT,
    ST_READ_META,
    ST_READ_ENTRIES,
    ST_READ_TASKS,
    ST_READ_SIGNALS,
    ST_READ_CHECKPOINT,
    ST_COUNT
} statement_id;

static const char *const statement_sql[ST_COUNT] = {
    [ST_BEGIN_WRITE] = "BEGIN IMMEDIATE",
    [ST_BEGIN_READ] = "BEGIN",
    [ST_COMMIT] = "COMMIT",
    [ST_ROLLBACK] = "ROLLBACK",
    [ST_DATA_VERSION] = "PRAGMA data_version",
    [ST_SET_EXECUTION] = "UPDATE meta SET execution_id = ?1 WHERE id = 1",
    [ST_SET_EVENTS] = "UPDATE meta SET events_applied = ?1 WHERE id = 1",
    [ST_INSERT_ENTRY] = "INSERT INTO entries(entry_id, parent_id, role, content, timestamp) VALUES (?1, ?2, ?3, ?4, ?5)",
    [ST_INSERT_TASK] = "INSERT INTO tasks(task_id, key, kind, input, status, result) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    [ST_UPDATE_TASK] = "UPDATE tasks SET status = ?2, result = ?3 WHERE task_id = ?1",
    [ST_INSERT_SIGNAL] = "INSERT INTO signals(content) VALUES (?1)",
    [ST_SET_CHECKPOINT] = ("INSERT OR REPLACE INTO checkpoint(id, sequence, leaf_id, signals_consumed, state) "
                           "VALUES (1, ?1, ?2, ?3, ?4)"),
    [ST_READ_META] = "SELECT execution_id, events_applied FROM meta WHERE id = 1",
    [ST_READ_ENTRIES] = "SELECT seq, entry_id, parent_id, role, content, timestamp FROM entries ORDER BY seq",
    [ST_READ_TASKS] = "SELECT seq, task_id, key, kind, input, status, result FROM tasks ORDER BY seq",
    [ST_READ_SIGNALS] = "SELECT seq, content FROM signals ORDER BY seq",
    [ST_READ_CHECKPOINT] = "SELECT sequence, leaf_id, signals_consumed, state FROM checkpoint WHERE id = 1",
};

/* ---------------------------------------------------------------------- the store --------- */

typedef struct sqlite_store {
    ts_store base; /* first: a sqlite_store * is a ts_store * */
    sqlite3 *db;
    sqlite3_stmt *statements[ST_COUNT];
    /* The journal as committed, decided against and updated after each COMMIT. */
    ts_arena mirror_arena;
    ts_journal mirror;
    bool mirror_stale;      /* a committed write could not be applied: reload before use */
    int64_t data_version;   /* PRAGMA data_version when the mirror was last read from disk */
    char unusable[260];     /* non-empty: a ROLLBACK failed; every later call is refused */
    ts_buf text;            /* scratch: the JSON text of the value being bound */
    ts_arena scratch;       /* scratch: values parsed back or read, before they are copied */
    char open_op[200];      /* "open PATH": how errors while opening name the operation */
} sqlite_store;

static sqlite_store *self_of(ts_store *store) { return (sqlite_store *)store; }

/* Fills err with "OP: WHAT: SQLite's message (SQLite error CODE)". */
static bool sql_failed(sqlite_store *s, ts_error *err, const char *op, const char *what, int rc) {
    ts_error_set(err, "%s: %s: %s (SQLite error %d)", op, what, s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc),
                 rc);
    return false;
}

/* Runs a statement that returns no row, then resets it. */
static bool run(sqlite_store *s, statement_id id, const char *op, const char *what, ts_error *err) {
    sqlite3_stmt *st = s->statements[id];
    int rc = sqlite3_step(st);
    if (rc == SQLITE_DONE) {
        sqlite3_reset(st);
        return true;
    }
    if (rc == SQLITE_ROW) {
        sqlite3_reset(st);
        ts_error_set(err, "%s: %s: the statement returned a row", op, what);
        return false;
    }
    sql_failed(s, err, op, what, rc); /* before the reset, which may replace the message */
    sqlite3_reset(st);
    return false;
}

static int bind_text(sqlite3_stmt *st, int index, const char *text, size_t len) {
    return sqlite3_bind_text64(st, index, text ? text : "", text ? len : 0, SQLITE_STATIC, SQLITE_UTF8);
}

static int bind_cstr(sqlite3_stmt *st, int index, const char *text) { return bind_text(st, index, text, strlen(text)); }

/* Checks a count before it is stored as SQLite's signed 64-bit integer. */
static bool fits_int64(uint64_t value, const char *op, const char *what, ts_error *err) {
    if (value <= (uint64_t)INT64_MAX) return true;
    ts_error_set(err, "%s: %s %" PRIu64 " is larger than the store can hold", op, what, value);
    return false;
}

/* Leaves the JSON text of value in s->text, after checking that the codec reads it back: a value
 * the store could not load again (a non-finite number, invalid UTF-8, a duplicate key) is
 * refused here rather than stored. */
static bool json_text(sqlite_store *s, const ts_json *value, const char *op, const char *what, ts_error *err) {
    ts_buf_reset(&s->text);
    if (!ts_codec_write(&s->text, value, TS_WRITE_COMPACT) || !s->text.data) {
        ts_error_set(err, "%s: %s: the value cannot be written as JSON (a number that is not finite, or out of memory)",
                     op, what);
        return false;
    }
    ts_json parsed;
    ts_error parse_err;
    ts_error_clear(&parse_err);
    bool readable = ts_codec_parse_any(&s->scratch, s->text.data, s->text.len, &parsed, &parse_err);
    ts_arena_free(&s->scratch);
    if (!readable) {
        ts_error_set(err, "%s: %s: the value's JSON would not load again (%s); nothing was stored", op, what,
                     parse_err.message);
        return false;
    }
    return true;
}

/* ------------------------------------------------------------------ reading the file ----- */

/* A column as a byte string; NULL (and no error) for SQL NULL. */
static bool column_text(sqlite_store *s, sqlite3_stmt *st, int column, ts_str *out, const char *what,
                        ts_error *err) {
    const unsigned char *text = sqlite3_column_text(st, column);
    int len = sqlite3_column_bytes(st, column);
    if (!text && sqlite3_column_type(st, column) != SQLITE_NULL)
        return sql_failed(s, err, "load", what, sqlite3_errcode(s->db));
    *out = (ts_str){(const char *)text, text ? (size_t)len : 0};
    return true;
}

/* Copies a UUID column ('' or 36 characters; NULL counts as '') into out. */
static bool column_uuid(sqlite_store *s, sqlite3_stmt *st, int column, char out[TS_UUID_TEXT], const char *what,
                        ts_error *err) {
    ts_str text;
    if (!column_text(s, st, column, &text, what, err)) return false;
    if (text.len != 0 && text.len != TS_UUID_TEXT - 1) {
        ts_error_set(err, "load: %s is not a UUID (%zu bytes)", what, text.len);
        return false;
    }
    if (text.len) memcpy(out, text.ptr, text.len);
    out[text.len] = '\0';
    return true;
}

/* Parses a JSON column into s->scratch (the caller copies what it keeps, then may free it). */
static bool column_json(sqlite_store *s, sqlite3_stmt *st, int column, bool object_only, ts_json *out,
                        const char *what, ts_error *err) {
    ts_str text;
    if (!column_text(s, st, column, &text, what, err)) return false;
    ts_error parse_err;
    ts_error_clear(&parse_err);
    if (!text.ptr || !ts_codec_parse_any(&s->scratch, text.ptr, text.len, out, &parse_err)) {
        ts_error_set(err, "load: %s is not JSON: %s", what, text.ptr ? parse_err.message : "NULL");
        return false;
    }
    if (object_only && out->kind != TS_JSON_OBJECT) {
        ts_error_set(err, "load: %s is not a JSON object", what);
        return false;
    }
    return true;
}

static bool column_count(sqlite3_stmt *st, int column, uint64_t *out, const char *what, ts_error *err) {
    if (sqlite3_column_type(st, column) != SQLITE_INTEGER || sqlite3_column_int64(st, column) < 0) {
        ts_error_set(err, "load: %s is not a non-negative integer", what);
        return false;
    }
    *out = (uint64_t)sqlite3_column_int64(st, column);
    return true;
}

/* Frees the scratch arena once it holds more than a little, so a long load reuses memory. */
static void trim_scratch(sqlite_store *s) {
    if (s->scratch.bytes_allocated > ((size_t)1 << 20)) ts_arena_free(&s->scratch);
}

/* Ends a row loop: rc must be SQLITE_DONE. Resets the statement either way. */
static bool rows_done(sqlite_store *s, sqlite3_stmt *st, int rc, const char *what, ts_error *err) {
    bool ok = rc == SQLITE_DONE || sql_failed(s, err, "load", what, rc);
    sqlite3_reset(st);
    return ok;
}

static bool read_meta(sqlite_store *s, ts_journal *out, ts_error *err) {
    sqlite3_stmt *st = s->statements[ST_READ_META];
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        if (rc == SQLITE_DONE) ts_error_set(err, "load: the meta table has no row: not a turnstile journal");
        else sql_failed(s, err, "load", "reading meta", rc);
        sqlite3_reset(st);
        return false;
    }
    bool ok = column_uuid(s, st, 0, out->execution_id, "meta.execution_id", err) &&
              column_count(st, 1, &out->events_applied, "meta.events_applied", err);
    sqlite3_reset(st);
    return ok;
}

static bool read_entries(sqlite_store *s, ts_arena *arena, ts_journal *out, ts_error *err) {
    sqlite3_stmt *st = s->statements[ST_READ_ENTRIES];
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        char what[64];
        snprintf(what, sizeof what, "entries row %lld", (long long)sqlite3_column_int64(st, 0));
        ts_entry entry;
        memset(&entry, 0, sizeof entry);
        ts_str role;
        if (!column_uuid(s, st, 1, entry.id, what, err) || !column_uuid(s, st, 2, entry.parent_id, what, err) ||
            !column_text(s, st, 3, &role, what, err) || !column_json(s, st, 4, true, &entry.content, what, err) ||
            !column_text(s, st, 5, &entry.timestamp, what, err))
            goto fail;
        if (!entry.id[0] || !role.ptr || !ts_entry_role_parse(role, &entry.role) || !entry.timestamp.ptr) {
            ts_error_set(err, "load: %s: needs an entry id, a role (user, assistant or tool) and a timestamp", what);
            goto fail;
        }
        if (!ts_journal_add_entry(out, arena, &entry)) {
            ts_error_set(err, "load: out of memory");
            goto fail;
        }
        trim_scratch(s);
    }
    return rows_done(s, st, rc, "reading entries", err);
fail:
    sqlite3_reset(st);
    return false;
}

static bool read_tasks(sqlite_store *s, ts_arena *arena, ts_journal *out, ts_error *err) {
    sqlite3_stmt *st = s->statements[ST_READ_TASKS];
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        char what[64];
        snprintf(what, sizeof what, "tasks row %lld", (long long)sqlite3_column_int64(st, 0));
        ts_task task;
        memset(&task, 0, sizeof task);
        ts_str key, status;
        if (!column_uuid(s, st, 1, task.id, what, err) || !column_text(s, st, 2, &key, what, err) ||
            !column_text(s, st, 3, &task.kind, what, err) || !column_text(s, st, 4, &task.input, what, err) ||
            !column_text(s, st, 5, &status, what, err) || !column_json(s, st, 6, false, &task.result, what, err))
            goto fail;
        if (!task.id[0] || !key.ptr || key.len >= sizeof task.key || !task.kind.ptr || !task.input.ptr ||
            !status.ptr || !ts_task_status_parse(status, &task.status)) {
            ts_error_set(err, "load: %s: needs a task id, a key, a kind, an input and a status", what);
            goto fail;
        }
        memcpy(task.key, key.ptr, key.len);
        task.key[key.len] = '\0';
        if (!ts_journal_add_task(out, arena, &task)) {
            ts_error_set(err, "load: out of memory");
            goto fail;
        }
        trim_scratch(s);
    }
    return rows_done(s, st, rc, "reading tasks", err);
fail:
    sqlite3_reset(st);
    return false;
}

static bool read_signals(sqlite_store *s, ts_arena *arena, ts_journal *out, ts_error *err) {
    sqlite3_stmt *st = s->statements[ST_READ_SIGNALS];
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        char what[64];
        snprintf(what, sizeof what, "signals row %lld", (long long)sqlite3_column_int64(st, 0));
        ts_json signal;
        if (!column_json(s, st, 1, false, &signal, what, err)) goto fail;
        if (!ts_journal_add_signal(out, arena, &signal)) {
            ts_error_set(err, "load: out of memory");
            goto fail;
        }
        trim_scratch(s);
    }
    return rows_done(s, st, rc, "reading signals", err);
fail:
    sqlite3_reset(st);
    return false;
}

static bool read_checkpoint(sqlite_store *s, ts_arena *arena, ts_journal *out, ts_error *err) {
    sqlite3_stmt *st = s->statements[ST_READ_CHECKPOINT];
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) return rows_done(s, st, rc, "reading the checkpoint", err);
    ts_checkpoint *cp = &out->checkpoint;
    ts_json state;
    bool ok = column_count(st, 0, &cp->sequence, "checkpoint.sequence", err) &&
              column_uuid(s, st, 1, cp->leaf_id, "checkpoint.leaf_id", err) &&
              column_count(st, 2, &cp->signals_consumed, "checkpoint.signals_consumed", err) &&
              column_json(s, st, 3, true, &state, "checkpoint.state", err);
    sqlite3_reset(st);
    if (!ok) return false;
    if (!ts_json_clone(arena, &state, &cp->state)) {
        ts_error_set(err, "load: out of memory");
        return false;
    }
    out->has_checkpoint = true;
    return true;
}

/* Reads the whole journal into out (initialised by the caller), inside the caller's transaction
 * so that every table is read from one snapshot. */
static bool read_journal(sqlite_store *s, ts_arena *arena, ts_journal *out, ts_error *err) {
    bool ok = read_meta(s, out, err) && read_entries(s, arena, out, err) && read_tasks(s, arena, out, err) &&
              read_signals(s, arena, out, err) && read_checkpoint(s, arena, out, err);
    ts_arena_free(&s->scratch);
    return ok;
}

static bool data_version(sqlite_store *s, int64_t *out, const char *op, ts_error *err) {
    sqlite3_stmt *st = s->statements[ST_DATA_VERSION];
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        sql_failed(s, err, op, "PRAGMA data_version", rc);
        sqlite3_reset(st);
        return false;
    }
    *out = sqlite3_column_int64(st, 0);
    sqlite3_reset(st);
    return true;
}

/* Inside a transaction: makes the mirror the journal on disk, re-reading it only when another
 * connection has committed since it was read, or when it could not follow our own commit. */
static bool refresh_mirror(sqlite_store *s, const char *op, ts_error *err) {
    int64_t version;
    if (!data_version(s, &version, op, err)) return false;
    if (!s->mirror_stale && version == s->data_version) return true;
    ts_arena arena;
    ts_journal journal;
    ts_arena_init(&arena);
    ts_journal_init(&journal);
    if (!read_journal(s, &arena, &journal, err)) {
        ts_journal_free(&journal);
        ts_arena_free(&arena);
        s->mirror_stale = true;
        return false;
    }
    ts_journal_free(&s->mirror);
    ts_arena_free(&s->mirror_arena);
    s->mirror = journal;
    s->mirror_arena = arena;
    s->data_version = version;
    s->mirror_stale = false;
    return true;
}

/* ------------------------------------------------------------------- transactions --------- */

/* Records why the store refuses every later call (a ROLLBACK failed). */
static void make_unusable(sqlite_store *s, const ts_error *rollback_err) {
    snprintf(s->unusable, sizeof s->unusable, "%.200s; the store refuses every call until it is reopened",
             rollback_err->message);
}

/* After a failure: rolls back the open transaction, if SQLite has not already. When that fails
 * too the store becomes unusable (its connection may hold a half-done transaction). */
static bool abort_transaction(sqlite_store *s, const char *op, ts_error *err) {
    if (sqlite3_get_autocommit(s->db)) return false;
    ts_error rollback_err;
    ts_error_clear(&rollback_err);
    if (run(s, ST_ROLLBACK, op, "ROLLBACK", &rollback_err)) return false;
    make_unusable(s, &rollback_err);
    if (err) {
        size_t used = strlen(err->message);
        snprintf(err->message + used, sizeof err->message - used, "; then %s", s->unusable);
    }
    return false;
}

static bool refuse_if_unusable(sqlite_store *s, const char *op, ts_error *err) {
    if (!s->unusable[0]) return false;
    ts_error_set(err, "%s: refused: an earlier %s", op, s->unusable);
    return true;
}

/* BEGIN IMMEDIATE (the write lock, so the mirror cannot go stale under us) and a fresh mirror. */
static bool write_begin(sqlite_store *s, const char *op, ts_error *err) {
    if (refuse_if_unusable(s, op, err)) return false;
    if (!run(s, ST_BEGIN_WRITE, op, "BEGIN IMMEDIATE", err) || !refresh_mirror(s, op, err))
        return abort_transaction(s, op, err);
    return true;
}

static bool write_commit(sqlite_store *s, const char *op, ts_error *err) {
    return run(s, ST_COMMIT, op, "COMMIT", err) || abort_transaction(s, op, err);
}

/* Ends a write transaction that wrote nothing (a no-op or a refusal decided on the mirror). */
static bool write_end_unchanged(sqlite_store *s, const char *op, ts_error *err) {
    ts_error rollback_err;
    ts_error_clear(&rollback_err);
    if (run(s, ST_ROLLBACK, op, "ROLLBACK", &rollback_err)) return true;
    make_unusable(s, &rollback_err);
    ts_error_set(err, "%s", s->unusable);
    return false;
}

/* A refusal decided before anything was written: err already says why. */
static bool write_refused(sqlite_store *s, const char *op, ts_error *err) {
    ts_error kept = err ? *err : (ts_error){0};
    if (!write_end_unchanged(s, op, err)) return false;
    if (err) *err = kept;
    return false;
}

/* --------------------------------------------------------------------- write calls -------- */

static bool write_entry(sqlite_store *s, const ts_entry *e, ts_error *err) {
    char what[80];
    snprintf(what, sizeof what, "inserting entry %s", e->id);
    if (!json_text(s, &e->content, "commit", what, err)) return false;
    sqlite3_stmt *st = s->statements[ST_INSERT_ENTRY];
    int rc = bind_cstr(st, 1, e->id);
    if (rc == SQLITE_OK) rc = e->parent_id[0] ? bind_cstr(st, 2, e->parent_id) : sqlite3_bind_null(st, 2);
    if (rc == SQLITE_OK) rc = bind_cstr(st, 3, ts_entry_role_name(e->role));
    if (rc == SQLITE_OK) rc = bind_text(st, 4, s->text.data, s->text.len);
    if (rc == SQLITE_OK) rc = bind_text(st, 5, e->timestamp.ptr, e->timestamp.len);
    if (rc != SQLITE_OK) return sql_failed(s, err, "commit", what, rc);
    return run(s, ST_INSERT_ENTRY, "commit", what, err);
}

static bool write_task(sqlite_store *s, const ts_task *t, bool recorded, const char *op, ts_error *err) {
    char what[80];
    snprintf(what, sizeof what, "%s task %s", recorded ? "updating" : "inserting", t->id);
    if (!json_text(s, &t->result, op, what, err)) return false;
    const char *status = ts_task_status_name(t->status);
    sqlite3_stmt *st;
    int rc;
    if (recorded) {
        st = s->statements[ST_UPDATE_TASK];
        rc = bind_cstr(st, 1, t->id);
        if (rc == SQLITE_OK) rc = bind_cstr(st, 2, status);
        if (rc == SQLITE_OK) rc = bind_text(st, 3, s->text.data, s->text.len);
    } else {
        st = s->statements[ST_INSERT_TASK];
        rc = bind_cstr(st, 1, t->id);
        if (rc == SQLITE_OK) rc = bind_cstr(st, 2, t->key);
        if (rc == SQLITE_OK) rc = bind_text(st, 3, t->kind.ptr, t->kind.len);
        if (rc == SQLITE_OK) rc = bind_text(st, 4, t->input.ptr, t->input.len);
        if (rc == SQLITE_OK) rc = bind_cstr(st, 5, status);
        if (rc == SQLITE_OK) rc = bind_text(st, 6, s->text.data, s->text.len);
    }
    if (rc != SQLITE_OK) return sql_failed(s, err, op, what, rc);
    if (!run(s, recorded ? ST_UPDATE_TASK : ST_INSERT_TASK, op, what, err)) return false;
    if (recorded && sqlite3_changes(s->db) != 1) {
        ts_error_set(err, "%s: %s: the task's row is missing from the file", op, what);
        return false;
    }
    return true;
}

static bool write_checkpoint(sqlite_store *s, const ts_checkpoint *cp, ts_error *err) {
    const char *what = "writing the checkpoint";
    if (!fits_int64(cp->sequence, "commit", "checkpoint sequence", err) ||
        !fits_int64(cp->signals_consumed, "commit", "checkpoint signals_consumed", err) ||
        !json_text(s, &cp->state, "commit", what, err))
        return false;
    sqlite3_stmt *st = s->statements[ST_SET_CHECKPOINT];
    int rc = sqlite3_bind_int64(st, 1, (sqlite3_int64)cp->sequence);
    if (rc == SQLITE_OK) rc = bind_cstr(st, 2, cp->leaf_id);
    if (rc == SQLITE_OK) rc = sqlite3_bind_int64(st, 3, (sqlite3_int64)cp->signals_consumed);
    if (rc == SQLITE_OK) rc = bind_text(st, 4, s->text.data, s->text.len);
    if (rc != SQLITE_OK) return sql_failed(s, err, "commit", what, rc);
    return run(s, ST_SET_CHECKPOINT, "commit", what, err);
}

static bool write_events_applied(sqlite_store *s, uint64_t events_applied, const char *op, ts_error *err) {
    if (!fits_int64(events_applied, op, "events_applied", err)) return false;
    int rc = sqlite3_bind_int64(s->statements[ST_SET_EVENTS], 1, (sqlite3_int64)events_applied);
    if (rc != SQLITE_OK) return sql_failed(s, err, op, "setting events_applied", rc);
    return run(s, ST_SET_EVENTS, op, "setting events_applied", err);
}

static bool write_commit_rows(sqlite_store *s, const ts_commit *commit, const bool *new_entries,
                              const bool *new_tasks, ts_error *err) {
    for (size_t i = 0; i < commit->entry_count; i++)
        if (new_entries[i] && !write_entry(s, &commit->entries[i], err)) return false;
    for (size_t i = 0; i < commit->task_count; i++) {
        if (!new_tasks[i]) continue;
        bool recorded = ts_journal_find_task(&s->mirror, commit->tasks[i].id) != NULL;
        if (!write_task(s, &commit->tasks[i], recorded, "commit", err)) return false;
    }
    return !commit->checkpoint || write_checkpoint(s, commit->checkpoint, err);
}

static bool sqlite_commit(ts_store *store, const ts_commit *commit, ts_error *err) {
    sqlite_store *s = self_of(store);
    bool *fresh = calloc(commit->entry_count + commit->task_count + 1, sizeof *fresh);
    if (!fresh) {
        ts_error_set(err, "commit: out of memory");
        return false;
    }
    bool *new_entries = fresh, *new_tasks = fresh + commit->entry_count;
    bool ok = write_begin(s, "commit", err);
    if (ok) {
        if (!ts_commit_check(&s->mirror, commit, new_entries, new_tasks, err))
            ok = write_refused(s, "commit", err); /* the same refusal, word for word, as the memory store's */
        else if (!write_commit_rows(s, commit, new_entries, new_tasks, err))
            ok = abort_transaction(s, "commit", err);
        else
            ok = write_commit(s, "commit", err);
    }
    /* Durable now; the mirror follows, or is re-read before the next call. */
    ts_error apply_err;
    if (ok && !ts_commit_apply(&s->mirror, &s->mirror_arena, commit, new_entries, new_tasks, &apply_err))
        s->mirror_stale = true;
    free(fresh);
    return ok;
}

static bool sqlite_begin_execution(ts_store *store, const char *execution_id, ts_error *err) {
    sqlite_store *s = self_of(store);
    const char *op = "begin_execution";
    if (!write_begin(s, op, err)) return false;
    bool already;
    if (!ts_journal_check_begin(&s->mirror, execution_id, &already, err)) return write_refused(s, op, err);
    if (already) return write_end_unchanged(s, op, err);
    const char *what = "setting the execution id";
    int rc = bind_cstr(s->statements[ST_SET_EXECUTION], 1, execution_id);
    if (rc != SQLITE_OK) sql_failed(s, err, op, what, rc);
    if (rc != SQLITE_OK || !run(s, ST_SET_EXECUTION, op, what, err)) return abort_transaction(s, op, err);
    if (!write_commit(s, op, err)) return false;
    memcpy(s->mirror.execution_id, execution_id, TS_UUID_TEXT);
    return true;
}

static bool sqlite_deliver_signal(ts_store *store, const ts_json *signal, uint64_t events_applied, ts_error *err) {
    sqlite_store *s = self_of(store);
    const char *op = "deliver_signal";
    if (!write_begin(s, op, err)) return false;
    if (!s->mirror.execution_id[0]) {
        ts_error_set(err, "a signal before the execution began");
        return write_refused(s, op, err);
    }
    const char *what = "inserting the signal";
    if (!fits_int64(events_applied, op, "events_applied", err) || !json_text(s, signal, op, what, err))
        return write_refused(s, op, err);
    int rc = bind_text(s->statements[ST_INSERT_SIGNAL], 1, s->text.data, s->text.len);
    if (rc != SQLITE_OK) sql_failed(s, err, op, what, rc);
    if (rc != SQLITE_OK || !run(s, ST_INSERT_SIGNAL, op, what, err) ||
        !write_events_applied(s, events_applied, op, err))
        return abort_transaction(s, op, err);
    if (!write_commit(s, op, err)) return false;
    if (!ts_journal_add_signal(&s->mirror, &s->mirror_arena, signal)) s->mirror_stale = true;
    s->mirror.events_applied = events_applied;
    return true;
}

static bool sqlite_complete_task(ts_store *store, const ts_task *task, uint64_t events_applied, ts_error *err) {
    sqlite_store *s = self_of(store);
    const char *op = "complete_task";
    if (!write_begin(s, op, err)) return false;
    if (!ts_journal_check_completion(&s->mirror, task, err)) return write_refused(s, op, err);
    ts_task *existing = ts_journal_find_task(&s->mirror, task->id);
    if (!fits_int64(events_applied, op, "events_applied", err)) return write_refused(s, op, err);
    if (!write_task(s, task, true, op, err) || !write_events_applied(s, events_applied, op, err))
        return abort_transaction(s, op, err);
    if (!write_commit(s, op, err)) return false;
    ts_json result;
    if (ts_json_clone(&s->mirror_arena, &task->result, &result)) {
        existing->status = task->status;
        existing->result = result;
    } else {
        s->mirror_stale = true;
    }
    s->mirror.events_applied = events_applied;
    return true;
}

static bool sqlite_mark_event(ts_store *store, uint64_t events_applied, ts_error *err) {
    sqlite_store *s = self_of(store);
    const char *op = "mark_event";
    if (!write_begin(s, op, err)) return false;
    if (!fits_int64(events_applied, op, "events_applied", err)) return write_refused(s, op, err);
    if (!write_events_applied(s, events_applied, op, err)) return abort_transaction(s, op, err);
    if (!write_commit(s, op, err)) return false;
    s->mirror.events_applied = events_applied;
    return true;
}

/* ------------------------------------------------------------------------ load ----------- */

static bool copy_journal(const ts_journal *src, ts_arena *arena, ts_journal *dst) {
    memcpy(dst->execution_id, src->execution_id, sizeof dst->execution_id);
    for (size_t i = 0; i < src->entry_count; i++)
        if (!ts_journal_add_entry(dst, arena, &src->entries[i])) return false;
    for (size_t i = 0; i < src->task_count; i++)
        if (!ts_journal_add_task(dst, arena, &src->tasks[i])) return false;
    for (size_t i = 0; i < src->signal_count; i++)
        if (!ts_journal_add_signal(dst, arena, &src->signals[i])) return false;
    dst->events_applied = src->events_applied;
    if (src->has_checkpoint) {
        dst->checkpoint = src->checkpoint;
        if (!ts_json_clone(arena, &src->checkpoint.state, &dst->checkpoint.state)) return false;
        dst->has_checkpoint = true;
    }
    return true;
}

/* The mirror, brought up to date inside a read transaction, copied into the caller's arena. */
static bool sqlite_load(ts_store *store, ts_arena *arena, ts_journal *out, ts_error *err) {
    sqlite_store *s = self_of(store);
    ts_journal_init(out);
    if (refuse_if_unusable(s, "load", err)) return false;
    if (!run(s, ST_BEGIN_READ, "load", "BEGIN", err)) return abort_transaction(s, "load", err);
    if (!refresh_mirror(s, "load", err)) return abort_transaction(s, "load", err);
    if (!write_end_unchanged(s, "load", err)) return false;
    if (!copy_journal(&s->mirror, arena, out)) {
        ts_error_set(err, "load: out of memory while copying the journal");
        return false;
    }
    return true;
}

/* ------------------------------------------------------------------- open and close ------- */

static void sqlite_close(ts_store *store) {
    sqlite_store *s = self_of(store);
    if (!s) return;
    for (int i = 0; i < ST_COUNT; i++) sqlite3_finalize(s->statements[i]);
    /* With every statement finalized this closes at once (checkpointing the WAL when it is the
     * last connection); a failure to checkpoint loses nothing, the WAL stays for the next open. */
    sqlite3_close_v2(s->db);
    ts_journal_free(&s->mirror);
    ts_arena_free(&s->mirror_arena);
    ts_arena_free(&s->scratch);
    ts_buf_free(&s->text);
    free(s);
}

static const ts_store_vtable sqlite_vtable = {
    .load = sqlite_load,
    .begin_execution = sqlite_begin_execution,
    .commit = sqlite_commit,
    .deliver_signal = sqlite_deliver_signal,
    .complete_task = sqlite_complete_task,
    .mark_event = sqlite_mark_event,
    .close = sqlite_close,
};

/* Runs SQL that returns at most one row and reads its first column as an integer (0 for none). */
static bool query_int(sqlite_store *s, const char *sql, int64_t *out, const char *what, ts_error *err) {
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK) rc = sqlite3_step(st);
    *out = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    bool ok = rc == SQLITE_ROW || rc == SQLITE_DONE || sql_failed(s, err, s->open_op, what, rc);
    sqlite3_finalize(st);
    return ok;
}

static bool exec_sql(sqlite_store *s, const char *sql, const char *what, ts_error *err) {
    int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);
    return rc == SQLITE_OK || sql_failed(s, err, s->open_op, what, rc);
}

typedef enum file_kind { FILE_TURNSTILE, FILE_EMPTY, FILE_REFUSED } file_kind;

/* Reads the header fields and decides what the file is; FILE_REFUSED fills err. */
static file_kind classify(sqlite_store *s, ts_error *err) {
    const char *op = s->open_op;
    int64_t application_id, version, objects;
    if (!query_int(s, "PRAGMA application_id", &application_id, "reading the application_id", err) ||
        !query_int(s, "PRAGMA user_version", &version, "reading the schema version", err))
        return FILE_REFUSED;
    if (application_id == TS_SQLITE_APPLICATION_ID) {
        if (version > TS_SQLITE_SCHEMA_VERSION) {
            ts_error_set(err, "%s: journal schema version %" PRId64 " is newer than this turnstile (%d)", op, version,
                         TS_SQLITE_SCHEMA_VERSION);
            return FILE_REFUSED;
        }
        if (version < TS_SQLITE_SCHEMA_VERSION) {
            ts_error_set(err, "%s: journal schema version %" PRId64 " is not one this turnstile knows (it writes %d)",
                         op, version, TS_SQLITE_SCHEMA_VERSION);
            return FILE_REFUSED;
        }
        return FILE_TURNSTILE;
    }
    if (application_id != 0 || version != 0) {
        ts_error_set(err,
                     "%s: not a turnstile journal: application_id 0x%08" PRIx32 " and user_version %" PRId64
                     " (a turnstile journal has application_id 0x%08x)",
                     op, (uint32_t)application_id, version, TS_SQLITE_APPLICATION_ID);
        return FILE_REFUSED;
    }
    if (!query_int(s, "SELECT count(*) FROM sqlite_master", &objects, "reading the schema", err)) return FILE_REFUSED;
    if (objects != 0) {
        ts_error_set(err, "%s: not a turnstile journal: it holds %" PRId64 " tables or indexes and no turnstile application_id",
                     op, objects);
        return FILE_REFUSED;
    }
    return FILE_EMPTY;
}

/* Gives an empty file the schema, in one transaction that re-checks the file under the write lock
 * (another process may have created it meanwhile). */
static bool create_schema(sqlite_store *s, ts_error *err) {
    if (!exec_sql(s, "BEGIN IMMEDIATE", "BEGIN IMMEDIATE", err)) return false;
    file_kind kind = classify(s, err);
    bool ok = kind != FILE_REFUSED;
    if (ok && kind == FILE_EMPTY) {
        char pragmas[128];
        snprintf(pragmas, sizeof pragmas, "PRAGMA application_id = %d; PRAGMA user_version = %d;",
                 TS_SQLITE_APPLICATION_ID, TS_SQLITE_SCHEMA_VERSION);
        ok = exec_sql(s, schema_v1, "creating the schema", err) && exec_sql(s, pragmas, "stamping the schema", err);
    }
    ok = ok && exec_sql(s, "COMMIT", "COMMIT of the new schema", err);
    if (!ok && !sqlite3_get_autocommit(s->db)) sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    return ok;
}

/* Prepares every statement; on an existing file this is also the check that its tables are
 * turnstile's (a missing table or column fails here, before anything was written). */
static bool prepare_statements(sqlite_store *s, ts_error *err) {
    for (int i = 0; i < ST_COUNT; i++) {
        int rc = sqlite3_prepare_v3(s->db, statement_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &s->statements[i], NULL);
        if (rc != SQLITE_OK) {
            ts_error_set(err, "%s: not a turnstile journal of schema version %d: %s: %s (SQLite error %d)", s->open_op,
                         TS_SQLITE_SCHEMA_VERSION, statement_sql[i], sqlite3_errmsg(s->db), rc);
            return false;
        }
    }
    return true;
}

static bool set_wal_mode(sqlite_store *s, ts_error *err) {
    char mode[16] = "";
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, "PRAGMA journal_mode = WAL", -1, &st, NULL);
    if (rc == SQLITE_OK) rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && sqlite3_column_text(st, 0))
        snprintf(mode, sizeof mode, "%s", (const char *)sqlite3_column_text(st, 0));
    if (rc != SQLITE_ROW) sql_failed(s, err, s->open_op, "PRAGMA journal_mode = WAL", rc);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW) return false;
    if (strcmp(mode, "wal") != 0) {
        ts_error_set(err, "%s: the journal needs WAL mode, SQLite gave journal_mode %s", s->open_op, mode);
        return false;
    }
    return true;
}

static bool open_database(sqlite_store *s, const char *path, const ts_sqlite_options *options, ts_error *err) {
    int rc = sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, options->vfs);
    if (rc != SQLITE_OK) {
        ts_error_set(err, "%s: %s (SQLite error %d)", s->open_op, s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc),
                     rc);
        return false;
    }
    sqlite3_extended_result_codes(s->db, 1);
    sqlite3_busy_timeout(s->db, options->busy_timeout_ms == 0 ? 5000 : options->busy_timeout_ms);
    /* Decide what the file is, and for an existing journal verify its tables, before anything
     * is written: a refused file is left as it was. */
    file_kind kind = classify(s, err);
    if (kind == FILE_REFUSED || (kind == FILE_TURNSTILE && !prepare_statements(s, err))) return false;
    int64_t ignored;
    const char *sync = options->synchronous == TS_SQLITE_SYNC_NORMAL ? "PRAGMA synchronous = NORMAL"
                       : options->synchronous == TS_SQLITE_SYNC_OFF  ? "PRAGMA synchronous = OFF"
                                                                     : "PRAGMA synchronous = FULL";
    if (!query_int(s, sync, &ignored, "setting synchronous", err) || !set_wal_mode(s, err) ||
        !query_int(s, sync, &ignored, "setting synchronous", err))
        return false;
    return kind == FILE_TURNSTILE || (create_schema(s, err) && prepare_statements(s, err));
}

ts_store *ts_sqlite_store_open(const char *path, const ts_sqlite_options *options, ts_error *err) {
    static const ts_sqlite_options defaults = {TS_SQLITE_SYNC_FULL, NULL, 0};
    if (!options) options = &defaults;
    if (options->synchronous != TS_SQLITE_SYNC_FULL && options->synchronous != TS_SQLITE_SYNC_NORMAL &&
        options->synchronous != TS_SQLITE_SYNC_OFF) {
        ts_error_set(err, "open %s: synchronous must be FULL, NORMAL or OFF", path);
        return NULL;
    }
    sqlite_store *s = calloc(1, sizeof *s);
    if (!s) {
        ts_error_set(err, "open %s: out of memory", path);
        return NULL;
    }
    s->base.vtable = &sqlite_vtable;
    snprintf(s->open_op, sizeof s->open_op, "open %s", path);
    ts_arena_init(&s->mirror_arena);
    ts_arena_init(&s->scratch);
    ts_journal_init(&s->mirror);
    ts_buf_init(&s->text);
    s->mirror_stale = true; /* nothing read yet */
    bool ok = open_database(s, path, options, err) && run(s, ST_BEGIN_READ, s->open_op, "BEGIN", err);
    if (ok) {
        ok = refresh_mirror(s, s->open_op, err);
        if (ok) ok = write_end_unchanged(s, s->open_op, err);
        else abort_transaction(s, s->open_op, err);
    }
    if (!ok) {
        sqlite_close(&s->base);
        return NULL;
    }
    return &s->base;
}
