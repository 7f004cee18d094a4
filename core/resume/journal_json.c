/* journal_json.c — the JSON form of a journal and of its items (journal.h): to and from
 * ts_json, streamed item by item, and with entry ids numbered for comparing runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json/buf.h"
#include "core/json/codec.h"
#include "core/resume/journal.h"

/* ---------------------------------------------------------------------- JSON forms ------- */

/* A copy in arena (the source may be a char array inside a journal on someone's stack). */
static ts_json str_or_null(ts_arena *arena, const char *s) {
    return s[0] ? ts_json_make_string(ts_str_dup(arena, ts_str_from(s))) : ts_json_make_null();
}

bool ts_entry_to_json(const ts_entry *entry, ts_arena *arena, ts_json *out) {
    ts_json_builder b;
    ts_json_builder_init(&b, arena);
    ts_json_builder_add(&b, "entryId", ts_json_make_string(ts_str_dup(arena, ts_str_from(entry->id))));
    ts_json_builder_add(&b, "parentId",
                        entry->parent_id[0] ? ts_json_make_string(ts_str_dup(arena, ts_str_from(entry->parent_id)))
                                            : ts_json_make_null());
    ts_json_builder_add(&b, "role", ts_json_make_string(ts_str_from(ts_entry_role_name(entry->role))));
    ts_json_builder_add(&b, "content", entry->content);
    ts_json_builder_add(&b, "timestamp", ts_json_make_string(entry->timestamp));
    return ts_json_builder_finish(&b, out);
}

bool ts_task_to_json(const ts_journal *journal, const ts_task *task, ts_arena *arena, ts_json *out, ts_error *err) {
    ts_str input;
    if (!ts_task_input_text(journal, task, arena, &input, err)) return false;
    ts_json_builder b;
    ts_json_builder_init(&b, arena);
    ts_json_builder_add(&b, "taskId", ts_json_make_string(ts_str_dup(arena, ts_str_from(task->id))));
    ts_json_builder_add(&b, "key", ts_json_make_string(ts_str_dup(arena, ts_str_from(task->key))));
    ts_json_builder_add(&b, "kind", ts_json_make_string(task->kind));
    ts_json_builder_add(&b, "input", ts_json_make_string(input));
    ts_json_builder_add(&b, "status", ts_json_make_string(ts_str_from(ts_task_status_name(task->status))));
    ts_json_builder_add(&b, "result", task->result);
    if (!ts_json_builder_finish(&b, out)) {
        ts_error_set(err, TS_ERR_NOMEM, "out of memory");
        return false;
    }
    return true;
}

bool ts_checkpoint_to_json(const ts_checkpoint *checkpoint, ts_arena *arena, ts_json *out) {
    ts_json_builder b;
    ts_json_builder_init(&b, arena);
    ts_json_builder_add(&b, "sequence", ts_json_make_int((int64_t)checkpoint->sequence));
    ts_json_builder_add(&b, "leafId",
                        checkpoint->leaf_id[0]
                            ? ts_json_make_string(ts_str_dup(arena, ts_str_from(checkpoint->leaf_id)))
                            : ts_json_make_null());
    ts_json_builder_add(&b, "signalsConsumed", ts_json_make_int((int64_t)checkpoint->signals_consumed));
    ts_json_builder_add(&b, "state", checkpoint->state);
    return ts_json_builder_finish(&b, out);
}

static bool fail_at(ts_error *err, ts_error_code code, const char *path, const char *field, const char *what) {
    snprintf(err->path, sizeof err->path, "%s%s%s", path, path[0] && field[0] ? "." : "", field);
    ts_error_set(err, code, "%s", what);
    return false;
}

/* Copies a UUID member (or null / absent when allow_none) into out. */
static bool uuid_member(const ts_json *object, const char *field, bool allow_none, char out[TS_UUID_TEXT],
                        const char *path, ts_error *err) {
    const ts_json *v = ts_json_get(object, field);
    out[0] = '\0';
    if (!v || v->kind == TS_JSON_NULL) return allow_none || fail_at(err, TS_ERR_INPUT, path, field, "a UUID is required");
    if (v->kind != TS_JSON_STRING || v->u.s.len != 36 || memchr(v->u.s.ptr, '\0', 36))
        return fail_at(err, TS_ERR_INPUT, path, field, "must be a canonical UUID string");
    memcpy(out, v->u.s.ptr, 36);
    out[36] = '\0';
    if (!ts_uuid_text_valid(out)) return fail_at(err, TS_ERR_INPUT, path, field, "must be a canonical UUID (8-4-4-4-12 lowercase hex)");
    return true;
}

static bool string_member(const ts_json *object, const char *field, ts_str *out, const char *path, ts_error *err) {
    const ts_json *v = ts_json_get(object, field);
    if (!v || v->kind != TS_JSON_STRING) return fail_at(err, TS_ERR_INPUT, path, field, "must be a string");
    *out = v->u.s;
    return true;
}

static bool count_member(const ts_json *object, const char *field, uint64_t *out, const char *path, ts_error *err) {
    const ts_json *v = ts_json_get(object, field);
    if (!v || v->kind != TS_JSON_INT || v->u.i < 0) return fail_at(err, TS_ERR_INPUT, path, field, "must be a non-negative integer");
    *out = (uint64_t)v->u.i;
    return true;
}

bool ts_entry_from_json(const ts_json *value, ts_arena *arena, ts_entry *out, const char *path, ts_error *err) {
    (void)arena;
    memset(out, 0, sizeof *out);
    if (value->kind != TS_JSON_OBJECT) return fail_at(err, TS_ERR_INPUT, path, "", "an entry must be an object");
    ts_str role;
    if (!uuid_member(value, "entryId", false, out->id, path, err) ||
        !uuid_member(value, "parentId", true, out->parent_id, path, err) ||
        !string_member(value, "role", &role, path, err) || !string_member(value, "timestamp", &out->timestamp, path, err))
        return false;
    if (!ts_entry_role_parse(role, &out->role)) return fail_at(err, TS_ERR_INPUT, path, "role", "must be user, assistant or tool");
    const ts_json *content = ts_json_get(value, "content");
    if (!content || content->kind != TS_JSON_OBJECT) return fail_at(err, TS_ERR_INPUT, path, "content", "must be an object");
    out->content = *content;
    return true;
}

bool ts_task_from_json(const ts_json *value, ts_arena *arena, ts_task *out, const char *path, ts_error *err) {
    (void)arena;
    memset(out, 0, sizeof *out);
    if (value->kind != TS_JSON_OBJECT) return fail_at(err, TS_ERR_INPUT, path, "", "a task must be an object");
    ts_str key, status;
    if (!uuid_member(value, "taskId", false, out->id, path, err) || !string_member(value, "key", &key, path, err) ||
        !string_member(value, "kind", &out->kind, path, err) || !string_member(value, "input", &out->input, path, err) ||
        !string_member(value, "status", &status, path, err))
        return false;
    if (key.len != 37 || strncmp(key.ptr, "task:", 5) != 0) return fail_at(err, TS_ERR_INPUT, path, "key", "must be task: and 32 hex digits");
    memcpy(out->key, key.ptr, key.len);
    out->key[key.len] = '\0';
    if (!ts_task_status_parse(status, &out->status))
        return fail_at(err, TS_ERR_INPUT, path, "status", "must be pending, completed or failed");
    const ts_json *result = ts_json_get(value, "result");
    out->result = result ? *result : ts_json_make_null();
    return true;
}

bool ts_checkpoint_from_json(const ts_json *value, ts_arena *arena, ts_checkpoint *out, const char *path,
                             ts_error *err) {
    (void)arena;
    memset(out, 0, sizeof *out);
    if (value->kind != TS_JSON_OBJECT) return fail_at(err, TS_ERR_INPUT, path, "", "a checkpoint must be an object");
    if (!count_member(value, "sequence", &out->sequence, path, err) ||
        !uuid_member(value, "leafId", true, out->leaf_id, path, err) ||
        !count_member(value, "signalsConsumed", &out->signals_consumed, path, err))
        return false;
    const ts_json *state = ts_json_get(value, "state");
    if (!state || state->kind != TS_JSON_OBJECT) return fail_at(err, TS_ERR_INPUT, path, "state", "must be an object");
    out->state = *state;
    return true;
}

bool ts_journal_to_json(const ts_journal *journal, ts_arena *arena, ts_json *out, ts_error *err) {
    const ts_entry **path = NULL;
    size_t path_count = 0;
    if (journal->has_checkpoint &&
        !ts_journal_path(journal, journal->checkpoint.leaf_id, arena, &path, &path_count, err))
        return false;
    size_t n = path_count + journal->entry_count + journal->task_count + 3;
    ts_json *items = ts_arena_alloc(arena, n * sizeof *items);
    if (!items) return fail_at(err, TS_ERR_NOMEM, "", "", "out of memory");
    ts_json *transcript = items, *entries = transcript + path_count, *tasks = entries + journal->entry_count;
    bool ok = true;
    for (size_t i = 0; i < path_count; i++) ok = ok && ts_entry_to_json(path[i], arena, &transcript[i]);
    for (size_t i = 0; i < journal->entry_count; i++) ok = ok && ts_entry_to_json(&journal->entries[i], arena, &entries[i]);
    for (size_t i = 0; i < journal->task_count; i++)
        if (ok && !ts_task_to_json(journal, &journal->tasks[i], arena, &tasks[i], err)) return false;
    ts_json checkpoint = ts_json_make_null();
    if (journal->has_checkpoint) ok = ok && ts_checkpoint_to_json(&journal->checkpoint, arena, &checkpoint);
    ts_json_builder b;
    ts_json_builder_init(&b, arena);
    ts_json_builder_add(&b, "executionId", str_or_null(arena, journal->execution_id));
    ts_json_builder_add(&b, "transcript", (ts_json){TS_JSON_ARRAY, {.a = {transcript, path_count}}});
    ts_json_builder_add(&b, "entries", (ts_json){TS_JSON_ARRAY, {.a = {entries, journal->entry_count}}});
    ts_json_builder_add(&b, "tasks", (ts_json){TS_JSON_ARRAY, {.a = {tasks, journal->task_count}}});
    ts_json_builder_add(&b, "signals", (ts_json){TS_JSON_ARRAY, {.a = {journal->signals, journal->signal_count}}});
    ts_json_builder_add(&b, "checkpoint", checkpoint);
    ts_json_builder_add(&b, "eventsApplied", ts_json_make_int((int64_t)journal->events_applied));
    if (!ok || !ts_json_builder_finish(&b, out)) return fail_at(err, TS_ERR_NOMEM, "", "", "out of memory");
    return true;
}

bool ts_journal_from_json(const ts_json *value, ts_arena *arena, ts_journal *out, ts_error *err) {
    if (value->kind != TS_JSON_OBJECT) return fail_at(err, TS_ERR_INPUT, "", "", "a journal must be an object");
    if (!uuid_member(value, "executionId", true, out->execution_id, "", err)) return false;
    const ts_json *entries = ts_json_get(value, "entries"), *tasks = ts_json_get(value, "tasks");
    const ts_json *signals = ts_json_get(value, "signals"), *checkpoint = ts_json_get(value, "checkpoint");
    if (!entries || entries->kind != TS_JSON_ARRAY) return fail_at(err, TS_ERR_INPUT, "", "entries", "must be an array");
    if (!tasks || tasks->kind != TS_JSON_ARRAY) return fail_at(err, TS_ERR_INPUT, "", "tasks", "must be an array");
    if (!signals || signals->kind != TS_JSON_ARRAY) return fail_at(err, TS_ERR_INPUT, "", "signals", "must be an array");
    char path[64];
    for (size_t i = 0; i < entries->u.a.count; i++) {
        ts_entry entry;
        snprintf(path, sizeof path, "entries[%zu]", i);
        if (!ts_entry_from_json(&entries->u.a.items[i], arena, &entry, path, err)) return false;
        if (ts_journal_find_entry(out, entry.id)) return fail_at(err, TS_ERR_INPUT, path, "entryId", "appears twice");
        if (!ts_journal_add_entry(out, arena, &entry)) return fail_at(err, TS_ERR_NOMEM, path, "", "out of memory");
    }
    for (size_t i = 0; i < tasks->u.a.count; i++) {
        ts_task task;
        snprintf(path, sizeof path, "tasks[%zu]", i);
        if (!ts_task_from_json(&tasks->u.a.items[i], arena, &task, path, err)) return false;
        if (ts_journal_find_task(out, task.id)) return fail_at(err, TS_ERR_INPUT, path, "taskId", "appears twice");
        if (!ts_journal_add_task(out, arena, &task)) return fail_at(err, TS_ERR_NOMEM, path, "", "out of memory");
    }
    for (size_t i = 0; i < signals->u.a.count; i++)
        if (!ts_journal_add_signal(out, arena, &signals->u.a.items[i])) return fail_at(err, TS_ERR_NOMEM, "", "signals", "out of memory");
    if (checkpoint && checkpoint->kind != TS_JSON_NULL) {
        if (!ts_checkpoint_from_json(checkpoint, arena, &out->checkpoint, "checkpoint", err)) return false;
        out->has_checkpoint = true;
    }
    const ts_json *applied = ts_json_get(value, "eventsApplied");
    if (applied && !count_member(value, "eventsApplied", &out->events_applied, "", err)) return false;
    return true;
}

/* ------------------------------------------------------------ the streamed JSON form ----- */

/* One array of the form, item by item: item(i) builds item i in the arena it is given, which is
 * freed after each item. */
typedef bool (*item_fn)(const ts_journal *journal, size_t i, const ts_entry *const *path, ts_arena *arena,
                        ts_json *out, ts_error *err);

static bool transcript_item(const ts_journal *j, size_t i, const ts_entry *const *path, ts_arena *arena, ts_json *out,
                            ts_error *err) {
    (void)j;
    return ts_entry_to_json(path[i], arena, out) || fail_at(err, TS_ERR_NOMEM, "", "", "out of memory");
}

static bool entry_item(const ts_journal *j, size_t i, const ts_entry *const *path, ts_arena *arena, ts_json *out,
                       ts_error *err) {
    (void)path;
    return ts_entry_to_json(&j->entries[i], arena, out) || fail_at(err, TS_ERR_NOMEM, "", "", "out of memory");
}

static bool task_item(const ts_journal *j, size_t i, const ts_entry *const *path, ts_arena *arena, ts_json *out,
                      ts_error *err) {
    (void)path;
    return ts_task_to_json(j, &j->tasks[i], arena, out, err);
}

typedef struct streamer {
    ts_journal_emit emit;
    void *context;
    ts_write_style style;
    ts_buf text;
} streamer;

static bool emit_bytes(streamer *w, const char *data, size_t len, ts_error *err) {
    if (len == 0 || w->emit(w->context, data, len)) return true;
    return fail_at(err, TS_ERR_INPUT, "", "", "cannot write the journal");
}

/* Writes the array at depth 1 of the form, as the codec would (pretty: each item on its own
 * lines, indented by two levels; an item's own newlines are re-indented). */
static bool stream_array(streamer *w, const ts_journal *j, size_t count, item_fn item, const ts_entry *const *path,
                         ts_error *err) {
    bool pretty = w->style == TS_WRITE_PRETTY;
    if (!emit_bytes(w, "[", 1, err)) return false;
    for (size_t i = 0; i < count; i++) {
        ts_arena arena;
        ts_arena_init(&arena);
        ts_json value;
        ts_buf_reset(&w->text);
        if (i) ts_buf_append_char(&w->text, ',');
        if (pretty) ts_buf_append_str(&w->text, "\n    ");
        bool ok = item(j, i, path, &arena, &value, err);
        if (ok && pretty) {
            ts_buf item_text;
            ts_buf_init(&item_text);
            ok = ts_codec_write(&item_text, &value, TS_WRITE_PRETTY);
            for (size_t k = 0; ok && k < item_text.len; k++) {
                ts_buf_append_char(&w->text, item_text.data[k]);
                if (item_text.data[k] == '\n') ts_buf_append_str(&w->text, "    ");
            }
            ts_buf_free(&item_text);
        } else if (ok) {
            ok = ts_codec_write(&w->text, &value, TS_WRITE_COMPACT);
        }
        ts_arena_free(&arena);
        if (ok && w->text.failed) ok = fail_at(err, TS_ERR_NOMEM, "", "", "out of memory");
        else if (!ok && !err->message[0]) fail_at(err, TS_ERR_INPUT, "", "", "a value cannot be written as JSON");
        if (!ok || !emit_bytes(w, w->text.data, w->text.len, err)) return false;
    }
    if (count && pretty && !emit_bytes(w, "\n  ", 3, err)) return false;
    return emit_bytes(w, "]", 1, err);
}

bool ts_journal_write_json(const ts_journal *j, ts_write_style style, ts_journal_emit emit, void *context,
                           ts_error *err) {
    ts_arena arena;
    ts_arena_init(&arena);
    streamer w = {emit, context, style, {0}};
    ts_buf_init(&w.text);
    const ts_entry **path = NULL;
    size_t path_count = 0;
    bool ok = !j->has_checkpoint || ts_journal_path(j, j->checkpoint.leaf_id, &arena, &path, &path_count, err);
    /* The form with three placeholders where its big arrays go; the text between them is
     * written as it is. A placeholder cannot be confused with a signal's text: the arrays come
     * before the signals, and the first match of each is taken, in order. */
    static const char *const holders[3] = {"\001turnstile:transcript\001", "\001turnstile:entries\001",
                                           "\001turnstile:tasks\001"};
    ts_json checkpoint = ts_json_make_null();
    if (ok && j->has_checkpoint) ok = ts_checkpoint_to_json(&j->checkpoint, &arena, &checkpoint);
    ts_json_builder b;
    ts_json_builder_init(&b, &arena);
    ts_json_builder_add(&b, "executionId", str_or_null(&arena, j->execution_id));
    ts_json_builder_add(&b, "transcript", ts_json_make_string(ts_str_from(holders[0])));
    ts_json_builder_add(&b, "entries", ts_json_make_string(ts_str_from(holders[1])));
    ts_json_builder_add(&b, "tasks", ts_json_make_string(ts_str_from(holders[2])));
    ts_json_builder_add(&b, "signals", (ts_json){TS_JSON_ARRAY, {.a = {j->signals, j->signal_count}}});
    ts_json_builder_add(&b, "checkpoint", checkpoint);
    ts_json_builder_add(&b, "eventsApplied", ts_json_make_int((int64_t)j->events_applied));
    ts_json skeleton;
    ts_buf text;
    ts_buf_init(&text);
    if (ok && !(ts_json_builder_finish(&b, &skeleton) && ts_codec_write(&text, &skeleton, style)))
        ok = fail_at(err, TS_ERR_NOMEM, "", "", "out of memory, or a value that cannot be written as JSON");
    static const item_fn items[3] = {transcript_item, entry_item, task_item};
    size_t counts[3] = {path_count, j->entry_count, j->task_count};
    size_t at = 0;
    for (int k = 0; ok && k < 3; k++) {
        ts_buf holder;
        ts_buf_init(&holder);
        ts_codec_write_string(&holder, ts_str_from(holders[k]));
        const char *found = holder.failed ? NULL : strstr(text.data + at, holder.data);
        ok = found && emit_bytes(&w, text.data + at, (size_t)(found - (text.data + at)), err) &&
             stream_array(&w, j, counts[k], items[k], path, err);
        if (found) at = (size_t)(found - text.data) + holder.len;
        ts_buf_free(&holder);
        if (!found && !err->message[0]) fail_at(err, TS_ERR_NOMEM, "", "", "out of memory");
    }
    ok = ok && emit_bytes(&w, text.data + at, text.len - at, err);
    ts_buf_free(&text);
    ts_buf_free(&w.text);
    ts_arena_free(&arena);
    return ok;
}

static void number_entry_ids(ts_json *value, const ts_strmap *positions, ts_arena *arena) {
    if (value->kind == TS_JSON_ARRAY)
        for (size_t i = 0; i < value->u.a.count; i++) number_entry_ids(&value->u.a.items[i], positions, arena);
    if (value->kind != TS_JSON_OBJECT) return;
    for (size_t i = 0; i < value->u.o.count; i++) {
        ts_member *m = &value->u.o.members[i];
        size_t position;
        bool id_member = ts_str_eq_cstr(m->key, "entryId") || ts_str_eq_cstr(m->key, "parentId") ||
                         ts_str_eq_cstr(m->key, "leafId");
        if (id_member && m->value.kind == TS_JSON_STRING && ts_strmap_get(positions, 0, m->value.u.s, &position)) {
            char text[32];
            snprintf(text, sizeof text, "#%zu", position);
            m->value.u.s = ts_str_dup(arena, ts_str_from(text));
        } else if (!ts_str_eq_cstr(m->key, "content") && !ts_str_eq_cstr(m->key, "result")) {
            number_entry_ids(&m->value, positions, arena);
        }
    }
}

bool ts_journal_json_without_ids(const ts_json *journal, ts_arena *arena, ts_json *out) {
    if (!ts_json_clone(arena, journal, out)) return false;
    const ts_json *entries = ts_json_get(out, "entries");
    ts_strmap positions;
    ts_strmap_init(&positions);
    bool ok = true;
    for (size_t i = 0; entries && entries->kind == TS_JSON_ARRAY && i < entries->u.a.count && ok; i++) {
        ts_str id = ts_json_string(ts_json_get(&entries->u.a.items[i], "entryId"));
        if (id.ptr) ok = ts_strmap_put(&positions, 0, id, i);
    }
    if (ok) number_entry_ids(out, &positions, arena);
    ts_strmap_free(&positions);
    return ok;
}
