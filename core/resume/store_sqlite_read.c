/* store_sqlite_read.c — reading a journal back from its rows, each row checked, and what the
 * reader accepts (ts_sqlite_unloadable); see store_sqlite_internal.h. Values are parsed
 * straight into the caller's arena and adopted by the journal (no second copy). */
#include <stdio.h>
#include <string.h>

#include "core/json/codec.h"
#include "core/json/strmap.h"
#include "core/resume/commit.h"
#include "core/resume/store_sqlite_internal.h"

/* ------------------------------------------------------------------------ columns ------- */

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
            ts_error_set(err, TS_ERR_NOMEM, "load: out of memory");
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
        ts_error_set(err, TS_ERR_INPUT, "load: %s is not a UUID (%zu bytes)", what, text.len);
        return false;
    }
    if (text.len) memcpy(out, text.ptr, text.len);
    out[text.len] = '\0';
    return true;
}

/* Parses JSON text into arena: strict, so invalid UTF-8 and anything that is not JSON is
 * refused here with the row's name. */
static bool parse_json(ts_str text, ts_arena *arena, bool object_only, ts_json *out, const char *what, ts_error *err) {
    ts_error parse_err;
    ts_error_clear(&parse_err);
    if (!text.ptr || !ts_codec_parse_any(arena, text.ptr, text.len, out, &parse_err)) {
        ts_error_set(err, TS_ERR_INPUT, "load: %s is not JSON: %s", what, text.ptr ? parse_err.message : "NULL");
        return false;
    }
    if (object_only && out->kind != TS_JSON_OBJECT) {
        ts_error_set(err, TS_ERR_INPUT, "load: %s is not a JSON object", what);
        return false;
    }
    return true;
}

static bool column_json(sqlite_store *s, sqlite3_stmt *st, int column, ts_arena *arena, bool object_only,
                        ts_json *out, const char *what, ts_error *err) {
    ts_str text;
    return column_text(s, st, column, NULL, &text, what, err) && parse_json(text, arena, object_only, out, what, err);
}

static bool column_count(sqlite3_stmt *st, int column, uint64_t *out, const char *what, ts_error *err) {
    if (sqlite3_column_type(st, column) != SQLITE_INTEGER || sqlite3_column_int64(st, column) < 0) {
        ts_error_set(err, TS_ERR_INPUT, "load: %s is not a non-negative integer", what);
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
    snprintf(why, sizeof why, "%.*s", (int)sizeof why - 1, err->message);
    ts_error_set(err, TS_ERR_INPUT, "load: %s: %s", row, why);
    return false;
}

static bool oom(ts_error *err) {
    ts_error_set(err, TS_ERR_NOMEM, "load: out of memory");
    return false;
}

static bool check_execution_id(const ts_journal *out, ts_error *err) {
    if (!out->execution_id[0] || ts_uuid_text_valid(out->execution_id)) return true;
    ts_error_set(err, TS_ERR_INPUT, "load: meta.execution_id \"%s\" is not a canonical UUID", out->execution_id);
    return false;
}

/* --------------------------------------------------------------------- rows of either ---- */

/* An entry: columns id, parent, role, content, timestamp at at[0..4]. */
static bool read_entry(sqlite_store *s, sqlite3_stmt *st, const int at[5], ts_arena *arena, ts_journal *out,
                       const char *what, ts_error *err) {
    if (!out->execution_id[0]) {
        ts_error_set(err, TS_ERR_INPUT, "load: %s: an entry, but no execution id (meta.execution_id is empty)", what);
        return false;
    }
    ts_entry entry;
    memset(&entry, 0, sizeof entry);
    ts_str role;
    if (!column_uuid(s, st, at[0], entry.id, what, err) || !column_uuid(s, st, at[1], entry.parent_id, what, err) ||
        !column_text(s, st, at[2], NULL, &role, what, err) ||
        !column_json(s, st, at[3], arena, true, &entry.content, what, err) ||
        !column_text(s, st, at[4], arena, &entry.timestamp, what, err))
        return false;
    if (!entry.id[0] || !role.ptr || !ts_entry_role_parse(role, &entry.role) || !entry.timestamp.ptr) {
        ts_error_set(err, TS_ERR_INPUT, "load: %s: needs an entry id, a role (user, assistant or tool) and a timestamp", what);
        return false;
    }
    if (!ts_entry_check(&entry, err)) return row_refused(err, what);
    return ts_journal_adopt_entry(out, arena, &entry) || oom(err); /* twice: ts_journal_check_loaded says */
}

/* A task's status and result (columns status, result, holder); the result is a value of its
 * own, or the content of the entry that holds it (an LLM answer, kept once). */
static bool read_outcome(sqlite_store *s, sqlite3_stmt *st, int status_at, int result_at, int holder_at,
                         ts_arena *arena, const ts_journal *out, ts_task *task, const char *what, ts_error *err) {
    ts_str status;
    char holder_id[TS_UUID_TEXT];
    if (!column_text(s, st, status_at, NULL, &status, what, err) || !column_uuid(s, st, holder_at, holder_id, what, err))
        return false;
    if (!status.ptr || !ts_task_status_parse(status, &task->status)) {
        ts_error_set(err, TS_ERR_INPUT, "load: %s: needs a status (pending, completed or failed)", what);
        return false;
    }
    bool inline_result = sqlite3_column_type(st, result_at) != SQLITE_NULL;
    if (inline_result == (holder_id[0] != '\0')) {
        ts_error_set(err, TS_ERR_INPUT, "load: %s: needs exactly one of a result and the entry that holds it", what);
        return false;
    }
    if (inline_result) return column_json(s, st, result_at, arena, false, &task->result, what, err);
    const ts_entry *holder = ts_journal_find_entry(out, holder_id);
    if (!holder) {
        ts_error_set(err, TS_ERR_INPUT, "load: %s: its result is the content of entry %s, which is not in the journal", what,
                     holder_id);
        return false;
    }
    task->result = holder->content;
    return true;
}

/* A new task: columns id, key, kind, input, input leaf at the given places. */
static bool read_task(sqlite_store *s, sqlite3_stmt *st, const int at[5], int status_at, int result_at, int holder_at,
                      ts_arena *arena, ts_journal *out, const char *what, ts_error *err) {
    if (!out->execution_id[0]) {
        ts_error_set(err, TS_ERR_INPUT, "load: %s: a task, but no execution id (meta.execution_id is empty)", what);
        return false;
    }
    ts_task task;
    memset(&task, 0, sizeof task);
    ts_str key;
    if (!column_uuid(s, st, at[0], task.id, what, err) || !column_text(s, st, at[1], NULL, &key, what, err) ||
        !column_text(s, st, at[2], arena, &task.kind, what, err) ||
        !column_text(s, st, at[3], arena, &task.input, what, err) ||
        !column_uuid(s, st, at[4], task.input_leaf, what, err))
        return false;
    if (!task.id[0] || !key.ptr || key.len >= sizeof task.key || memchr(key.ptr, '\0', key.len) || !task.kind.ptr) {
        ts_error_set(err, TS_ERR_INPUT, "load: %s: needs a task id, a key, a kind and a status", what);
        return false;
    }
    memcpy(task.key, key.ptr, key.len);
    task.key[key.len] = '\0';
    if (!read_outcome(s, st, status_at, result_at, holder_at, arena, out, &task, what, err)) return false;
    if (!ts_task_check(out->execution_id, &task, err)) return row_refused(err, what);
    return ts_journal_adopt_task(out, arena, &task) || oom(err); /* twice: ts_journal_check_loaded says */
}

/* ----------------------------------------------------------------- version 2: the log ---- */

/* What the reader keeps while walking the log. */
typedef struct log_state {
    uint64_t events;          /* the last events count seen (0: none yet) */
    bool has_checkpoint;
    int64_t checkpoint_row;   /* its row, for errors */
} log_state;

/* A pending task's completion ("result" row). */
static bool read_result(sqlite_store *s, sqlite3_stmt *st, ts_arena *arena, ts_journal *out, const char *what,
                        ts_error *err) {
    char id[TS_UUID_TEXT];
    if (!column_uuid(s, st, COL_ID, id, what, err)) return false;
    ts_task *task = ts_journal_find_task(out, id);
    if (!task || task->status != TS_TASK_PENDING) {
        ts_error_set(err, TS_ERR_INPUT, "load: %s: completes task %s, which is %s", what, id[0] ? id : "(none)",
                     task ? ts_task_status_name(task->status) : "not in the journal");
        return false;
    }
    ts_task done = *task;
    if (!read_outcome(s, st, COL_STATUS, COL_RESULT, COL_HOLDER, arena, out, &done, what, err)) return false;
    if (done.status == TS_TASK_PENDING || !ts_task_check(out->execution_id, &done, err)) {
        if (done.status == TS_TASK_PENDING) ts_error_set(err, TS_ERR_INPUT, "a completion must be completed or failed");
        return row_refused(err, what);
    }
    *task = done;
    return true;
}

/* The columns every row may carry: events, and the checkpoint of the commit it closes (its
 * state text is kept in s->text3 and parsed once, at the end: a superseded one is history). */
static bool read_row_tail(sqlite_store *s, sqlite3_stmt *st, log_state *state, ts_journal *out, int64_t row,
                          const char *what, ts_error *err) {
    if (sqlite3_column_type(st, COL_EVENTS) != SQLITE_NULL) {
        uint64_t events;
        if (!column_count(st, COL_EVENTS, &events, what, err)) return false;
        if (events <= state->events) {
            ts_error_set(err, TS_ERR_INPUT, "load: %s: events %llu after %llu: the events applied only grow", what,
                         (unsigned long long)events, (unsigned long long)state->events);
            return false;
        }
        state->events = out->events_applied = events;
    }
    if (sqlite3_column_type(st, COL_CP_SEQUENCE) == SQLITE_NULL) return true;
    ts_checkpoint cp;
    memset(&cp, 0, sizeof cp);
    ts_str text;
    if (!column_count(st, COL_CP_SEQUENCE, &cp.sequence, what, err) ||
        !column_uuid(s, st, COL_CP_LEAF, cp.leaf_id, what, err) ||
        !column_count(st, COL_CP_CONSUMED, &cp.signals_consumed, what, err) ||
        !column_text(s, st, COL_CP_STATE, NULL, &text, what, err))
        return false;
    uint64_t expected = state->has_checkpoint ? out->checkpoint.sequence + 1 : cp.sequence;
    if (cp.sequence != expected || cp.sequence < 1 || !text.ptr) {
        ts_error_set(err, TS_ERR_INPUT, "load: %s: checkpoint sequence %llu after %llu, or no state: a commit is missing", what,
                     (unsigned long long)cp.sequence, (unsigned long long)out->checkpoint.sequence);
        return false;
    }
    if (cp.leaf_id[0] && !ts_journal_find_entry(out, cp.leaf_id)) {
        ts_error_set(err, TS_ERR_INPUT, "load: %s: checkpoint leaf %s is not an entry", what, cp.leaf_id);
        return false;
    }
    ts_buf_reset(&s->text3);
    ts_buf_append(&s->text3, text.ptr, text.len);
    if (s->text3.failed) return oom(err);
    out->checkpoint = cp;
    out->has_checkpoint = true;
    state->has_checkpoint = true;
    state->checkpoint_row = row;
    return true;
}

/* "<prefix><row>" into what[size] without printf (a load names every row it reads, in case it
 * must refuse one). */
static void row_name(char *what, size_t size, const char *prefix, long long row) {
    char digits[24];
    size_t n = 0, at = 0;
    unsigned long long v = row < 0 ? 0ULL - (unsigned long long)row : (unsigned long long)row;
    do digits[n++] = (char)('0' + v % 10); while ((v /= 10) && n < sizeof digits);
    while (*prefix && at + 2 < size) what[at++] = *prefix++;
    if (row < 0 && at + 2 < size) what[at++] = '-';
    while (n && at + 1 < size) what[at++] = digits[--n];
    what[at] = '\0';
}

static bool read_log(sqlite_store *s, ts_arena *arena, ts_journal *out, ts_error *err) {
    static const int entry_columns[5] = {COL_ID, COL_PARENT, COL_NAME, COL_BODY, COL_TIMESTAMP};
    static const int task_columns[5] = {COL_ID, COL_KEY, COL_NAME, COL_BODY, COL_PARENT};
    sqlite3_stmt *st = s->statements[ST_READ_LOG];
    log_state state = {0, false, 0};
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t row = sqlite3_column_int64(st, 0);
        char what[48];
        row_name(what, sizeof what, "log row ", (long long)row);
        ts_str kind;
        if (!column_text(s, st, COL_KIND, NULL, &kind, what, err)) goto fail;
        bool ok;
        if (ts_str_eq_cstr(kind, "entry")) {
            ok = read_entry(s, st, entry_columns, arena, out, what, err);
        } else if (ts_str_eq_cstr(kind, "task")) {
            ok = read_task(s, st, task_columns, COL_STATUS, COL_RESULT, COL_HOLDER, arena, out, what, err);
        } else if (ts_str_eq_cstr(kind, "result")) {
            ok = read_result(s, st, arena, out, what, err);
        } else if (ts_str_eq_cstr(kind, "signal")) {
            ts_json signal;
            ok = column_json(s, st, COL_BODY, arena, false, &signal, what, err) &&
                 (ts_journal_adopt_signal(out, arena, &signal) || oom(err));
        } else if (ts_str_eq_cstr(kind, "event")) {
            ok = sqlite3_column_type(st, COL_EVENTS) != SQLITE_NULL;
            if (!ok) ts_error_set(err, TS_ERR_INPUT, "load: %s: an event row without events", what);
        } else if (ts_str_eq_cstr(kind, "checkpoint")) {
            ok = sqlite3_column_type(st, COL_CP_SEQUENCE) != SQLITE_NULL;
            if (!ok) ts_error_set(err, TS_ERR_INPUT, "load: %s: a checkpoint row without a checkpoint", what);
        } else {
            ok = false;
            ts_error_set(err, TS_ERR_INPUT, "load: %s: kind \"%.20s\" is not entry, task, result, signal, event or checkpoint", what,
                         kind.ptr ? kind.ptr : "NULL");
        }
        if (!ok || !read_row_tail(s, st, &state, out, row, what, err)) goto fail;
    }
    if (!rows_done(s, st, rc, "reading the log", err)) return false;
    if (!state.has_checkpoint) return true;
    char what[48];
    snprintf(what, sizeof what, "log row %lld: the checkpoint state", (long long)state.checkpoint_row);
    return parse_json((ts_str){s->text3.data ? s->text3.data : "", s->text3.len}, arena, true, &out->checkpoint.state,
                      what, err);
fail:
    sqlite3_reset(st);
    return false;
}

static bool read_meta(sqlite_store *s, sqlite3_stmt *st, ts_journal *out, bool with_events, ts_error *err) {
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        if (rc == SQLITE_DONE) ts_error_set(err, TS_ERR_INPUT, "load: the meta table has no row: not a turnstile journal");
        else ts_sqlite_failed(s, err, "load", "reading meta", rc);
        sqlite3_reset(st);
        return false;
    }
    bool ok = column_uuid(s, st, 0, out->execution_id, "meta.execution_id", err) &&
              (!with_events || column_count(st, 1, &out->events_applied, "meta.events_applied", err));
    sqlite3_reset(st);
    return ok && check_execution_id(out, err);
}

/* -------------------------------------------------------- version 1: a table per kind ---- */

static bool read_v1(sqlite_store *s, ts_arena *arena, ts_journal *out, ts_error *err) {
    static const int entry_columns[5] = {1, 2, 3, 4, 5}, task_columns[5] = {1, 2, 3, 4, 5};
    sqlite3_stmt **v1 = s->v1_statements;
    if (!read_meta(s, v1[ST_V1_META], out, true, err)) return false;
    char what[48];
    int rc;
    while ((rc = sqlite3_step(v1[ST_V1_ENTRIES])) == SQLITE_ROW) {
        snprintf(what, sizeof what, "entries row %lld", (long long)sqlite3_column_int64(v1[ST_V1_ENTRIES], 0));
        if (!read_entry(s, v1[ST_V1_ENTRIES], entry_columns, arena, out, what, err)) goto fail_entries;
    }
    if (!rows_done(s, v1[ST_V1_ENTRIES], rc, "reading entries", err)) return false;
    while ((rc = sqlite3_step(v1[ST_V1_TASKS])) == SQLITE_ROW) {
        snprintf(what, sizeof what, "tasks row %lld", (long long)sqlite3_column_int64(v1[ST_V1_TASKS], 0));
        if (!read_task(s, v1[ST_V1_TASKS], task_columns, 6, 7, 8, arena, out, what, err)) goto fail_tasks;
    }
    if (!rows_done(s, v1[ST_V1_TASKS], rc, "reading tasks", err)) return false;
    while ((rc = sqlite3_step(v1[ST_V1_SIGNALS])) == SQLITE_ROW) {
        snprintf(what, sizeof what, "signals row %lld", (long long)sqlite3_column_int64(v1[ST_V1_SIGNALS], 0));
        ts_json signal;
        if (!column_json(s, v1[ST_V1_SIGNALS], 1, arena, false, &signal, what, err)) goto fail_signals;
        if (!ts_journal_adopt_signal(out, arena, &signal)) {
            oom(err);
            goto fail_signals;
        }
    }
    if (!rows_done(s, v1[ST_V1_SIGNALS], rc, "reading signals", err)) return false;
    sqlite3_stmt *st = v1[ST_V1_CHECKPOINT];
    if ((rc = sqlite3_step(st)) != SQLITE_ROW) return rows_done(s, st, rc, "reading the checkpoint", err);
    ts_checkpoint *cp = &out->checkpoint;
    bool ok = column_count(st, 0, &cp->sequence, "checkpoint.sequence", err) &&
              column_uuid(s, st, 1, cp->leaf_id, "checkpoint.leaf_id", err) &&
              column_count(st, 2, &cp->signals_consumed, "checkpoint.signals_consumed", err) &&
              column_json(s, st, 3, arena, true, &cp->state, "checkpoint.state", err);
    sqlite3_reset(st);
    out->has_checkpoint = ok;
    return ok;
fail_entries:
    sqlite3_reset(v1[ST_V1_ENTRIES]);
    return false;
fail_tasks:
    sqlite3_reset(v1[ST_V1_TASKS]);
    return false;
fail_signals:
    sqlite3_reset(v1[ST_V1_SIGNALS]);
    return false;
}

bool ts_sqlite_read_journal(sqlite_store *s, ts_arena *arena, ts_journal *out, ts_error *err) {
    bool ok = s->schema_version == 1 ? read_v1(s, arena, out, err)
                                     : read_meta(s, s->statements[ST_READ_META], out, false, err) &&
                                           read_log(s, arena, out, err);
    if (!ok) return false;
    if (ts_journal_check_loaded(out, err)) return true;
    char why[260];
    snprintf(why, sizeof why, "%.*s", (int)sizeof why - 1, err->message);
    ts_error_set(err, TS_ERR_INPUT, "load: the journal is damaged: %s", why);
    return false;
}

/* ------------------------------------------------------------- what the reader takes ---- */

/* Valid UTF-8 (RFC 3629: shortest forms, no surrogates, at most U+10FFFF). */
static bool utf8_valid(const unsigned char *p, size_t n) {
    size_t i = 0;
    while (i < n) {
        if (p[i] < 0x80) {
            i++;
            continue;
        }
        unsigned char c = p[i];
        size_t len = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
        if (len == 0 || i + len > n) return false;
        uint32_t cp = c & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07);
        for (size_t k = 1; k < len; k++) {
            if ((p[i + k] & 0xC0) != 0x80) return false;
            cp = (cp << 6) | (p[i + k] & 0x3F);
        }
        if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        i += len;
    }
    return true;
}

enum { MAX_DEPTH = 2047 }; /* jansson refuses a value nested 2048 deep */

static const char *unloadable_at(const ts_json *v, int depth) {
    switch (v->kind) {
    case TS_JSON_STRING:
        return utf8_valid((const unsigned char *)v->u.s.ptr, v->u.s.len) ? NULL : "a string is not valid UTF-8";
    case TS_JSON_ARRAY:
        if (depth > MAX_DEPTH) return "nesting 2048 deep or deeper";
        for (size_t i = 0; i < v->u.a.count; i++) {
            const char *why = unloadable_at(&v->u.a.items[i], depth + 1);
            if (why) return why;
        }
        return NULL;
    case TS_JSON_OBJECT: {
        if (depth > MAX_DEPTH) return "nesting 2048 deep or deeper";
        size_t n = v->u.o.count;
        ts_strmap seen;
        ts_strmap_init(&seen);
        const char *why = NULL;
        for (size_t i = 0; i < n && !why; i++) {
            ts_str key = v->u.o.members[i].key;
            size_t ignored;
            if (!utf8_valid((const unsigned char *)key.ptr, key.len) || memchr(key.ptr, '\0', key.len))
                why = "a key is not valid UTF-8 or holds U+0000";
            else if (n <= 8) /* small objects: compare with the members before */
                for (size_t k = 0; k < i && !why; k++) why = ts_str_eq(v->u.o.members[k].key, key) ? "a duplicate key" : NULL;
            else if (ts_strmap_get(&seen, 0, key, &ignored))
                why = "a duplicate key";
            else if (!ts_strmap_put(&seen, 0, key, i))
                why = "out of memory";
            if (!why) why = unloadable_at(&v->u.o.members[i].value, depth + 1);
        }
        ts_strmap_free(&seen);
        return why;
    }
    default: return NULL;
    }
}

const char *ts_sqlite_unloadable(const ts_json *value) { return unloadable_at(value, 1); }
