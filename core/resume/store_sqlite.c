/* store_sqlite.c — the SQLite store; see store_sqlite.h (and store_sqlite_internal.h for how
 * its files divide the work). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/json/codec.h"
#include "core/resume/store_sqlite_internal.h"

static sqlite_store *self_of(ts_store *store) { return (sqlite_store *)store; }

bool ts_sqlite_failed(sqlite_store *s, ts_error *err, const char *op, const char *what, int rc) {
    ts_error_set(err, TS_ERR_IO, "%s: %s: %s (SQLite error %d)", op, what, s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc),
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
        ts_error_set(err, TS_ERR_IO, "%s: %s: the statement returned a row", op, what);
        return false;
    }
    ts_sqlite_failed(s, err, op, what, rc); /* before the reset, which may replace the message */
    sqlite3_reset(st);
    return false;
}

static int bind_text(sqlite3_stmt *st, int index, const char *text, size_t len) {
    return sqlite3_bind_text64(st, index, text ? text : "", text ? len : 0, SQLITE_STATIC, SQLITE_UTF8);
}

static int bind_cstr(sqlite3_stmt *st, int index, const char *text) { return bind_text(st, index, text, strlen(text)); }


/* Checks a count before it is stored: at most TS_JOURNAL_MAX_COUNT (journal.h). */
static bool fits_count(uint64_t value, const char *op, const char *what, ts_error *err) {
    if (value <= TS_JOURNAL_MAX_COUNT) return true;
    ts_error_set(err, TS_ERR_INPUT, "%s: %s %" PRIu64 " is larger than the store can hold (%llu)", op, what, value,
                 (unsigned long long)TS_JOURNAL_MAX_COUNT);
    return false;
}

/* Leaves the JSON text of value in out, after checking that the codec reads it back: a value
 * the store could not load again (a non-finite number, invalid UTF-8, a duplicate key...) is
 * refused here rather than stored. */
static bool json_text(sqlite_store *s, ts_buf *out, const ts_json *value, const char *op, const char *what,
                      ts_error *err) {
    (void)s;
    const char *why = ts_sqlite_unloadable(value);
    if (why) {
        ts_error_set(err, TS_ERR_INPUT, "%s: %s: the value's JSON would not load again (%s); nothing was stored", op, what, why);
        return false;
    }
    ts_buf_reset(out);
    if (!ts_codec_write(out, value, TS_WRITE_COMPACT) || !out->data) {
        ts_error_set(err, TS_ERR_NOMEM, "%s: %s: the value cannot be written as JSON (a number that is not finite, or out of memory)",
                     op, what);
        return false;
    }
    return true;
}

/* ------------------------------------------------------------------- the mirror ----------- */

static bool data_version(sqlite_store *s, int64_t *out, const char *op, ts_error *err) {
    sqlite3_stmt *st = s->statements[ST_DATA_VERSION];
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        ts_sqlite_failed(s, err, op, "PRAGMA data_version", rc);
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
    if (!ts_sqlite_read_journal(s, &arena, &journal, err)) {
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
    ts_error_set(err, TS_ERR_REFUSED, "%s: refused: an earlier %s", op, s->unusable);
    return true;
}

/* BEGIN IMMEDIATE (the write lock, so the mirror cannot go stale under us) and a fresh mirror. */
static bool write_begin(sqlite_store *s, const char *op, ts_error *err) {
    if (refuse_if_unusable(s, op, err)) return false;
    if (s->read_only) {
        ts_error_set(err, TS_ERR_REFUSED, "%s: refused: the store is open read-only", op);
        return false;
    }
    if (!run(s, ST_BEGIN_WRITE, op, "BEGIN IMMEDIATE", err) || !refresh_mirror(s, op, err))
        return abort_transaction(s, op, err);
    return true;
}

static bool write_commit(sqlite_store *s, const char *op, ts_error *err) {
    return run(s, ST_COMMIT, op, "COMMIT", err) || abort_transaction(s, op, err);
}

/* Ends a transaction that wrote nothing (a no-op, a refusal decided on the mirror, a read). */
static bool write_end_unchanged(sqlite_store *s, const char *op, ts_error *err) {
    ts_error rollback_err;
    ts_error_clear(&rollback_err);
    if (run(s, ST_ROLLBACK, op, "ROLLBACK", &rollback_err)) return true;
    make_unusable(s, &rollback_err);
    ts_error_set(err, TS_ERR_REFUSED, "%s", s->unusable);
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

/* One log row being written: its columns' values (absent: SQL NULL). */
typedef struct log_row {
    ts_str text[COL_COUNT + 1];
    bool has_int[COL_COUNT + 1];
    int64_t integer[COL_COUNT + 1];
} log_row;

static void row_text(log_row *row, log_column column, ts_str value) { row->text[column] = value; }
static void row_cstr(log_row *row, log_column column, const char *value) {
    row->text[column] = value && value[0] ? ts_str_from(value) : (ts_str){NULL, 0};
}
static void row_int(log_row *row, log_column column, uint64_t value) {
    row->has_int[column] = true;
    row->integer[column] = (int64_t)value;
}

/* The checkpoint's columns on the row that closes its commit; its state's text in s->text3. */
static bool row_checkpoint(sqlite_store *s, log_row *row, const ts_checkpoint *cp, ts_error *err) {
    if (!fits_count(cp->sequence, "commit", "checkpoint sequence", err) ||
        !fits_count(cp->signals_consumed, "commit", "checkpoint signals_consumed", err) ||
        !json_text(s, &s->text3, &cp->state, "commit", "the checkpoint state", err))
        return false;
    row_int(row, COL_CP_SEQUENCE, cp->sequence);
    row_text(row, COL_CP_LEAF, ts_str_from(cp->leaf_id)); /* "" for none: the column is never NULL here */
    row_int(row, COL_CP_CONSUMED, cp->signals_consumed);
    row_text(row, COL_CP_STATE, (ts_str){s->text3.data, s->text3.len});
    return true;
}

/* Appends the row (one INSERT, bound from row, which must stay valid until then). */
static bool append_row(sqlite_store *s, const log_row *row, const char *op, ts_error *err) {
    sqlite3_stmt *st = s->statements[ST_APPEND];
    int rc = SQLITE_OK;
    for (int c = COL_KIND; c <= COL_COUNT && rc == SQLITE_OK; c++) {
        if (row->has_int[c]) rc = sqlite3_bind_int64(st, c, row->integer[c]);
        else if (row->text[c].ptr) rc = bind_text(st, c, row->text[c].ptr, row->text[c].len);
        else rc = sqlite3_bind_null(st, c);
    }
    if (rc != SQLITE_OK) return ts_sqlite_failed(s, err, op, "binding a log row", rc);
    return run(s, ST_APPEND, op, "appending to the log", err);
}

/* The entry of the batch whose content is, byte for byte, the text in s->text (an LLM answer
 * and its assistant entry), or NULL: such a result is kept as that entry's id. */
static const ts_entry *result_holder(sqlite_store *s, const ts_json *result, const ts_entry *entries, size_t count) {
    for (size_t i = 0; i < count; i++) {
        if (result->kind != TS_JSON_OBJECT || !ts_json_equal(result, &entries[i].content)) continue;
        ts_buf_reset(&s->text2);
        if (ts_codec_write(&s->text2, &entries[i].content, TS_WRITE_COMPACT) && s->text2.len == s->text.len &&
            memcmp(s->text2.data, s->text.data, s->text.len) == 0)
            return &entries[i];
    }
    return NULL;
}

/* A task row (recorded: a pending task's completion, a "result" row). `entries` are the entries
 * written in the same transaction, which a result may be kept as. cp: the commit's checkpoint
 * when this row closes it; events: the events applied after it (0: none). */
static bool append_task(sqlite_store *s, const ts_task *t, bool recorded, const ts_entry *entries, size_t entry_count,
                        const ts_checkpoint *cp, uint64_t events, const char *op, ts_error *err) {
    if (!json_text(s, &s->text, &t->result, op, "a task's result", err)) return false;
    const ts_entry *holder = result_holder(s, &t->result, entries, entry_count);
    log_row row;
    memset(&row, 0, sizeof row);
    row_cstr(&row, COL_KIND, recorded ? "result" : "task");
    row_cstr(&row, COL_ID, t->id);
    row_cstr(&row, COL_STATUS, ts_task_status_name(t->status));
    if (holder) row_cstr(&row, COL_HOLDER, holder->id);
    else row_text(&row, COL_RESULT, (ts_str){s->text.data, s->text.len});
    if (!recorded) {
        row_cstr(&row, COL_KEY, t->key);
        row_text(&row, COL_NAME, t->kind);
        if (t->input_leaf[0]) row_cstr(&row, COL_PARENT, t->input_leaf);
        else row_text(&row, COL_BODY, t->input);
    }
    if (events) row_int(&row, COL_EVENTS, events);
    return (!cp || row_checkpoint(s, &row, cp, err)) && append_row(s, &row, op, err);
}

static bool append_entry(sqlite_store *s, const ts_entry *e, const ts_checkpoint *cp, ts_error *err) {
    if (!json_text(s, &s->text, &e->content, "commit", "an entry's content", err)) return false;
    log_row row;
    memset(&row, 0, sizeof row);
    row_cstr(&row, COL_KIND, "entry");
    row_cstr(&row, COL_ID, e->id);
    row_cstr(&row, COL_PARENT, e->parent_id);
    row_cstr(&row, COL_NAME, ts_entry_role_name(e->role));
    row_text(&row, COL_BODY, (ts_str){s->text.data, s->text.len});
    row_text(&row, COL_TIMESTAMP, e->timestamp);
    return (!cp || row_checkpoint(s, &row, cp, err)) && append_row(s, &row, "commit", err);
}

/* The rows of a decided commit: entries, then tasks (which may name those entries), the
 * checkpoint on the last row — or on a row of its own when the commit adds nothing else. */
static bool append_commit(sqlite_store *s, const ts_commit *commit, const bool *new_entries, const bool *new_tasks,
                          ts_error *err) {
    size_t last_entry = SIZE_MAX, last_task = SIZE_MAX, holder_count = 0;
    for (size_t i = 0; i < commit->entry_count; i++)
        if (new_entries[i]) last_entry = i, holder_count++;
    for (size_t i = 0; i < commit->task_count; i++)
        if (new_tasks[i]) last_task = i;
    /* Only entries new in this commit may hold a result (they are written first); a batch that
     * repeats recorded entries keeps its results inline. */
    if (holder_count != commit->entry_count) holder_count = 0;
    const ts_checkpoint *cp = commit->checkpoint;
    for (size_t i = 0; i < commit->entry_count; i++)
        if (new_entries[i] &&
            !append_entry(s, &commit->entries[i], i == last_entry && last_task == SIZE_MAX ? cp : NULL, err))
            return false;
    for (size_t i = 0; i < commit->task_count; i++) {
        if (!new_tasks[i]) continue;
        bool recorded = ts_journal_find_task(&s->mirror, commit->tasks[i].id) != NULL;
        if (!append_task(s, &commit->tasks[i], recorded, commit->entries, holder_count, i == last_task ? cp : NULL, 0,
                         "commit", err))
            return false;
    }
    if (!cp || last_entry != SIZE_MAX || last_task != SIZE_MAX) return true;
    log_row row;
    memset(&row, 0, sizeof row);
    row_cstr(&row, COL_KIND, "checkpoint");
    return row_checkpoint(s, &row, cp, err) && append_row(s, &row, "commit", err);
}

static bool sqlite_commit(ts_store *store, const ts_commit *commit, ts_error *err) {
    sqlite_store *s = self_of(store);
    bool *fresh = calloc(commit->entry_count + commit->task_count + 1, sizeof *fresh);
    if (!fresh) {
        ts_error_set(err, TS_ERR_NOMEM, "commit: out of memory");
        return false;
    }
    bool *new_entries = fresh, *new_tasks = fresh + commit->entry_count;
    bool ok = write_begin(s, "commit", err);
    if (ok) {
        if (!ts_commit_check(&s->mirror, commit, new_entries, new_tasks, err))
            ok = write_refused(s, "commit", err); /* the same refusal, word for word, as the memory store's */
        else if (!append_commit(s, commit, new_entries, new_tasks, err))
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
    if (rc != SQLITE_OK) ts_sqlite_failed(s, err, op, what, rc);
    if (rc != SQLITE_OK || !run(s, ST_SET_EXECUTION, op, what, err)) return abort_transaction(s, op, err);
    if (!write_commit(s, op, err)) return false;
    memcpy(s->mirror.execution_id, execution_id, TS_UUID_TEXT);
    return true;
}

static bool sqlite_deliver_signal(ts_store *store, const ts_json *signal, uint64_t events_applied, ts_error *err) {
    sqlite_store *s = self_of(store);
    const char *op = "deliver_signal";
    if (!write_begin(s, op, err)) return false;
    if (!ts_journal_check_event(&s->mirror, events_applied, err) ||
        !json_text(s, &s->text, signal, op, "the signal", err))
        return write_refused(s, op, err);
    log_row row;
    memset(&row, 0, sizeof row);
    row_cstr(&row, COL_KIND, "signal");
    row_text(&row, COL_BODY, (ts_str){s->text.data, s->text.len});
    row_int(&row, COL_EVENTS, events_applied);
    if (!append_row(s, &row, op, err)) return abort_transaction(s, op, err);
    if (!write_commit(s, op, err)) return false;
    if (!ts_journal_add_signal(&s->mirror, &s->mirror_arena, signal)) s->mirror_stale = true;
    s->mirror.events_applied = events_applied;
    return true;
}

static bool sqlite_complete_task(ts_store *store, const ts_task *task, uint64_t events_applied, ts_error *err) {
    sqlite_store *s = self_of(store);
    const char *op = "complete_task";
    if (!write_begin(s, op, err)) return false;
    if (!ts_journal_check_event(&s->mirror, events_applied, err) || !ts_journal_check_completion(&s->mirror, task, err))
        return write_refused(s, op, err);
    ts_task *existing = ts_journal_find_task(&s->mirror, task->id);
    if (!append_task(s, task, true, NULL, 0, NULL, events_applied, op, err)) return abort_transaction(s, op, err);
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
    if (!ts_journal_check_event(&s->mirror, events_applied, err)) return write_refused(s, op, err);
    log_row row;
    memset(&row, 0, sizeof row);
    row_cstr(&row, COL_KIND, "event");
    row_int(&row, COL_EVENTS, events_applied);
    if (!append_row(s, &row, op, err)) return abort_transaction(s, op, err);
    if (!write_commit(s, op, err)) return false;
    s->mirror.events_applied = events_applied;
    return true;
}

/* ------------------------------------------------------------------------ load ----------- */

/* The mirror, brought up to date inside a read transaction, copied into the caller's arena. */
static bool sqlite_load(ts_store *store, ts_arena *arena, ts_journal *out, ts_error *err) {
    sqlite_store *s = self_of(store);
    ts_journal_init(out);
    if (refuse_if_unusable(s, "load", err)) return false;
    if (!run(s, ST_BEGIN_READ, "load", "BEGIN", err)) return abort_transaction(s, "load", err);
    if (!refresh_mirror(s, "load", err)) return abort_transaction(s, "load", err);
    if (!write_end_unchanged(s, "load", err)) return false;
    if (!ts_journal_copy(&s->mirror, arena, out)) {
        ts_error_set(err, TS_ERR_NOMEM, "load: out of memory while copying the journal");
        return false;
    }
    return true;
}

/* ------------------------------------------------------------------- open and close ------- */

static void sqlite_close(ts_store *store) {
    sqlite_store *s = self_of(store);
    if (!s) return;
    ts_sqlite_close_database(s);
    if (s->fd >= 0) close(s->fd); /* also releases an owner's lock */
    ts_journal_free(&s->mirror);
    ts_arena_free(&s->mirror_arena);
    ts_arena_free(&s->scratch);
    ts_buf_free(&s->text);
    ts_buf_free(&s->text2);
    ts_buf_free(&s->text3);
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

/* Reads the journal into the mirror, in a read transaction. */
static bool first_read(sqlite_store *s, ts_error *err) {
    if (!run(s, ST_BEGIN_READ, s->open_op, "BEGIN", err)) return false;
    if (!refresh_mirror(s, s->open_op, err)) return abort_transaction(s, s->open_op, err);
    return write_end_unchanged(s, s->open_op, err);
}

/* Connects for reading and reads the mirror; when a writer came while the file was read as
 * immutable, reads it again, with the writer. */
static bool open_reader(sqlite_store *s, const char *path, const ts_sqlite_options *o, struct stat *st, ts_error *err) {
    bool immutable = true;
    s->mirror_stale = true;
    bool ok = ts_sqlite_open_read_only(s, path, o, st, &immutable, err) && ts_sqlite_same_file(s, path, st, err) &&
              first_read(s, err);
    if (ok && immutable && !ts_sqlite_unchanged_since(path, st)) { /* a writer came meanwhile: read again, with it */
        ts_sqlite_close_database(s);
        s->mirror_stale = true;
        immutable = false;
        ok = ts_sqlite_open_read_only(s, path, o, st, &immutable, err) && first_read(s, err);
    }
    return ok;
}

ts_store *ts_sqlite_store_open(const char *path, const ts_sqlite_options *options, ts_error *err) {
    static const ts_sqlite_options defaults = {TS_SQLITE_SYNC_FULL, NULL, 0, false, TS_SQLITE_SHARED, NULL, NULL, 0, 0};
    const ts_sqlite_options *o = options ? options : &defaults;
    if (o->synchronous != TS_SQLITE_SYNC_FULL && o->synchronous != TS_SQLITE_SYNC_NORMAL &&
        o->synchronous != TS_SQLITE_SYNC_OFF) {
        ts_error_set(err, TS_ERR_INPUT, "open %s: synchronous must be FULL, NORMAL or OFF", path);
        return NULL;
    }
    if ((unsigned)o->owner > TS_SQLITE_OWNER_FAIL) {
        ts_error_set(err, TS_ERR_INPUT, "open %s: owner must be SHARED, OWNER_WAIT or OWNER_FAIL", path);
        return NULL;
    }
    sqlite_store *s = calloc(1, sizeof *s);
    if (!s) {
        ts_error_set(err, TS_ERR_NOMEM, "open %s: out of memory", path);
        return NULL;
    }
    s->base.vtable = &sqlite_vtable;
    s->fd = -1;
    s->read_only = o->read_only;
    snprintf(s->open_op, sizeof s->open_op, "open %.180s", path);
    ts_arena_init(&s->mirror_arena);
    ts_arena_init(&s->scratch);
    ts_journal_init(&s->mirror);
    ts_buf_init(&s->text);
    ts_buf_init(&s->text2);
    ts_buf_init(&s->text3);
    s->mirror_stale = true; /* nothing read yet */
    struct stat st;
    bool ok = ts_sqlite_open_file(s, path, o, &st, err);
    if (ok && s->read_only) {
        ok = open_reader(s, path, o, &st, err);
        /* An empty journal that a run owns is being created: look again, within the bound. */
        for (long tries = (long)(o->creation_wait_seconds / 0.02); !ok && s->empty_file && tries > 0; tries--) {
            if (ts_sqlite_lock_owner(&st) <= 0) break;
            ts_sqlite_pause(0.02);
            ts_sqlite_close_database(s);
            close(s->fd);
            s->fd = -1;
            s->empty_file = false;
            ts_error_clear(err);
            ok = ts_sqlite_open_file(s, path, o, &st, err) && open_reader(s, path, o, &st, err);
        }
        int owner = !ok && s->empty_file ? ts_sqlite_lock_owner(&st) : 0;
        if (owner > 0) {
            char message[sizeof err->message];
            snprintf(message, sizeof message, "%s", err->message);
            ts_error_set(err, TS_ERR_REFUSED, "%s (a run, pid %d, owns it: it is being created; read it again later)", message, owner);
        }
    } else if (ok) {
        ok = ts_sqlite_open_read_write(s, path, o, err) && ts_sqlite_same_file(s, path, &st, err) && first_read(s, err);
    }
    if (!ok) {
        sqlite_close(&s->base);
        return NULL;
    }
    return &s->base;
}
