/* journal_answer.c — reading a journal answer, excerpts, task names; see journal_answer.h. */
#include "conformance/checkers/journal/journal_answer.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "conformance/checkers/findings.h"
#include "core/json/buf.h"
#include "core/json/canon.h"

const char *const jc_llm_kind = "llm-request";

/* ------------------------------------------------------------------------- excerpts ---- */

/* snprintf that cuts silently: excerpts and messages are bounded on purpose. */
void jc_format(char *out, size_t max, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out, max, fmt, ap);
    va_end(ap);
}

/* "assistant {"text":"5"}" */
void jc_entry_excerpt(ts_entry_role role, const ts_json *content, char *out, size_t max) {
    char body[EXCERPT];
    ts_check_excerpt(content, body, sizeof body);
    jc_format(out, max, "%s %s", ts_entry_role_name(role), body);
}

/* ------------------------------------------------------------------ the answer, as read ---- */

/* Fills why with "PATH: WHAT, got KIND" and returns false. */
static bool malformed(char *why, size_t max, const char *path, const char *what, const ts_json *got) {
    jc_format(why, max, "%s: %s, got %s", path, what, got ? ts_json_kind_name(got->kind) : "nothing (missing)");
    return false;
}

static bool string_at(const ts_json *object, const char *field, const char *path, ts_str *out, char *why, size_t max) {
    const ts_json *v = ts_json_get(object, field);
    char at[200];
    jc_format(at, sizeof at, "%s%s%s", path, path[0] ? "." : "", field);
    if (!v || v->kind != TS_JSON_STRING) return malformed(why, max, at, "must be a string", v);
    *out = v->u.s;
    return true;
}

static bool count_at(const ts_json *object, const char *field, const char *path, uint64_t *out, char *why, size_t max) {
    const ts_json *v = ts_json_get(object, field);
    char at[200];
    jc_format(at, sizeof at, "%s%s%s", path, path[0] ? "." : "", field);
    if (v && v->kind == TS_JSON_INT && v->u.i >= 0) {
        *out = (uint64_t)v->u.i;
        return true;
    }
    if (v && v->kind == TS_JSON_REAL && v->u.r >= 0 && v->u.r < 9007199254740992.0 &&
        v->u.r == (double)(uint64_t)v->u.r) {
        *out = (uint64_t)v->u.r;
        return true;
    }
    return malformed(why, max, at, "must be a non-negative integer", v);
}

static bool read_entry(const ts_json *v, const char *path, answer_entry *out, char *why, size_t max) {
    memset(out, 0, sizeof *out);
    out->json = v;
    if (v->kind != TS_JSON_OBJECT) return malformed(why, max, path, "an entry must be an object", v);
    char at[200];
    ts_str role;
    if (!string_at(v, "entryId", path, &out->id, why, max)) return false;
    const ts_json *parent = ts_json_get(v, "parentId");
    jc_format(at, sizeof at, "%s.parentId", path);
    if (!parent || (parent->kind != TS_JSON_NULL && parent->kind != TS_JSON_STRING))
        return malformed(why, max, at, "must be a string, or null for a root", parent);
    if (parent->kind == TS_JSON_STRING) out->parent_id = parent->u.s;
    if (!string_at(v, "role", path, &role, why, max)) return false;
    if (!ts_entry_role_parse(role, &out->role)) {
        char got[EXCERPT];
        ts_check_excerpt_str_or(role, "null", got, sizeof got);
        jc_format(why, max, "%s.role: must be \"user\", \"assistant\" or \"tool\", got %s", path, got);
        return false;
    }
    out->content = ts_json_get(v, "content");
    jc_format(at, sizeof at, "%s.content", path);
    if (!out->content || out->content->kind != TS_JSON_OBJECT)
        return malformed(why, max, at, "must be an object", out->content);
    const ts_json *timestamp = ts_json_get(v, "timestamp");
    if (timestamp && timestamp->kind == TS_JSON_NULL) return true; /* judged by J8 alone */
    return string_at(v, "timestamp", path, &out->timestamp, why, max);
}

static bool read_task(const ts_json *v, const char *path, answer_task *out, char *why, size_t max) {
    memset(out, 0, sizeof *out);
    if (v->kind != TS_JSON_OBJECT) return malformed(why, max, path, "a task must be an object", v);
    ts_str status;
    if (!string_at(v, "taskId", path, &out->id, why, max) || !string_at(v, "key", path, &out->key, why, max) ||
        !string_at(v, "kind", path, &out->kind, why, max) || !string_at(v, "input", path, &out->input, why, max) ||
        !string_at(v, "status", path, &status, why, max))
        return false;
    if (!ts_task_status_parse(status, &out->status)) {
        char got[EXCERPT];
        ts_check_excerpt_str_or(status, "null", got, sizeof got);
        jc_format(why, max, "%s.status: must be \"pending\", \"completed\" or \"failed\", got %s", path, got);
        return false;
    }
    const ts_json *result = ts_json_get(v, "result");
    out->result = result ? *result : ts_json_make_null();
    return true;
}

static bool read_entries(const ts_json *object, const char *field, ts_arena *arena, answer_entry **out, size_t *count,
                         char *why, size_t max) {
    const ts_json *list = ts_json_get(object, field);
    if (!list || list->kind != TS_JSON_ARRAY) return malformed(why, max, field, "must be an array of entries", list);
    *out = ts_arena_calloc(arena, list->u.a.count + 1, sizeof **out);
    if (!*out) return false;
    *count = list->u.a.count;
    char path[64];
    for (size_t i = 0; i < list->u.a.count; i++) {
        jc_format(path, sizeof path, "%s[%zu]", field, i);
        if (!read_entry(&list->u.a.items[i], path, &(*out)[i], why, max)) return false;
    }
    return true;
}

bool jc_read_answer(const ts_json *j, ts_arena *arena, journal_answer *out, char *why, size_t max) {
    memset(out, 0, sizeof *out);
    why[0] = '\0';
    if (!j || j->kind != TS_JSON_OBJECT) return malformed(why, max, "the journal", "must be an object", j);
    if (!string_at(j, "executionId", "", &out->execution_id, why, max)) return false;
    if (!read_entries(j, "transcript", arena, &out->transcript, &out->transcript_count, why, max)) return false;
    if (!read_entries(j, "entries", arena, &out->entries, &out->entry_count, why, max)) return false;
    const ts_json *tasks = ts_json_get(j, "tasks");
    if (!tasks || tasks->kind != TS_JSON_ARRAY) return malformed(why, max, "tasks", "must be an array of tasks", tasks);
    out->tasks = ts_arena_calloc(arena, tasks->u.a.count + 1, sizeof *out->tasks);
    if (!out->tasks) return false;
    out->task_count = tasks->u.a.count;
    char path[64];
    for (size_t i = 0; i < tasks->u.a.count; i++) {
        jc_format(path, sizeof path, "tasks[%zu]", i);
        if (!read_task(&tasks->u.a.items[i], path, &out->tasks[i], why, max)) return false;
    }
    out->signals = ts_json_get(j, "signals");
    if (!out->signals || out->signals->kind != TS_JSON_ARRAY)
        return malformed(why, max, "signals", "must be an array", out->signals);
    const ts_json *checkpoint = ts_json_get(j, "checkpoint");
    if (!checkpoint || checkpoint->kind != TS_JSON_OBJECT)
        return malformed(why, max, "checkpoint", "must be an object", checkpoint);
    uint64_t sequence;
    if (!count_at(checkpoint, "sequence", "checkpoint", &sequence, why, max)) return false;
    const ts_json *leaf = ts_json_get(checkpoint, "leafId");
    if (!leaf || (leaf->kind != TS_JSON_NULL && leaf->kind != TS_JSON_STRING))
        return malformed(why, max, "checkpoint.leafId", "must be an entry id, or null", leaf);
    if (leaf->kind == TS_JSON_STRING) out->leaf_id = leaf->u.s;
    if (!count_at(checkpoint, "signalsConsumed", "checkpoint", &out->signals_consumed, why, max)) return false;
    out->state = ts_json_get(checkpoint, "state");
    if (!out->state || out->state->kind != TS_JSON_OBJECT)
        return malformed(why, max, "checkpoint.state", "must be an object", out->state);
    uint64_t applied;
    if (ts_json_get(j, "eventsApplied") && !count_at(j, "eventsApplied", "", &applied, why, max)) return false;
    return true;
}

/* ----------------------------------------------------------------------- task names ---- */

/* {"messages": [{"role", "content", "timestamp"}, ...]} (SPEC §6.1, Tasks). */
bool jc_llm_input(ts_arena *arena, const message_view *views, size_t count, ts_json *out) {
    ts_json *items = ts_arena_calloc(arena, count + 1, sizeof *items);
    if (!items) return false;
    for (size_t i = 0; i < count; i++) {
        ts_json_builder b;
        ts_json_builder_init(&b, arena);
        ts_json_builder_add(&b, "role", ts_json_make_string(ts_str_from(ts_entry_role_name(views[i].role))));
        ts_json_builder_add(&b, "content", *views[i].content);
        ts_json_builder_add(&b, "timestamp",
                            views[i].timestamp.ptr ? ts_json_make_string(views[i].timestamp) : ts_json_make_null());
        if (!ts_json_builder_finish(&b, &items[i])) return false;
    }
    ts_json_builder b;
    ts_json_builder_init(&b, arena);
    ts_json_builder_add(&b, "messages", (ts_json){TS_JSON_ARRAY, {.a = {items, count}}});
    return ts_json_builder_finish(&b, out);
}

static bool no_calls(const ts_json *v) { return v->kind == TS_JSON_ARRAY && v->u.a.count == 0; }

bool jc_content_equal(const ts_json *want, const ts_json *got, bool error_free) {
    if (ts_json_equal(want, got)) return true;
    if (want->kind != TS_JSON_OBJECT || got->kind != TS_JSON_OBJECT) return false;
    for (int pass = 0; pass < 2; pass++) { /* every member of one is in the other, alike */
        const ts_json *a = pass ? got : want, *b = pass ? want : got;
        for (size_t i = 0; i < a->u.o.count; i++) {
            const ts_member *m = &a->u.o.members[i];
            const ts_json *other = ts_json_get(b, m->key.ptr);
            if (ts_str_eq_cstr(m->key, "toolCalls") && no_calls(&m->value) && (!other || no_calls(other))) continue;
            if (error_free && ts_str_eq_cstr(m->key, "error") && m->value.kind == TS_JSON_STRING && other &&
                other->kind == TS_JSON_STRING)
                continue;
            if (!other || !ts_json_equal(&m->value, other)) return false;
        }
    }
    return true;
}

/* {"callId": ..., "arguments": ...} */
bool jc_tool_input(ts_arena *arena, ts_str call_id, const ts_json *arguments, ts_json *out) {
    ts_json_builder b;
    ts_json_builder_init(&b, arena);
    ts_json_builder_add(&b, "callId", ts_json_make_string(call_id));
    ts_json_builder_add(&b, "arguments", arguments ? *arguments : ts_json_make_null());
    return ts_json_builder_finish(&b, out);
}

/* The canonical text, key and id of a task (J5), into arena / key / id. */
naming_status jc_name_task(const char *execution_id, ts_str kind, const ts_json *input, ts_arena *arena,
                               ts_str *canonical, char key[TS_TASK_KEY_TEXT_LEN + 1], char id[TS_UUID_TEXT_LEN + 1],
                               ts_error *err) {
    ts_buf buf;
    ts_buf_init(&buf);
    ts_error_clear(err);
    if (!ts_canon_write(&buf, input, err)) {
        bool oom = buf.failed;
        ts_buf_free(&buf);
        return oom ? NAMING_OUT_OF_MEMORY : NAMING_FAILED;
    }
    char *copy = ts_arena_strndup(arena, buf.data ? buf.data : "", buf.len);
    size_t len = buf.len;
    ts_buf_free(&buf);
    if (!copy) return NAMING_OUT_OF_MEMORY;
    *canonical = (ts_str){copy, len};
    if (!ts_task_key(execution_id, kind, *canonical, key, err) || !ts_task_id(key, id, err)) return NAMING_FAILED;
    return NAMED;
}
