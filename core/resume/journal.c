/* journal.c — the journal model and its JSON form; see journal.h. */
#include "core/resume/journal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const role_names[] = {"user", "assistant", "tool"};
static const char *const status_names[] = {"pending", "completed", "failed"};

const char *ts_entry_role_name(ts_entry_role role) {
    return (unsigned)role < sizeof role_names / sizeof role_names[0] ? role_names[role] : "?";
}

bool ts_entry_role_parse(ts_str name, ts_entry_role *out) {
    for (size_t i = 0; i < sizeof role_names / sizeof role_names[0]; i++)
        if (ts_str_eq_cstr(name, role_names[i])) {
            *out = (ts_entry_role)i;
            return true;
        }
    return false;
}

const char *ts_task_status_name(ts_task_status status) {
    return (unsigned)status < sizeof status_names / sizeof status_names[0] ? status_names[status] : "?";
}

bool ts_task_status_parse(ts_str name, ts_task_status *out) {
    for (size_t i = 0; i < sizeof status_names / sizeof status_names[0]; i++)
        if (ts_str_eq_cstr(name, status_names[i])) {
            *out = (ts_task_status)i;
            return true;
        }
    return false;
}

bool ts_entry_same(const ts_entry *a, const ts_entry *b) {
    return strcmp(a->id, b->id) == 0 && strcmp(a->parent_id, b->parent_id) == 0 && a->role == b->role &&
           ts_str_eq(a->timestamp, b->timestamp) && ts_json_equal(&a->content, &b->content);
}

bool ts_uuid_text_valid(const char *s) {
    if (strlen(s) != 36) return false;
    for (int i = 0; i < 36; i++) {
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? s[i] != '-' : !((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) return false;
    }
    return true;
}

/* ------------------------------------------------------------------ the journal itself --- */

void ts_journal_init(ts_journal *journal) {
    memset(journal, 0, sizeof *journal);
    ts_strmap_init(&journal->entry_index);
    ts_strmap_init(&journal->task_index);
}

void ts_journal_free(ts_journal *journal) {
    if (!journal) return;
    ts_strmap_free(&journal->entry_index);
    ts_strmap_free(&journal->task_index);
}

/* Makes room for one more item in an arena array that doubles as it grows. */
static bool reserve(ts_arena *arena, void **items, size_t count, size_t *cap, size_t item_size) {
    if (count < *cap) return true;
    size_t cap_new = *cap ? 2 * *cap : 16;
    void *grown = *items ? ts_arena_grow(arena, *items, *cap * item_size, cap_new * item_size)
                         : ts_arena_alloc(arena, cap_new * item_size);
    if (!grown) return false;
    *items = grown;
    *cap = cap_new;
    return true;
}

static bool copy_entry(ts_arena *arena, const ts_entry *src, ts_entry *dst) {
    *dst = *src;
    dst->timestamp = ts_str_dup(arena, src->timestamp);
    return (!src->timestamp.ptr || dst->timestamp.ptr) && ts_json_clone(arena, &src->content, &dst->content);
}

static bool copy_task(ts_arena *arena, const ts_task *src, ts_task *dst) {
    *dst = *src;
    dst->kind = ts_str_dup(arena, src->kind);
    dst->input = ts_str_dup(arena, src->input);
    return dst->kind.ptr && dst->input.ptr && ts_json_clone(arena, &src->result, &dst->result);
}

bool ts_journal_add_entry(ts_journal *journal, ts_arena *arena, const ts_entry *entry) {
    if (!reserve(arena, (void **)&journal->entries, journal->entry_count, &journal->entry_cap, sizeof(ts_entry)))
        return false;
    ts_entry *slot = &journal->entries[journal->entry_count];
    if (!copy_entry(arena, entry, slot)) return false;
    /* The map borrows its key: the id inside the arena copy lives as long as the journal.
     * Growing the array may move it, so the key is a stable copy of its own. */
    ts_str key = ts_str_dup(arena, ts_str_from(slot->id));
    if (!key.ptr || !ts_strmap_put(&journal->entry_index, 0, key, journal->entry_count)) return false;
    journal->entry_count++;
    return true;
}

bool ts_journal_add_task(ts_journal *journal, ts_arena *arena, const ts_task *task) {
    if (!reserve(arena, (void **)&journal->tasks, journal->task_count, &journal->task_cap, sizeof(ts_task)))
        return false;
    ts_task *slot = &journal->tasks[journal->task_count];
    if (!copy_task(arena, task, slot)) return false;
    ts_str key = ts_str_dup(arena, ts_str_from(slot->id));
    if (!key.ptr || !ts_strmap_put(&journal->task_index, 0, key, journal->task_count)) return false;
    journal->task_count++;
    return true;
}

bool ts_journal_add_signal(ts_journal *journal, ts_arena *arena, const ts_json *signal) {
    if (!reserve(arena, (void **)&journal->signals, journal->signal_count, &journal->signal_cap, sizeof(ts_json)))
        return false;
    if (!ts_json_clone(arena, signal, &journal->signals[journal->signal_count])) return false;
    journal->signal_count++;
    return true;
}

const ts_entry *ts_journal_find_entry(const ts_journal *journal, const char *id) {
    size_t index;
    if (!id[0] || !ts_strmap_get(&journal->entry_index, 0, ts_str_from(id), &index)) return NULL;
    return &journal->entries[index];
}

ts_task *ts_journal_find_task(const ts_journal *journal, const char *id) {
    size_t index;
    if (!id[0] || !ts_strmap_get(&journal->task_index, 0, ts_str_from(id), &index)) return NULL;
    return &journal->tasks[index];
}

bool ts_journal_path(const ts_journal *journal, const char *leaf_id, ts_arena *arena, const ts_entry ***out,
                     size_t *out_count, ts_error *err) {
    *out = NULL;
    *out_count = 0;
    size_t depth = 0;
    for (const char *id = leaf_id; id[0];) {
        const ts_entry *entry = ts_journal_find_entry(journal, id);
        if (!entry) {
            ts_error_set(err, "entry %s is on the visible path but not in the journal", id);
            return false;
        }
        if (++depth > journal->entry_count) {
            ts_error_set(err, "the parents of entry %s form a cycle", leaf_id);
            return false;
        }
        id = entry->parent_id;
    }
    const ts_entry **path = ts_arena_alloc(arena, (depth ? depth : 1) * sizeof *path);
    if (!path) {
        ts_error_set(err, "out of memory");
        return false;
    }
    size_t i = depth;
    for (const char *id = leaf_id; id[0];) {
        const ts_entry *entry = ts_journal_find_entry(journal, id);
        path[--i] = entry;
        id = entry->parent_id;
    }
    *out = path;
    *out_count = depth;
    return true;
}

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

bool ts_task_to_json(const ts_task *task, ts_arena *arena, ts_json *out) {
    ts_json_builder b;
    ts_json_builder_init(&b, arena);
    ts_json_builder_add(&b, "taskId", ts_json_make_string(ts_str_dup(arena, ts_str_from(task->id))));
    ts_json_builder_add(&b, "key", ts_json_make_string(ts_str_dup(arena, ts_str_from(task->key))));
    ts_json_builder_add(&b, "kind", ts_json_make_string(task->kind));
    ts_json_builder_add(&b, "input", ts_json_make_string(task->input));
    ts_json_builder_add(&b, "status", ts_json_make_string(ts_str_from(ts_task_status_name(task->status))));
    ts_json_builder_add(&b, "result", task->result);
    return ts_json_builder_finish(&b, out);
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

static bool fail_at(ts_error *err, const char *path, const char *field, const char *what) {
    snprintf(err->path, sizeof err->path, "%s%s%s", path, path[0] && field[0] ? "." : "", field);
    ts_error_set(err, "%s", what);
    return false;
}

/* Copies a UUID member (or null / absent when allow_none) into out. */
static bool uuid_member(const ts_json *object, const char *field, bool allow_none, char out[TS_UUID_TEXT],
                        const char *path, ts_error *err) {
    const ts_json *v = ts_json_get(object, field);
    out[0] = '\0';
    if (!v || v->kind == TS_JSON_NULL) return allow_none || fail_at(err, path, field, "a UUID is required");
    if (v->kind != TS_JSON_STRING || v->u.s.len != 36 || memchr(v->u.s.ptr, '\0', 36))
        return fail_at(err, path, field, "must be a canonical UUID string");
    memcpy(out, v->u.s.ptr, 36);
    out[36] = '\0';
    if (!ts_uuid_text_valid(out)) return fail_at(err, path, field, "must be a canonical UUID (8-4-4-4-12 lowercase hex)");
    return true;
}

static bool string_member(const ts_json *object, const char *field, ts_str *out, const char *path, ts_error *err) {
    const ts_json *v = ts_json_get(object, field);
    if (!v || v->kind != TS_JSON_STRING) return fail_at(err, path, field, "must be a string");
    *out = v->u.s;
    return true;
}

static bool count_member(const ts_json *object, const char *field, uint64_t *out, const char *path, ts_error *err) {
    const ts_json *v = ts_json_get(object, field);
    if (!v || v->kind != TS_JSON_INT || v->u.i < 0) return fail_at(err, path, field, "must be a non-negative integer");
    *out = (uint64_t)v->u.i;
    return true;
}

bool ts_entry_from_json(const ts_json *value, ts_arena *arena, ts_entry *out, const char *path, ts_error *err) {
    (void)arena;
    memset(out, 0, sizeof *out);
    if (value->kind != TS_JSON_OBJECT) return fail_at(err, path, "", "an entry must be an object");
    ts_str role;
    if (!uuid_member(value, "entryId", false, out->id, path, err) ||
        !uuid_member(value, "parentId", true, out->parent_id, path, err) ||
        !string_member(value, "role", &role, path, err) || !string_member(value, "timestamp", &out->timestamp, path, err))
        return false;
    if (!ts_entry_role_parse(role, &out->role)) return fail_at(err, path, "role", "must be user, assistant or tool");
    const ts_json *content = ts_json_get(value, "content");
    if (!content || content->kind != TS_JSON_OBJECT) return fail_at(err, path, "content", "must be an object");
    out->content = *content;
    return true;
}

bool ts_task_from_json(const ts_json *value, ts_arena *arena, ts_task *out, const char *path, ts_error *err) {
    (void)arena;
    memset(out, 0, sizeof *out);
    if (value->kind != TS_JSON_OBJECT) return fail_at(err, path, "", "a task must be an object");
    ts_str key, status;
    if (!uuid_member(value, "taskId", false, out->id, path, err) || !string_member(value, "key", &key, path, err) ||
        !string_member(value, "kind", &out->kind, path, err) || !string_member(value, "input", &out->input, path, err) ||
        !string_member(value, "status", &status, path, err))
        return false;
    if (key.len != 37 || strncmp(key.ptr, "task:", 5) != 0) return fail_at(err, path, "key", "must be task: and 32 hex digits");
    memcpy(out->key, key.ptr, key.len);
    out->key[key.len] = '\0';
    if (!ts_task_status_parse(status, &out->status))
        return fail_at(err, path, "status", "must be pending, completed or failed");
    const ts_json *result = ts_json_get(value, "result");
    out->result = result ? *result : ts_json_make_null();
    return true;
}

bool ts_checkpoint_from_json(const ts_json *value, ts_arena *arena, ts_checkpoint *out, const char *path,
                             ts_error *err) {
    (void)arena;
    memset(out, 0, sizeof *out);
    if (value->kind != TS_JSON_OBJECT) return fail_at(err, path, "", "a checkpoint must be an object");
    if (!count_member(value, "sequence", &out->sequence, path, err) ||
        !uuid_member(value, "leafId", true, out->leaf_id, path, err) ||
        !count_member(value, "signalsConsumed", &out->signals_consumed, path, err))
        return false;
    const ts_json *state = ts_json_get(value, "state");
    if (!state || state->kind != TS_JSON_OBJECT) return fail_at(err, path, "state", "must be an object");
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
    if (!items) return fail_at(err, "", "", "out of memory");
    ts_json *transcript = items, *entries = transcript + path_count, *tasks = entries + journal->entry_count;
    bool ok = true;
    for (size_t i = 0; i < path_count; i++) ok = ok && ts_entry_to_json(path[i], arena, &transcript[i]);
    for (size_t i = 0; i < journal->entry_count; i++) ok = ok && ts_entry_to_json(&journal->entries[i], arena, &entries[i]);
    for (size_t i = 0; i < journal->task_count; i++) ok = ok && ts_task_to_json(&journal->tasks[i], arena, &tasks[i]);
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
    if (!ok || !ts_json_builder_finish(&b, out)) return fail_at(err, "", "", "out of memory");
    return true;
}

bool ts_journal_from_json(const ts_json *value, ts_arena *arena, ts_journal *out, ts_error *err) {
    if (value->kind != TS_JSON_OBJECT) return fail_at(err, "", "", "a journal must be an object");
    if (!uuid_member(value, "executionId", true, out->execution_id, "", err)) return false;
    const ts_json *entries = ts_json_get(value, "entries"), *tasks = ts_json_get(value, "tasks");
    const ts_json *signals = ts_json_get(value, "signals"), *checkpoint = ts_json_get(value, "checkpoint");
    if (!entries || entries->kind != TS_JSON_ARRAY) return fail_at(err, "", "entries", "must be an array");
    if (!tasks || tasks->kind != TS_JSON_ARRAY) return fail_at(err, "", "tasks", "must be an array");
    if (!signals || signals->kind != TS_JSON_ARRAY) return fail_at(err, "", "signals", "must be an array");
    char path[64];
    for (size_t i = 0; i < entries->u.a.count; i++) {
        ts_entry entry;
        snprintf(path, sizeof path, "entries[%zu]", i);
        if (!ts_entry_from_json(&entries->u.a.items[i], arena, &entry, path, err)) return false;
        if (ts_journal_find_entry(out, entry.id)) return fail_at(err, path, "entryId", "appears twice");
        if (!ts_journal_add_entry(out, arena, &entry)) return fail_at(err, path, "", "out of memory");
    }
    for (size_t i = 0; i < tasks->u.a.count; i++) {
        ts_task task;
        snprintf(path, sizeof path, "tasks[%zu]", i);
        if (!ts_task_from_json(&tasks->u.a.items[i], arena, &task, path, err)) return false;
        if (ts_journal_find_task(out, task.id)) return fail_at(err, path, "taskId", "appears twice");
        if (!ts_journal_add_task(out, arena, &task)) return fail_at(err, path, "", "out of memory");
    }
    for (size_t i = 0; i < signals->u.a.count; i++)
        if (!ts_journal_add_signal(out, arena, &signals->u.a.items[i])) return fail_at(err, "", "signals", "out of memory");
    if (checkpoint && checkpoint->kind != TS_JSON_NULL) {
        if (!ts_checkpoint_from_json(checkpoint, arena, &out->checkpoint, "checkpoint", err)) return false;
        out->has_checkpoint = true;
    }
    const ts_json *applied = ts_json_get(value, "eventsApplied");
    if (applied && !count_member(value, "eventsApplied", &out->events_applied, "", err)) return false;
    return true;
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
