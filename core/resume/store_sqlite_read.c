/* store_sqlite_read.c — reading a journal back from its rows, each row checked; see
 * store_sqlite_internal.h. Values are parsed straight into the caller's arena and adopted by
 * the journal (no second copy). */
#include <stdio.h>
#include <string.h>

#include "core/json/codec.h"
#include "core/resume/commit.h"
#include "core/resume/store_sqlite_internal.h"

/* A column as a byte string copied into arena (NULL, with no error, for SQL NULL). */
static bool column_text(sqlite_store *s, sqlite3_stmt *st, int column, ts_arena *arena, ts_str *out,
                        const char *what, ts_error *err) {
    const unsigned char *text = sqlite3_column_text(st, column);
    int len = sqlite3_column_bytes(st, column);
    if (!text && sqlite3_column_type(st, column) != SQLITE_NULL)
        return ts_sqlite_failed(s, err, "load", what, sqlite3_errcode(s->db));
    *out = (ts_str){(const char *)text, text ? (size_t)len : 0};
    if (text && arena) {
        *out = ts_str_dup(arena, *out);
        if (!out->ptr) {
            ts_error_set(err, "load: out of memory");
            return false;
        }
    }
    return true;
}

/* Copies a UUID column ('' or 36 bytes; NULL counts as '') into out; ts_entry_check and
 * ts_task_check then require canonical text. */
static bool column_uuid(sqlite_store *s, sqlite3_stmt *st, int column, char out[TS_UUID_TEXT], const char *what,
                        ts_error *err) {
    ts_str text;
    if (!column_text(s, st, column, NULL, &text, what, err)) return false;
    if (text.len != 0 && (text.len != TS_UUID_TEXT - 1 || memchr(text.ptr, '\0', text.len))) {
        ts_error_set(err, "load: %s is not a UUID (%zu bytes)", what, text.len);
        return false;
    }
    if (text.len) memcpy(out, text.ptr, text.len);
    out[text.len] = '\0';
    return true;
}

/* Parses a JSON column into arena: strict, so invalid UTF-8 and anything that is not JSON is
 * refused here with the row's name. */
static bool column_json(sqlite_store *s, sqlite3_stmt *st, int column, ts_arena *arena, bool object_only,
                        ts_json *out, const char *what, ts_error *err) {
    ts_str text;
    if (!column_text(s, st, column, NULL, &text, what, err)) return false;
    ts_error parse_err;
    ts_error_clear(&parse_err);
    if (!text.ptr || !ts_codec_parse_any(arena, text.ptr, text.len, out, &parse_err)) {
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

/* Ends a row loop: rc must be SQLITE_DONE. Resets the statement either way. */
static bool rows_done(sqlite_store *s, sqlite3_stmt *st, int rc, const char *what, ts_error *err) {
    bool ok = rc == SQLITE_DONE || ts_sqlite_failed(s, err, "load", what, rc);
    sqlite3_reset(st);
    return ok;
}

/* "load: ROW: " before a rule's message. */
static bool row_refused(ts_error *err, const char *row) {
    char why[260];
    snprintf(why, sizeof why, "%s", err->message);
    ts_error_set(err, "load: %s: %s", row, why);
    return false;
}

static bool oom(ts_error *err) {
    ts_error_set(err, "load: out of memory");
    return false;
}

static bool read_meta(sqlite_store *s, ts_journal *out, ts_error *err) {
    sqlite3_stmt *st = s->statements[ST_READ_META];
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        if (rc == SQLITE_DONE) ts_error_set(err, "load: the meta table has no row: not a turnstile journal");
        else ts_sqlite_failed(s, err, "load", "reading meta", rc);
        sqlite3_reset(st);
        return false;
    }
    bool ok = column_uuid(s, st, 0, out->execution_id, "meta.execution_id", err) &&
              column_count(st, 1, &out->events_applied, "meta.events_applied", err);
    sqlite3_reset(st);
    if (ok && out->execution_id[0] && !ts_uuid_text_valid(out->execution_id)) {
        ts_error_set(err, "load: meta.execution_id \"%s\" is not a canonical UUID", out->execution_id);
        return false;
    }
    return ok;
}

static bool read_entries(sqlite_store *s, ts_arena *arena, ts_journal *out, ts_error *err) {
    sqlite3_stmt *st = s->statements[ST_READ_ENTRIES];
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        char what[64];
        snprintf(what, sizeof what, "entries row %lld", (long long)sqlite3_column_int64(st, 0));
        if (!out->execution_id[0]) {
            ts_error_set(err, "load: %s: an entry, but no execution id (meta.execution_id is empty)", what);
            goto fail;
        }
        ts_entry entry;
        memset(&entry, 0, sizeof entry);
        ts_str role;
        if (!column_uuid(s, st, 1, entry.id, what, err) || !column_uuid(s, st, 2, entry.parent_id, what, err) ||
            !column_text(s, st, 3, NULL, &role, what, err) ||
            !column_json(s, st, 4, arena, true, &entry.content, what, err) ||
            !column_text(s, st, 5, arena, &entry.timestamp, what, err))
            goto fail;
        if (!entry.id[0] || !role.ptr || !ts_entry_role_parse(role, &entry.role) || !entry.timestamp.ptr) {
            ts_error_set(err, "load: %s: needs an entry id, a role (user, assistant or tool) and a timestamp", what);
            goto fail;
        }
        if (!ts_entry_check(&entry, err)) {
            row_refused(err, what);
            goto fail;
        }
        if (!ts_journal_adopt_entry(out, arena, &entry)) {
            oom(err);
            goto fail;
        }
    }
    return rows_done(s, st, rc, "reading entries", err);
fail:
    sqlite3_reset(st);
    return false;
}

/* A task row: input text or input_leaf, result JSON or the entry whose content it is. */
static bool read_task_row(sqlite_store *s, sqlite3_stmt *st, ts_arena *arena, ts_journal *out, ts_task *task,
                          const char *what, ts_error *err) {
    memset(task, 0, sizeof *task);
    ts_str key, status;
    char result_entry[TS_UUID_TEXT];
    if (!column_uuid(s, st, 1, task->id, what, err) || !column_text(s, st, 2, NULL, &key, what, err) ||
        !column_text(s, st, 3, arena, &task->kind, what, err) || !column_text(s, st, 4, arena, &task->input, what, err) ||
        !column_uuid(s, st, 5, task->input_leaf, what, err) || !column_text(s, st, 6, NULL, &status, what, err) ||
        !column_uuid(s, st, 8, result_entry, what, err))
        return false;
    if (!task->id[0] || !key.ptr || key.len >= sizeof task->key || memchr(key.ptr, '\0', key.len) ||
        !task->kind.ptr || !status.ptr || !ts_task_status_parse(status, &task->status)) {
        ts_error_set(err, "load: %s: needs a task id, a key, a kind and a status", what);
        return false;
    }
    memcpy(task->key, key.ptr, key.len);
    task->key[key.len] = '\0';
    bool result_inline = sqlite3_column_type(st, 7) != SQLITE_NULL;
    if (result_inline == (result_entry[0] != '\0')) {
        ts_error_set(err, "load: %s: needs exactly one of a result and the entry that holds it", what);
        return false;
    }
    if (result_inline) return column_json(s, st, 7, arena, false, &task->result, what, err);
    const ts_entry *holder = ts_journal_find_entry(out, result_entry);
    if (!holder) {
        ts_error_set(err, "load: %s: its result is the content of entry %s, which is not in the journal", what,
                     result_entry);
        return false;
    }
    task->result = holder->content;
    return true;
}

static bool read_tasks(sqlite_store *s, ts_arena *arena, ts_journal *out, ts_error *err) {
    sqlite3_stmt *st = s->statements[ST_READ_TASKS];
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        char what[64];
        snprintf(what, sizeof what, "tasks row %lld", (long long)sqlite3_column_int64(st, 0));
        if (!out->execution_id[0]) {
            ts_error_set(err, "load: %s: a task, but no execution id (meta.execution_id is empty)", what);
            goto fail;
        }
        ts_task task;
        if (!read_task_row(s, st, arena, out, &task, what, err)) goto fail;
        if (!ts_task_check(out->execution_id, &task, err)) {
            row_refused(err, what);
            goto fail;
        }
        if (!ts_journal_adopt_task(out, arena, &task)) {
            oom(err);
            goto fail;
        }
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
        if (!column_json(s, st, 1, arena, false, &signal, what, err)) goto fail;
        if (!ts_journal_adopt_signal(out, arena, &signal)) {
            oom(err);
            goto fail;
        }
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
    bool ok = column_count(st, 0, &cp->sequence, "checkpoint.sequence", err) &&
              column_uuid(s, st, 1, cp->leaf_id, "checkpoint.leaf_id", err) &&
              column_count(st, 2, &cp->signals_consumed, "checkpoint.signals_consumed", err) &&
              column_json(s, st, 3, arena, true, &cp->state, "checkpoint.state", err);
    sqlite3_reset(st);
    out->has_checkpoint = ok;
    return ok;
}

bool ts_sqlite_read_journal(sqlite_store *s, ts_arena *arena, ts_journal *out, ts_error *err) {
    if (!read_meta(s, out, err) || !read_entries(s, arena, out, err) || !read_tasks(s, arena, out, err) ||
        !read_signals(s, arena, out, err) || !read_checkpoint(s, arena, out, err))
        return false;
    if (ts_journal_check_loaded(out, err)) return true;
    char why[260];
    snprintf(why, sizeof why, "%s", err->message);
    ts_error_set(err, "load: the journal is damaged: %s", why);
    return false;
}
