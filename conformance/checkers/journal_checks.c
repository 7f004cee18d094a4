/* journal_checks.c — the resume-engine checkers (SPEC.md §6, J1-J12); see journal_checks.h.
 *
 * Three parts: reading the answer (its shape; a malformed one is reported under J2), deriving
 * the expected execution from the scenario (section "the scripted world"), and one function
 * per rule comparing the two. Nothing here calls core/resume/engine.h or a store.
 */
#include "conformance/checkers/journal_checks.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "conformance/checkers/checks.h"
#include "core/json/buf.h"
#include "core/json/canon.h"
#include "core/json/codec.h"
#include "core/resume/journal.h"
#include "core/json/strmap.h"
#include "core/resume/taskid.h"
#include "core/json/timestamp.h"

#define NO_INDEX SIZE_MAX
enum { EXCERPT = 200, TIMESTAMP_TEXT = 64 };

static const char *const llm_kind = "llm-request";

/* ------------------------------------------------------------------------- excerpts ---- */

/* snprintf that cuts silently: excerpts and messages are bounded on purpose. */
static void format_into(char *out, size_t max, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void format_into(char *out, size_t max, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out, max, fmt, ap);
    va_end(ap);
}

static void str_excerpt(ts_str s, char *out, size_t max) {
    if (!s.ptr) {
        format_into(out, max, "null");
        return;
    }
    ts_json v = ts_json_make_string(s);
    ts_check_excerpt(&v, out, max);
}

/* "assistant {"text":"5"}" */
static void entry_excerpt(ts_entry_role role, const ts_json *content, char *out, size_t max) {
    char body[EXCERPT];
    ts_check_excerpt(content, body, sizeof body);
    format_into(out, max, "%s %s", ts_entry_role_name(role), body);
}

/* ------------------------------------------------------------------ the answer, as read ---- */

typedef struct answer_entry {
    const ts_json *json; /* the whole entry object */
    ts_str id;
    ts_str parent_id; /* absent for a root (null) */
    ts_entry_role role;
    const ts_json *content;
    ts_str timestamp;
} answer_entry;

typedef struct answer_task {
    ts_str id, key, kind, input;
    ts_task_status status;
    ts_json result; /* null when absent */
} answer_task;

typedef struct journal_answer {
    ts_str execution_id;
    answer_entry *transcript;
    size_t transcript_count;
    answer_entry *entries;
    size_t entry_count;
    answer_task *tasks;
    size_t task_count;
    const ts_json *signals; /* an array */
    ts_str leaf_id;         /* absent when null */
    uint64_t signals_consumed;
    const ts_json *state; /* an object */
} journal_answer;

/* Fills why with "PATH: WHAT, got KIND" and returns false. */
static bool malformed(char *why, size_t max, const char *path, const char *what, const ts_json *got) {
    format_into(why, max, "%s: %s, got %s", path, what, got ? ts_json_kind_name(got->kind) : "nothing (missing)");
    return false;
}

static bool string_at(const ts_json *object, const char *field, const char *path, ts_str *out, char *why, size_t max) {
    const ts_json *v = ts_json_get(object, field);
    char at[200];
    format_into(at, sizeof at, "%s%s%s", path, path[0] ? "." : "", field);
    if (!v || v->kind != TS_JSON_STRING) return malformed(why, max, at, "must be a string", v);
    *out = v->u.s;
    return true;
}

static bool count_at(const ts_json *object, const char *field, const char *path, uint64_t *out, char *why, size_t max) {
    const ts_json *v = ts_json_get(object, field);
    char at[200];
    format_into(at, sizeof at, "%s%s%s", path, path[0] ? "." : "", field);
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
    format_into(at, sizeof at, "%s.parentId", path);
    if (!parent || (parent->kind != TS_JSON_NULL && parent->kind != TS_JSON_STRING))
        return malformed(why, max, at, "must be a string, or null for a root", parent);
    if (parent->kind == TS_JSON_STRING) out->parent_id = parent->u.s;
    if (!string_at(v, "role", path, &role, why, max)) return false;
    if (!ts_entry_role_parse(role, &out->role)) {
        char got[EXCERPT];
        str_excerpt(role, got, sizeof got);
        format_into(why, max, "%s.role: must be \"user\", \"assistant\" or \"tool\", got %s", path, got);
        return false;
    }
    out->content = ts_json_get(v, "content");
    format_into(at, sizeof at, "%s.content", path);
    if (!out->content || out->content->kind != TS_JSON_OBJECT)
        return malformed(why, max, at, "must be an object", out->content);
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
        str_excerpt(status, got, sizeof got);
        format_into(why, max, "%s.status: must be \"pending\", \"completed\" or \"failed\", got %s", path, got);
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
        format_into(path, sizeof path, "%s[%zu]", field, i);
        if (!read_entry(&list->u.a.items[i], path, &(*out)[i], why, max)) return false;
    }
    return true;
}

/* Reads the journal answer; false with why (a field path and what is wrong) when it does not
 * have the journal's shape, or with why empty when memory ran out. */
static bool read_answer(const ts_json *j, ts_arena *arena, journal_answer *out, char *why, size_t max) {
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
        format_into(path, sizeof path, "tasks[%zu]", i);
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

/* One message of an LLM task's input. */
typedef struct message_view {
    ts_entry_role role;
    const ts_json *content;
    ts_str timestamp;
} message_view;

/* {"messages": [{"role", "content", "timestamp"}, ...]} (SPEC §6.1, Tasks). */
static bool llm_input(ts_arena *arena, const message_view *views, size_t count, ts_json *out) {
    ts_json *items = ts_arena_calloc(arena, count + 1, sizeof *items);
    if (!items) return false;
    for (size_t i = 0; i < count; i++) {
        ts_json_builder b;
        ts_json_builder_init(&b, arena);
        ts_json_builder_add(&b, "role", ts_json_make_string(ts_str_from(ts_entry_role_name(views[i].role))));
        ts_json_builder_add(&b, "content", *views[i].content);
        ts_json_builder_add(&b, "timestamp", ts_json_make_string(views[i].timestamp));
        if (!ts_json_builder_finish(&b, &items[i])) return false;
    }
    ts_json_builder b;
    ts_json_builder_init(&b, arena);
    ts_json_builder_add(&b, "messages", (ts_json){TS_JSON_ARRAY, {.a = {items, count}}});
    return ts_json_builder_finish(&b, out);
}

/* {"callId": ..., "arguments": ...} */
static bool tool_input(ts_arena *arena, ts_str call_id, const ts_json *arguments, ts_json *out) {
    ts_json_builder b;
    ts_json_builder_init(&b, arena);
    ts_json_builder_add(&b, "callId", ts_json_make_string(call_id));
    ts_json_builder_add(&b, "arguments", arguments ? *arguments : ts_json_make_null());
    return ts_json_builder_finish(&b, out);
}

typedef enum naming_status { NAMED, NAMING_FAILED, NAMING_OUT_OF_MEMORY } naming_status;

/* The canonical text, key and id of a task (J5), into arena / key / id. */
static naming_status name_task(const char *execution_id, ts_str kind, const ts_json *input, ts_arena *arena,
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

/* --------------------------------------------------------------- the scripted world ---- */
/* SPEC §6.1, executed: the entries, tasks and final state the scenario's execution must end
 * with. Entry k here is the k-th entry ever created (the answer's entries[k]). */

typedef enum sim_phase { SIM_IDLE, SIM_LLM, SIM_TOOLS } sim_phase;

/* SPEC §6.1 does not say what an edit does while tool calls are pending; both readings pass.
 * EDITS_AT_ONCE: the edit is applied when it arrives and abandons the pending calls with the
 * rest of the old branch (signals waiting then join before the next LLM task).
 * EDITS_QUEUED: an edit is a user message like a signal: it waits in the inbox until the pending
 * calls finish and is applied in arrival order, at the points where signals are consumed (the
 * reference's reading). Without an edit during pending calls the two are the same execution. */
typedef enum sim_reading { EDITS_AT_ONCE, EDITS_QUEUED, READING_COUNT } sim_reading;
typedef enum sim_origin { FROM_INPUT, FROM_SIGNAL, FROM_BRANCH, FROM_LLM, FROM_TOOL } sim_origin;

typedef struct sim_entry {
    ts_entry_role role;
    ts_json content;
    size_t parent;    /* NO_INDEX for a root */
    ts_str timestamp; /* the one the derivation hashes into LLM inputs */
    sim_origin origin;
    size_t origin_index; /* FROM_SIGNAL: signal; FROM_BRANCH: event; FROM_LLM / FROM_TOOL: task */
} sim_entry;

typedef struct sim_task {
    ts_str kind;
    ts_json input;
    ts_str canonical;
    char key[TS_TASK_KEY_TEXT_LEN + 1];
    char id[TS_UUID_TEXT_LEN + 1];
    ts_task_status status;
    ts_json result;
    bool status_open;  /* an async task an edit abandoned: pending, or its result if it arrived */
    ts_str call_id;    /* tool tasks */
    size_t llm_answer; /* LLM tasks: index into scenario->llm */
} sim_task;

typedef struct sim {
    const ts_scenario *scenario;
    const journal_answer *answer;
    ts_arena *arena;
    sim_entry *entries;
    size_t entry_count, entry_cap;
    sim_task *tasks;
    size_t task_count, task_cap;
    sim_reading reading;
    ts_str *signals; /* signals delivered so far, in arrival order */
    size_t signal_count, signals_consumed;
    size_t *inbox; /* events waiting to become user entries (signals; edits if queued) */
    size_t inbox_count, inbox_consumed;
    bool *applied;           /* per event: the signal or edit has become an entry */
    bool edit_while_pending; /* an edit arrived while tool calls were pending: the readings differ */
    size_t leaf;
    sim_phase phase;
    const ts_json *calls; /* SIM_TOOLS: the last assistant entry's toolCalls */
    size_t call_index;
    size_t waiting_task; /* suspended on this async task, or NO_INDEX */
    size_t llm_used;     /* LLM tasks recorded: the next answer is llm[llm_used] */
    bool branched;
    bool out_of_memory;
    bool stuck; /* the scenario cannot be run to its end */
    char stuck_why[400];
} sim;

/* items with room for one more (the same block, or a grown copy); NULL when memory ran out. */
static void *sim_grow(sim *s, void *items, size_t *cap, size_t count, size_t size) {
    if (items && count < *cap) return items;
    size_t grown = *cap ? *cap * 2 : 16;
    void *p =
        items ? ts_arena_grow(s->arena, items, *cap * size, grown * size) : ts_arena_alloc(s->arena, grown * size);
    if (!p) {
        s->out_of_memory = true;
        return NULL;
    }
    *cap = grown;
    return p;
}

/* clock.start + k * stepMs, written YYYY-MM-DDThh:mm:ss.fffffff+00:00 (SPEC §6.1, The clock). */
static void clock_timestamp(const ts_scenario *scenario, uint64_t k, char out[TIMESTAMP_TEXT]) {
    /* in 100 ns ticks since the start's whole second: exact for any k a journal can hold */
    int64_t ticks = scenario->clock_start_ticks + (int64_t)k * scenario->clock_step_ms * 10000;
    time_t seconds = (time_t)(scenario->clock_start_seconds + ticks / 10000000);
    struct tm utc;
    memset(&utc, 0, sizeof utc);
    gmtime_r(&seconds, &utc);
    format_into(out, TIMESTAMP_TEXT, "%04d-%02d-%02dT%02d:%02d:%02d.%07d+00:00", utc.tm_year + 1900, utc.tm_mon + 1,
                utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, (int)(ticks % 10000000));
}

/* The timestamp entry k carries: the clock's, or without a clock the answer's own (the wall
 * clock cannot be re-derived; LLM inputs are then checked against the stored timestamps). */
static ts_str sim_timestamp(sim *s, size_t k) {
    char text[TIMESTAMP_TEXT];
    if (s->scenario->has_clock)
        clock_timestamp(s->scenario, k, text);
    else if (k < s->answer->entry_count)
        return s->answer->entries[k].timestamp;
    else
        format_into(text, sizeof text, "(no timestamp: entries[%zu] is missing)", k);
    char *copy = ts_arena_strndup(s->arena, text, strlen(text));
    if (!copy) s->out_of_memory = true;
    return (ts_str){copy ? copy : "", copy ? strlen(copy) : 0};
}

static size_t sim_append(sim *s, ts_entry_role role, ts_json content, size_t parent, sim_origin origin,
                         size_t origin_index) {
    sim_entry *entries = sim_grow(s, s->entries, &s->entry_cap, s->entry_count, sizeof *s->entries);
    if (!entries) return NO_INDEX;
    s->entries = entries;
    size_t k = s->entry_count;
    sim_entry *e = &s->entries[k];
    memset(e, 0, sizeof *e);
    e->role = role;
    e->content = content;
    e->parent = parent;
    e->origin = origin;
    e->origin_index = origin_index;
    e->timestamp = sim_timestamp(s, k);
    s->entry_count++;
    s->leaf = k;
    return k;
}

static ts_json text_content(sim *s, ts_str text) {
    ts_json_builder b;
    ts_json_builder_init(&b, s->arena);
    ts_json_builder_add(&b, "text", ts_json_make_string(text));
    ts_json out = ts_json_make_null();
    if (!ts_json_builder_finish(&b, &out)) s->out_of_memory = true;
    return out;
}

/* The path from the root to entry `leaf`, root first (arena). */
static size_t *sim_path(sim *s, size_t leaf, size_t *count) {
    size_t n = 0;
    for (size_t at = leaf; at != NO_INDEX; at = s->entries[at].parent) n++;
    size_t *path = ts_arena_calloc(s->arena, n + 1, sizeof *path);
    if (!path) {
        s->out_of_memory = true;
        *count = 0;
        return NULL;
    }
    size_t i = n;
    for (size_t at = leaf; at != NO_INDEX; at = s->entries[at].parent) path[--i] = at;
    *count = n;
    return path;
}

static size_t sim_find_task(const sim *s, const char *key) {
    for (size_t i = 0; i < s->task_count; i++)
        if (strcmp(s->tasks[i].key, key) == 0) return i;
    return NO_INDEX;
}

/* The task (kind, input): the recorded one with that name, or a new one (its status and result
 * then set by the caller; *created says which). NO_INDEX when the scenario cannot name it. */
static size_t sim_task_for(sim *s, ts_str kind, const ts_json *input, bool *created) {
    sim_task t;
    memset(&t, 0, sizeof t);
    ts_error err;
    naming_status named = name_task(s->scenario->execution_id, kind, input, s->arena, &t.canonical, t.key, t.id, &err);
    if (named == NAMING_OUT_OF_MEMORY) s->out_of_memory = true;
    if (named != NAMED) {
        if (named == NAMING_FAILED) {
            s->stuck = true;
            format_into(s->stuck_why, sizeof s->stuck_why, "a %.*s task's input cannot be named: %s%s%s", (int)kind.len,
                        kind.ptr, err.path, err.path[0] ? ": " : "", err.message);
        }
        return NO_INDEX;
    }
    size_t found = sim_find_task(s, t.key);
    *created = found == NO_INDEX;
    if (found != NO_INDEX) return found;
    sim_task *tasks = sim_grow(s, s->tasks, &s->task_cap, s->task_count, sizeof *s->tasks);
    if (!tasks) return NO_INDEX;
    s->tasks = tasks;
    t.kind = kind;
    t.input = *input;
    t.result = ts_json_make_null();
    t.llm_answer = NO_INDEX;
    s->tasks[s->task_count] = t;
    return s->task_count++;
}

/* An edit: a user entry replacing transcript position `at` (an index into the transcript as it
 * is now); its parent is the transcript's entry at-1, none when at = 0, the leaf when at is at
 * or beyond the end. */
static void sim_apply_edit(sim *s, size_t event_index) {
    const ts_event *e = &s->scenario->events[event_index];
    size_t count;
    size_t *path = sim_path(s, s->leaf, &count);
    if (!path) return;
    size_t k = e->branch_at < count ? (size_t)e->branch_at : count;
    sim_append(s, TS_ENTRY_USER, text_content(s, e->text), k == 0 ? NO_INDEX : path[k - 1], FROM_BRANCH, event_index);
    s->applied[event_index] = true;
    s->branched = true;
}

/* The inbox, waiting while idle or about to run an LLM task: one user entry each, in order. */
static void sim_consume_inbox(sim *s) {
    for (; s->inbox_consumed < s->inbox_count && !s->out_of_memory; s->inbox_consumed++) {
        size_t event = s->inbox[s->inbox_consumed];
        if (s->scenario->events[event].kind == TS_EVENT_BRANCH) {
            sim_apply_edit(s, event);
            continue;
        }
        sim_append(s, TS_ENTRY_USER, text_content(s, s->scenario->events[event].text), s->leaf, FROM_SIGNAL,
                   s->signals_consumed++);
        s->applied[event] = true;
    }
    s->phase = SIM_LLM;
}

/* One LLM task on the transcript so far, and its answer as an assistant entry. */
static void sim_llm_step(sim *s) {
    size_t count;
    size_t *path = sim_path(s, s->leaf, &count);
    message_view *views = ts_arena_calloc(s->arena, count + 1, sizeof *views);
    ts_json input;
    if (!path || !views) {
        s->out_of_memory = true;
        return;
    }
    for (size_t i = 0; i < count; i++) {
        const sim_entry *e = &s->entries[path[i]];
        views[i] = (message_view){e->role, &e->content, e->timestamp};
    }
    if (!llm_input(s->arena, views, count, &input)) {
        s->out_of_memory = true;
        return;
    }
    bool created = false;
    size_t t = sim_task_for(s, ts_str_from(llm_kind), &input, &created);
    if (t == NO_INDEX) return;
    if (created) {
        if (s->llm_used >= s->scenario->llm_count) {
            s->stuck = true;
            format_into(s->stuck_why, sizeof s->stuck_why,
                        "LLM task %zu needs llm[%zu], and the scenario scripts %zu answers (the testee should answer "
                        "with an error)",
                        s->llm_used, s->llm_used, s->scenario->llm_count);
            s->task_count--; /* never recorded */
            return;
        }
        s->tasks[t].status = TS_TASK_COMPLETED;
        s->tasks[t].result = s->scenario->llm[s->llm_used];
        s->tasks[t].llm_answer = s->llm_used++;
    }
    size_t k = sim_append(s, TS_ENTRY_ASSISTANT, s->tasks[t].result, s->leaf, FROM_LLM, t);
    if (k == NO_INDEX) return;
    const ts_json *calls = ts_json_get(&s->entries[k].content, "toolCalls");
    if (calls && calls->kind == TS_JSON_ARRAY && calls->u.a.count > 0) {
        s->phase = SIM_TOOLS;
        s->calls = calls;
        s->call_index = 0;
    } else {
        s->phase = SIM_IDLE;
    }
}

/* The next pending tool call: its entry, or false when the execution suspends on it. */
static bool sim_tool_step(sim *s) {
    const ts_json *call = &s->calls->u.a.items[s->call_index];
    ts_str call_id = ts_json_string(ts_json_get(call, "callId"));
    ts_str name = ts_json_string(ts_json_get(call, "name"));
    ts_json input;
    if (!tool_input(s->arena, call_id, ts_json_get(call, "arguments"), &input)) {
        s->out_of_memory = true;
        return false;
    }
    bool created = false;
    size_t t = sim_task_for(s, name, &input, &created);
    if (t == NO_INDEX) return false;
    sim_task *task = &s->tasks[t];
    if (created) {
        task->call_id = call_id;
        const ts_tool_script *script = ts_scenario_tool(s->scenario, name);
        if (!script) {
            ts_buf message;
            ts_buf_init(&message);
            ts_buf_appendf(&message, "no tool named \"%.*s\"", (int)name.len, name.ptr);
            char *copy = message.data ? ts_arena_strndup(s->arena, message.data, message.len) : NULL;
            size_t len = message.len;
            ts_buf_free(&message);
            if (!copy) {
                s->out_of_memory = true;
                return false;
            }
            task->status = TS_TASK_FAILED;
            task->result = ts_json_make_string((ts_str){copy, len});
        } else if (script->async) {
            task->status = TS_TASK_PENDING;
        } else {
            task->status = script->failed ? TS_TASK_FAILED : TS_TASK_COMPLETED;
            task->result = script->result;
        }
    }
    if (task->status == TS_TASK_PENDING) {
        s->waiting_task = t;
        return false;
    }
    s->waiting_task = NO_INDEX;
    ts_json_builder b;
    ts_json_builder_init(&b, s->arena);
    ts_json_builder_add(&b, "callId", ts_json_make_string(call_id));
    ts_json_builder_add(&b, "name", ts_json_make_string(name));
    ts_json_builder_add(&b, task->status == TS_TASK_FAILED ? "error" : "result", task->result);
    ts_json content;
    if (!ts_json_builder_finish(&b, &content)) {
        s->out_of_memory = true;
        return false;
    }
    if (sim_append(s, TS_ENTRY_TOOL, content, s->leaf, FROM_TOOL, t) == NO_INDEX) return false;
    if (++s->call_index == s->calls->u.a.count) s->phase = SIM_LLM;
    return true;
}

/* The loop of SPEC §6.1, until the execution suspends. */
static void sim_run(sim *s) {
    while (!s->stuck && !s->out_of_memory) {
        if (s->phase != SIM_TOOLS && s->inbox_consumed < s->inbox_count)
            sim_consume_inbox(s);
        else if (s->phase == SIM_IDLE)
            return;
        else if (s->phase == SIM_LLM)
            sim_llm_step(s);
        else if (!sim_tool_step(s))
            return;
    }
}

static void sim_complete(sim *s, ts_str call_id) {
    for (size_t i = 0; i < s->task_count; i++) {
        sim_task *t = &s->tasks[i];
        if (t->status != TS_TASK_PENDING || !ts_str_eq(t->call_id, call_id)) continue;
        const ts_tool_script *script = ts_scenario_tool(s->scenario, t->kind);
        if (!script) continue;
        t->status = script->failed ? TS_TASK_FAILED : TS_TASK_COMPLETED;
        t->result = script->result;
    }
}

/* An edit event, under the reading being derived. */
static void sim_edit_arrives(sim *s, size_t event_index) {
    bool pending = s->phase == SIM_TOOLS;
    s->edit_while_pending |= pending;
    if (s->reading == EDITS_QUEUED) {
        s->inbox[s->inbox_count++] = event_index;
        return;
    }
    if (pending && s->waiting_task != NO_INDEX) s->tasks[s->waiting_task].status_open = true;
    s->waiting_task = NO_INDEX;
    s->calls = NULL;
    sim_apply_edit(s, event_index);
    s->phase = SIM_LLM;
}

static void sim_execute(sim *s) {
    s->leaf = NO_INDEX;
    s->waiting_task = NO_INDEX;
    size_t n = s->scenario->event_count;
    s->signals = ts_arena_calloc(s->arena, n + 1, sizeof *s->signals);
    s->inbox = ts_arena_calloc(s->arena, n + 1, sizeof *s->inbox);
    s->applied = ts_arena_calloc(s->arena, n + 1, sizeof *s->applied);
    if (!s->signals || !s->inbox || !s->applied) {
        s->out_of_memory = true;
        return;
    }
    sim_append(s, TS_ENTRY_USER, text_content(s, s->scenario->input), NO_INDEX, FROM_INPUT, 0);
    s->phase = SIM_LLM;
    sim_run(s);
    for (size_t i = 0; i < n && !s->stuck && !s->out_of_memory; i++) {
        const ts_event *e = &s->scenario->events[i];
        switch (e->kind) {
        case TS_EVENT_SIGNAL:
            s->signals[s->signal_count++] = e->text;
            s->inbox[s->inbox_count++] = i;
            break;
        case TS_EVENT_BRANCH: sim_edit_arrives(s, i); break;
        case TS_EVENT_COMPLETE: sim_complete(s, e->call_id); break;
        case TS_EVENT_RESTART: break; /* the execution continues from its journal: nothing changes */
        }
        sim_run(s);
    }
}

/* ------------------------------------------------------------------------ judging ---- */

typedef struct judge {
    const ts_scenario *scenario;
    journal_answer *answer;
    sim *sim;         /* the derivation; sim->stuck when the scenario cannot be run */
    size_t *expected; /* the derived transcript: indexes into sim->entries */
    size_t expected_count;
    ts_strmap entry_by_id; /* answer entryId -> first index in answer->entries */
    ts_strmap task_by_key; /* answer task key -> first index in answer->tasks */
    size_t *path;          /* the answer's path from its root to checkpoint.leafId */
    size_t path_count;
    bool path_known;
    bool *on_path; /* answer entries on that path */
    ts_findings *findings;
    ts_arena *arena;
    bool out_of_memory;
} judge;

static size_t answer_entry_index(const judge *j, ts_str id) {
    size_t at;
    return id.ptr && ts_strmap_get(&j->entry_by_id, 0, id, &at) ? at : NO_INDEX;
}

static size_t answer_task_index(const judge *j, ts_str key) {
    size_t at;
    return ts_strmap_get(&j->task_by_key, 0, key, &at) ? at : NO_INDEX;
}

/* The answer's path from its root to entries[leaf], root first, via parentId; false when a
 * parent is missing or the parents cycle. */
static bool answer_path(judge *j, size_t leaf, size_t **out, size_t *count) {
    size_t n = 0;
    for (size_t at = leaf; at != NO_INDEX; at = answer_entry_index(j, j->answer->entries[at].parent_id)) {
        if (++n > j->answer->entry_count) return false;
        if (j->answer->entries[at].parent_id.ptr && answer_entry_index(j, j->answer->entries[at].parent_id) == NO_INDEX)
            return false;
    }
    size_t *path = ts_arena_calloc(j->arena, n + 1, sizeof *path);
    if (!path) {
        j->out_of_memory = true;
        return false;
    }
    size_t i = n;
    for (size_t at = leaf; at != NO_INDEX; at = answer_entry_index(j, j->answer->entries[at].parent_id)) path[--i] = at;
    *out = path;
    *count = n;
    return true;
}

/* ---- J1 ---- */

static bool uuid_v4_text(ts_str s) {
    if (s.len != 36) return false;
    for (size_t i = 0; i < 36; i++) {
        char c = s.ptr[i];
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? c != '-' : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    }
    return s.ptr[14] == '4' && strchr("89ab", s.ptr[19]) != NULL;
}

/* The positions of a UUIDv4's 30 wholly random hex digits (not the dashes, the version digit
 * or the variant digit). */
static bool random_digit(size_t i) { return i != 8 && i != 13 && i != 14 && i != 18 && i != 19 && i != 23; }

/* "Version 4 (random)", judged statistically: among 30 random hex digits, 20 or more zeros has
 * odds below 1e-16, and two ids agreeing on 24 or more positions below 1e-22, so a finding is
 * a counter or a clock, never bad luck. Only consecutive entries are compared (what a counter
 * makes alike), which keeps this linear. */
static void check_randomness(judge *j, size_t i) {
    const journal_answer *a = j->answer;
    ts_str id = a->entries[i].id;
    size_t zeros = 0;
    for (size_t k = 0; k < 36; k++) zeros += random_digit(k) && id.ptr[k] == '0';
    char text[EXCERPT];
    str_excerpt(id, text, sizeof text);
    if (zeros >= 20) {
        ts_findings_add(
            j->findings, "J1",
            "entries[%zu].entryId %s has %zu zeros among its 30 random hex digits: not a random (version 4) "
            "UUID (a counter?)",
            i, text, zeros);
        return;
    }
    if (i == 0 || !uuid_v4_text(a->entries[i - 1].id) || ts_str_eq(a->entries[i - 1].id, id)) return;
    size_t same = 0;
    for (size_t k = 0; k < 36; k++) same += random_digit(k) && id.ptr[k] == a->entries[i - 1].id.ptr[k];
    if (same >= 24) {
        char previous[EXCERPT];
        str_excerpt(a->entries[i - 1].id, previous, sizeof previous);
        ts_findings_add(
            j->findings, "J1",
            "entries[%zu].entryId %s and entries[%zu].entryId %s agree on %zu of their 30 random hex digits: "
            "not independent random (version 4) UUIDs (a counter?)",
            i - 1, previous, i, text, same);
    }
}

static void check_entry_ids(judge *j) {
    const journal_answer *a = j->answer;
    for (size_t i = 0; i < a->entry_count; i++) {
        char id[EXCERPT];
        str_excerpt(a->entries[i].id, id, sizeof id);
        if (!uuid_v4_text(a->entries[i].id))
            ts_findings_add(j->findings, "J1",
                            "entries[%zu].entryId %s is not a canonical version-4 UUID (lowercase 8-4-4-4-12 hex, "
                            "version digit 4, variant digit 8, 9, a or b)",
                            i, id);
        else
            check_randomness(j, i);
        size_t first = answer_entry_index(j, a->entries[i].id);
        if (first != i) {
            char e1[EXCERPT], e2[EXCERPT];
            entry_excerpt(a->entries[first].role, a->entries[first].content, e1, sizeof e1);
            entry_excerpt(a->entries[i].role, a->entries[i].content, e2, sizeof e2);
            ts_findings_add(j->findings, "J1", "entries[%zu] (%s) and entries[%zu] (%s) share the entry id %s", first,
                            e1, i, e2, id);
        }
    }
}

/* ---- J2 ---- */

static void check_tree(judge *j) {
    const journal_answer *a = j->answer;
    if (!ts_str_eq(a->execution_id, ts_str_from(j->scenario->execution_id))) {
        char got[EXCERPT];
        str_excerpt(a->execution_id, got, sizeof got);
        ts_findings_add(j->findings, "J2", "executionId: expected \"%s\" (the scenario's), got %s",
                        j->scenario->execution_id, got);
    }
    bool parents_known = true;
    for (size_t i = 0; i < a->entry_count; i++) {
        if (a->entries[i].parent_id.ptr && answer_entry_index(j, a->entries[i].parent_id) == NO_INDEX) {
            char got[EXCERPT];
            str_excerpt(a->entries[i].parent_id, got, sizeof got);
            ts_findings_add(j->findings, "J2", "entries[%zu].parentId %s names no entry of the journal", i, got);
            parents_known = false;
        }
    }
    /* Cycles, in linear time: walk up from each entry not yet known to reach a root. */
    enum { UNSEEN, ON_THIS_WALK, REACHES_ROOT };
    unsigned char *seen = parents_known ? ts_arena_calloc(j->arena, a->entry_count + 1, 1) : NULL;
    if (parents_known && !seen) {
        j->out_of_memory = true;
        return;
    }
    for (size_t i = 0; parents_known && i < a->entry_count; i++) {
        size_t at = i;
        while (at != NO_INDEX && seen[at] == UNSEEN) {
            seen[at] = ON_THIS_WALK;
            at = answer_entry_index(j, a->entries[at].parent_id);
        }
        if (at != NO_INDEX && seen[at] == ON_THIS_WALK) {
            ts_findings_add(j->findings, "J2",
                            "entries[%zu]: following parentId from it never reaches a root (the parents form a cycle)",
                            i);
            parents_known = false;
        }
        for (at = i; at != NO_INDEX && seen[at] == ON_THIS_WALK; at = answer_entry_index(j, a->entries[at].parent_id))
            seen[at] = REACHES_ROOT;
    }
    j->on_path = ts_arena_calloc(j->arena, a->entry_count + 1, sizeof *j->on_path);
    if (!j->on_path) {
        j->out_of_memory = true;
        return;
    }
    if (!a->leaf_id.ptr) {
        j->path_known = true; /* an empty path */
    } else {
        size_t leaf = answer_entry_index(j, a->leaf_id);
        char got[EXCERPT];
        str_excerpt(a->leaf_id, got, sizeof got);
        if (leaf == NO_INDEX)
            ts_findings_add(j->findings, "J2", "checkpoint.leafId %s names no entry of the journal", got);
        else if (parents_known)
            j->path_known = answer_path(j, leaf, &j->path, &j->path_count);
    }
    if (!j->path_known) return;
    for (size_t i = 0; i < j->path_count; i++) j->on_path[j->path[i]] = true;
    size_t n = a->transcript_count < j->path_count ? a->transcript_count : j->path_count;
    for (size_t i = 0; i < n; i++) {
        const answer_entry *want = &a->entries[j->path[i]];
        if (!ts_json_equal(a->transcript[i].json, want->json)) {
            char w[EXCERPT], g[EXCERPT];
            ts_check_excerpt(want->json, w, sizeof w);
            ts_check_excerpt(a->transcript[i].json, g, sizeof g);
            ts_findings_add(j->findings, "J2",
                            "transcript[%zu]: expected entries[%zu] %s (the path from the root to the checkpoint's "
                            "leaf), got %s",
                            i, j->path[i], w, g);
        }
    }
    if (a->transcript_count != j->path_count)
        ts_findings_add(
            j->findings, "J2",
            "transcript has %zu entries; the path from the root to the checkpoint's leaf in \"entries\" has "
            "%zu",
            a->transcript_count, j->path_count);
}

/* ---- J3 ---- */

static void check_transcript(judge *j) {
    const journal_answer *a = j->answer;
    const sim *s = j->sim;
    size_t n = a->transcript_count < j->expected_count ? a->transcript_count : j->expected_count;
    for (size_t i = 0; i < n; i++) {
        const sim_entry *want = &s->entries[j->expected[i]];
        const answer_entry *got = &a->transcript[i];
        if (want->role == got->role && ts_json_equal(&want->content, got->content)) continue;
        char w[EXCERPT], g[EXCERPT];
        entry_excerpt(want->role, &want->content, w, sizeof w);
        entry_excerpt(got->role, got->content, g, sizeof g);
        ts_findings_add(j->findings, "J3", "transcript[%zu]: expected %s, got %s", i, w, g);
    }
    if (a->transcript_count < j->expected_count) {
        char w[EXCERPT];
        const sim_entry *missing = &s->entries[j->expected[a->transcript_count]];
        entry_excerpt(missing->role, &missing->content, w, sizeof w);
        ts_findings_add(j->findings, "J3", "transcript has %zu entries, expected %zu: transcript[%zu] should be %s",
                        a->transcript_count, j->expected_count, a->transcript_count, w);
    } else if (a->transcript_count > j->expected_count) {
        char g[EXCERPT];
        const answer_entry *extra = &a->transcript[j->expected_count];
        entry_excerpt(extra->role, extra->content, g, sizeof g);
        ts_findings_add(j->findings, "J3",
                        "transcript has %zu entries, expected %zu: transcript[%zu] is %s, one too many",
                        a->transcript_count, j->expected_count, j->expected_count, g);
    }
}

/* ---- J4 ---- */

static void role_counts_text(const size_t counts[3], char *out, size_t max) {
    format_into(out, max, "%zu (%zu user, %zu assistant, %zu tool)", counts[0] + counts[1] + counts[2], counts[0],
                counts[1], counts[2]);
}

static void check_entry_counts(judge *j) {
    const journal_answer *a = j->answer;
    const sim *s = j->sim;
    size_t want[3] = {0, 0, 0}, got[3] = {0, 0, 0};
    for (size_t i = 0; i < s->entry_count; i++) want[s->entries[i].role]++;
    for (size_t i = 0; i < a->entry_count; i++) got[a->entries[i].role]++;
    if (memcmp(want, got, sizeof want) != 0) {
        char w[120], g[120];
        role_counts_text(want, w, sizeof w);
        role_counts_text(got, g, sizeof g);
        ts_findings_add(j->findings, "J4", "entries: expected %s, abandoned branches included; got %s", w, g);
        return;
    }
    for (size_t i = 0; i < a->entry_count; i++) {
        const sim_entry *e = &s->entries[i];
        if (e->role == a->entries[i].role && ts_json_equal(&e->content, a->entries[i].content)) continue;
        char w[EXCERPT], g[EXCERPT];
        entry_excerpt(e->role, &e->content, w, sizeof w);
        entry_excerpt(a->entries[i].role, a->entries[i].content, g, sizeof g);
        ts_findings_add(j->findings, "J4", "entries[%zu] (in commit order): expected %s, got %s", i, w, g);
    }
}

/* ---- J5 ---- */

static void check_task_names(judge *j) {
    const journal_answer *a = j->answer;
    for (size_t i = 0; i < a->task_count; i++) {
        const answer_task *t = &a->tasks[i];
        ts_json parsed;
        ts_error err;
        ts_error_clear(&err);
        ts_str canonical = t->input;
        if (!ts_canon_parse(j->arena, t->input.ptr, t->input.len, &parsed, &err)) {
            ts_findings_add(j->findings, "J5", "tasks[%zu].input is not I-JSON text (line %d, column %d: %s)", i,
                            err.line, err.column, err.message);
        } else {
            ts_buf buf;
            ts_buf_init(&buf);
            if (!ts_canon_write(&buf, &parsed, &err)) {
                ts_findings_add(j->findings, "J5", "tasks[%zu].input cannot be canonicalised: %s", i, err.message);
            } else if (buf.len != t->input.len || memcmp(buf.data, t->input.ptr, buf.len) != 0) {
                char w[EXCERPT], g[EXCERPT];
                str_excerpt((ts_str){buf.data, buf.len}, w, sizeof w);
                str_excerpt(t->input, g, sizeof g);
                ts_findings_add(j->findings, "J5",
                                "tasks[%zu].input is not in RFC 8785 canonical form: expected %s, got %s", i, w, g);
                char *copy = ts_arena_strndup(j->arena, buf.data, buf.len);
                if (copy)
                    canonical = (ts_str){copy, buf.len};
                else
                    j->out_of_memory = true;
            }
            if (buf.failed) j->out_of_memory = true;
            ts_buf_free(&buf);
        }
        char key[TS_TASK_KEY_TEXT_LEN + 1], id[TS_UUID_TEXT_LEN + 1];
        if (!ts_task_key(j->scenario->execution_id, t->kind, canonical, key, &err)) continue;
        if (!ts_str_eq_cstr(t->key, key)) {
            char g[EXCERPT], kind[EXCERPT];
            str_excerpt(t->key, g, sizeof g);
            str_excerpt(t->kind, kind, sizeof kind);
            ts_findings_add(j->findings, "J5",
                            "tasks[%zu].key: expected \"%s\" (SHA-256 of execution %s, kind %s and the canonical "
                            "input), got %s",
                            i, key, j->scenario->execution_id, kind, g);
        }
        if (t->key.len == TS_TASK_KEY_TEXT_LEN && !memchr(t->key.ptr, '\0', t->key.len)) {
            char given[TS_TASK_KEY_TEXT_LEN + 1];
            memcpy(given, t->key.ptr, t->key.len);
            given[t->key.len] = '\0';
            if (ts_task_id(given, id, &err) && !ts_str_eq_cstr(t->id, id)) {
                char g[EXCERPT];
                str_excerpt(t->id, g, sizeof g);
                ts_findings_add(j->findings, "J5",
                                "tasks[%zu].taskId: expected \"%s\" (UUIDv5 of its key \"%s\"), got %s", i, id, given,
                                g);
            }
        }
    }
}

/* ---- J6 ---- */

static void describe_sim_task(const sim_task *t, char *out, size_t max) {
    if (t->llm_answer != NO_INDEX)
        format_into(out, max, "the LLM task answered by llm[%zu]", t->llm_answer);
    else
        format_into(out, max, "the task of call \"%.*s\" (tool \"%.*s\")", (int)t->call_id.len, t->call_id.ptr,
                    (int)t->kind.len, t->kind.ptr);
}

/* The answer task (not yet matched) that stands for sim task t under another name: for a tool
 * call, the task of that kind whose input names the same call id; for an LLM task, the one
 * whose input is the same value. NO_INDEX when none. */
static size_t misnamed_task(judge *j, const sim_task *t, const bool *matched) {
    for (size_t i = 0; i < j->answer->task_count; i++) {
        const answer_task *at = &j->answer->tasks[i];
        if (matched[i] || !ts_str_eq(at->kind, t->kind)) continue;
        ts_json parsed;
        ts_error err;
        if (!ts_canon_parse(j->arena, at->input.ptr, at->input.len, &parsed, &err)) continue;
        if (t->llm_answer != NO_INDEX ? ts_json_equal(&parsed, &t->input)
                                      : ts_str_eq(ts_json_string(ts_json_get(&parsed, "callId")), t->call_id))
            return i;
    }
    return NO_INDEX;
}

static void check_tasks(judge *j) {
    const journal_answer *a = j->answer;
    const sim *s = j->sim;
    bool *matched = ts_arena_calloc(j->arena, a->task_count + 1, sizeof *matched);
    if (!matched) {
        j->out_of_memory = true;
        return;
    }
    ts_strmap by_id;
    ts_strmap_init(&by_id);
    for (size_t i = 0; i < a->task_count; i++) {
        size_t first;
        if (ts_strmap_get(&by_id, 0, a->tasks[i].id, &first)) {
            char id[EXCERPT];
            str_excerpt(a->tasks[i].id, id, sizeof id);
            ts_findings_add(j->findings, "J6",
                            "tasks[%zu] and tasks[%zu] share the task id %s: a task is recorded once", first, i, id);
        } else if (!ts_strmap_put(&by_id, 0, a->tasks[i].id, i)) {
            j->out_of_memory = true;
        }
    }
    ts_strmap_free(&by_id);
    for (size_t k = 0; k < s->task_count; k++) {
        const sim_task *t = &s->tasks[k];
        char what[EXCERPT];
        describe_sim_task(t, what, sizeof what);
        size_t i = answer_task_index(j, ts_str_from(t->key));
        if (i != NO_INDEX && matched[i]) i = NO_INDEX;
        if (i == NO_INDEX) {
            i = misnamed_task(j, t, matched);
            if (i != NO_INDEX) {
                char w[EXCERPT], g[EXCERPT];
                str_excerpt(t->canonical, w, sizeof w);
                str_excerpt(a->tasks[i].input, g, sizeof g);
                ts_findings_add(j->findings, "J5",
                                "tasks[%zu] is %s but is not named by its content: input expected %s (key %s), got %s",
                                i, what, w, t->key, g);
            }
        }
        if (i == NO_INDEX) {
            char input[EXCERPT];
            str_excerpt(t->canonical, input, sizeof input);
            ts_findings_add(j->findings, "J6",
                            "no task of tasks is %s: expected kind \"%.*s\", taskId %s, key %s, input %s", what,
                            (int)t->kind.len, t->kind.ptr, t->id, t->key, input);
            continue;
        }
        matched[i] = true;
        const answer_task *got = &a->tasks[i];
        bool status_ok = got->status == t->status || (t->status_open && got->status == TS_TASK_PENDING);
        if (!status_ok) {
            ts_findings_add(j->findings, "J6", "tasks[%zu] (%s): status expected %s%s, got %s", i, what,
                            ts_task_status_name(t->status), t->status_open ? " or pending (an edit abandoned it)" : "",
                            ts_task_status_name(got->status));
            continue;
        }
        const ts_json null_value = ts_json_make_null();
        const ts_json *want = got->status == TS_TASK_PENDING ? &null_value : &t->result;
        if (!ts_json_equal(&got->result, want)) {
            char w[EXCERPT], g[EXCERPT];
            ts_check_excerpt(want, w, sizeof w);
            ts_check_excerpt(&got->result, g, sizeof g);
            ts_findings_add(j->findings, "J6", "tasks[%zu] (%s, %s): result expected %s, got %s", i, what,
                            ts_task_status_name(got->status), w, g);
        }
    }
    for (size_t i = 0; i < a->task_count; i++) {
        if (matched[i]) continue;
        char kind[EXCERPT], key[EXCERPT];
        str_excerpt(a->tasks[i].kind, kind, sizeof kind);
        str_excerpt(a->tasks[i].key, key, sizeof key);
        ts_findings_add(
            j->findings, "J6",
            "tasks[%zu] (kind %s, key %s, status %s) is not a task of the scenario's execution (run twice, or "
            "named from another input)",
            i, kind, key, ts_task_status_name(a->tasks[i].status));
    }
}

/* ---- J7 ---- */

/* Says where the nearest llm-request task's input differs from `want` (a {"messages": [...]}). */
static bool nearest_llm_task(judge *j, const ts_json *want, size_t *task_out, char *where, size_t max) {
    const ts_json *want_messages = ts_json_get(want, "messages");
    size_t best = NO_INDEX, best_equal = 0;
    const ts_json *best_messages = NULL;
    for (size_t i = 0; i < j->answer->task_count; i++) {
        const answer_task *t = &j->answer->tasks[i];
        if (!ts_str_eq_cstr(t->kind, llm_kind)) continue;
        ts_json parsed;
        ts_error err;
        if (!ts_canon_parse(j->arena, t->input.ptr, t->input.len, &parsed, &err)) continue;
        const ts_json *messages = ts_json_get(&parsed, "messages");
        if (!messages || messages->kind != TS_JSON_ARRAY || messages->u.a.count != want_messages->u.a.count) continue;
        size_t equal = 0;
        for (size_t m = 0; m < messages->u.a.count; m++)
            equal += ts_json_equal(&messages->u.a.items[m], &want_messages->u.a.items[m]);
        if (best == NO_INDEX || equal > best_equal) {
            best = i;
            best_equal = equal;
            best_messages = messages;
        }
    }
    if (best == NO_INDEX) return false;
    *task_out = best;
    for (size_t m = 0; m < want_messages->u.a.count; m++) {
        static const char *const fields[] = {"role", "content", "timestamp"};
        for (size_t f = 0; f < 3; f++) {
            const ts_json *w = ts_json_get(&want_messages->u.a.items[m], fields[f]);
            const ts_json *g = ts_json_get(&best_messages->u.a.items[m], fields[f]);
            if (g && ts_json_equal(w, g)) continue;
            char we[EXCERPT], ge[EXCERPT];
            ts_check_excerpt(w, we, sizeof we);
            ts_check_excerpt(g, ge, sizeof ge);
            format_into(where, max, "messages[%zu].%s: expected %s (the stored entry's), got %s", m, fields[f], we, ge);
            return true;
        }
    }
    format_into(where, max, "other members of the input");
    return true;
}

static void check_llm_inputs(judge *j) {
    const journal_answer *a = j->answer;
    for (size_t i = 0; i < a->entry_count; i++) {
        const answer_entry *e = &a->entries[i];
        if (e->role != TS_ENTRY_ASSISTANT) continue;
        size_t parent = answer_entry_index(j, e->parent_id);
        size_t *path = NULL, count = 0;
        if (e->parent_id.ptr && (parent == NO_INDEX || !answer_path(j, parent, &path, &count))) continue; /* J2 */
        message_view *views = ts_arena_calloc(j->arena, count + 1, sizeof *views);
        ts_json input;
        if (!views) {
            j->out_of_memory = true;
            return;
        }
        for (size_t m = 0; m < count; m++) {
            const answer_entry *p = &a->entries[path[m]];
            views[m] = (message_view){p->role, p->content, p->timestamp};
        }
        if (!llm_input(j->arena, views, count, &input)) {
            j->out_of_memory = true;
            return;
        }
        ts_str canonical;
        char key[TS_TASK_KEY_TEXT_LEN + 1], id[TS_UUID_TEXT_LEN + 1];
        ts_error err;
        naming_status named =
            name_task(j->scenario->execution_id, ts_str_from(llm_kind), &input, j->arena, &canonical, key, id, &err);
        if (named == NAMING_OUT_OF_MEMORY) j->out_of_memory = true;
        if (named != NAMED) continue;
        size_t t = answer_task_index(j, ts_str_from(key));
        if (t != NO_INDEX && ts_str_eq_cstr(a->tasks[t].kind, llm_kind)) continue;
        char content[EXCERPT], where[700];
        ts_check_excerpt(e->content, content, sizeof content);
        size_t nearest;
        if (nearest_llm_task(j, &input, &nearest, where, sizeof where))
            ts_findings_add(j->findings, "J7",
                            "entries[%zu] (assistant %s): no llm-request task has the transcript before it (%zu "
                            "messages, stored timestamps) as input; the nearest, tasks[%zu], differs at %s",
                            i, content, count, nearest, where);
        else
            ts_findings_add(j->findings, "J7",
                            "entries[%zu] (assistant %s): no llm-request task has the transcript before it (%zu "
                            "messages, stored timestamps) as input (expected key %s)",
                            i, content, count, key);
    }
}

/* ---- J8 ---- */

static void check_timestamps(judge *j) {
    if (!j->scenario->has_clock) return; /* the wall clock's: nothing to re-derive */
    const journal_answer *a = j->answer;
    for (size_t i = 0; i < a->entry_count; i++) {
        char want[TIMESTAMP_TEXT];
        clock_timestamp(j->scenario, i, want);
        ts_str got = a->entries[i].timestamp;
        if (ts_str_eq_cstr(got, want)) continue;
        char g[EXCERPT];
        str_excerpt(got, g, sizeof g);
        ts_instant wi, gi;
        bool same_instant = ts_instant_parse(want, strlen(want), &wi, NULL) &&
                            ts_instant_parse(got.ptr, got.len, &gi, NULL) && ts_instant_compare(wi, gi) == 0;
        ts_findings_add(j->findings, "J8",
                        "entries[%zu].timestamp: expected \"%s\" (clock.start + %zu x %lld ms), got %s%s", i, want, i,
                        (long long)j->scenario->clock_step_ms, g,
                        same_instant ? " (the same instant, not written YYYY-MM-DDThh:mm:ss.fffffff+00:00)" : "");
    }
}

/* ---- J9 ---- */

static void check_tool_runs(judge *j) {
    const journal_answer *a = j->answer;
    const answer_entry *opener = NULL; /* the assistant entry whose calls are being answered */
    size_t opener_at = 0, next_call = 0, call_count = 0;
    for (size_t p = 0; p < a->transcript_count; p++) {
        const answer_entry *e = &a->transcript[p];
        const ts_json *calls = opener ? ts_json_get(opener->content, "toolCalls") : NULL;
        bool pending = opener && next_call < call_count;
        if (e->role == TS_ENTRY_TOOL) {
            ts_str call_id = ts_json_string(ts_json_get(e->content, "callId"));
            char got[EXCERPT];
            str_excerpt(call_id, got, sizeof got);
            if (!pending) {
                ts_findings_add(j->findings, "J9",
                                "transcript[%zu]: a tool entry (call %s) that answers no pending tool call", p, got);
                continue;
            }
            ts_str want = ts_json_string(ts_json_get(&calls->u.a.items[next_call], "callId"));
            if (!ts_str_eq(want, call_id)) {
                char w[EXCERPT];
                str_excerpt(want, w, sizeof w);
                ts_findings_add(
                    j->findings, "J9",
                    "transcript[%zu]: expected the tool entry of call %s (call %zu of %zu of transcript[%zu]), "
                    "got call %s",
                    p, w, next_call + 1, call_count, opener_at, got);
            }
            next_call++;
            continue;
        }
        if (pending) {
            /* An edit may cut a tool run (the derivation has a user entry here too); nothing else may. */
            bool edit = e->role == TS_ENTRY_USER && j->sim && !j->sim->stuck && p < j->expected_count &&
                        j->sim->entries[j->expected[p]].role == TS_ENTRY_USER;
            if (!edit) {
                char g[EXCERPT];
                entry_excerpt(e->role, e->content, g, sizeof g);
                ts_findings_add(j->findings, "J9",
                                "transcript[%zu]: %s comes before the tool entries of calls %zu-%zu of transcript[%zu] "
                                "(%s)",
                                p, g, next_call + 1, call_count, opener_at,
                                e->role == TS_ENTRY_ASSISTANT ? "an LLM task ran while tool calls were pending"
                                                              : "signals wait for pending tool calls");
            }
        }
        opener = NULL;
        if (e->role == TS_ENTRY_ASSISTANT) {
            const ts_json *own = ts_json_get(e->content, "toolCalls");
            if (own && own->kind == TS_JSON_ARRAY && own->u.a.count > 0) {
                opener = e;
                opener_at = p;
                next_call = 0;
                call_count = own->u.a.count;
            }
        }
    }
}

/* ---- J10 ---- */

static bool user_text(ts_entry_role role, const ts_json *content, ts_str *out) {
    if (role != TS_ENTRY_USER) return false;
    *out = ts_json_string(ts_json_get(content, "text"));
    return out->ptr != NULL;
}

static bool is_signal_text(const sim *s, ts_str text) {
    for (size_t i = 0; i < s->signal_count; i++)
        if (ts_str_eq(s->signals[i], text)) return true;
    return false;
}

static ts_str inbox_text(const ts_json *item) {
    return item->kind == TS_JSON_OBJECT ? ts_json_string(ts_json_get(item, "text")) : (ts_str){NULL, 0};
}

/* "["a","b"]" — the delivered signals' texts, for messages. */
static void signal_list(const sim *s, char *out, size_t max) {
    ts_buf buf;
    ts_buf_init(&buf);
    ts_buf_append_char(&buf, '[');
    for (size_t i = 0; i < s->signal_count; i++) {
        if (i) ts_buf_append_char(&buf, ',');
        ts_codec_write_string(&buf, s->signals[i]);
    }
    ts_buf_append_char(&buf, ']');
    format_into(out, max, "%s", buf.data && !buf.failed ? buf.data : "(out of memory)");
    ts_buf_free(&buf);
}

/* The answer's inbox: every delivered signal, {"text": s}, in delivery order; the edits may be
 * listed among them in arrival order (SPEC §6 leaves it open: the reference lists them), and
 * nothing else. signalsConsumed counts the listed items that have become entries. */
static void check_inbox(judge *j) {
    const journal_answer *a = j->answer;
    const sim *s = j->sim;
    const ts_scenario *sc = j->scenario;
    const ts_json *items = a->signals;
    size_t n = items->u.a.count, m = 0;
    size_t *events = ts_arena_calloc(j->arena, sc->event_count + 1, sizeof *events);
    bool *fits = events ? ts_arena_calloc(j->arena, (sc->event_count + 1) * (n + 1), sizeof *fits) : NULL;
    if (!fits) {
        j->out_of_memory = true;
        return;
    }
    for (size_t e = 0; e < sc->event_count; e++)
        if (sc->events[e].kind == TS_EVENT_SIGNAL || sc->events[e].kind == TS_EVENT_BRANCH) events[m++] = e;
            /* fits[e][i]: events[e..] can be listed as items[i..] */
#define FITS(e, i) fits[(e) * (n + 1) + (i)]
    for (size_t e = m + 1; e-- > 0;) {
        for (size_t i = n + 1; i-- > 0;) {
            if (e == m) {
                FITS(e, i) = i == n;
                continue;
            }
            const ts_event *ev = &sc->events[events[e]];
            bool listed = i < n && ts_str_eq(inbox_text(&items->u.a.items[i]), ev->text) && FITS(e + 1, i + 1);
            FITS(e, i) = listed || (ev->kind == TS_EVENT_BRANCH && FITS(e + 1, i));
        }
    }
    size_t consumed = s->signals_consumed;
    if (!FITS(0, 0)) {
        char want[EXCERPT * 2], got[EXCERPT * 2];
        signal_list(s, want, sizeof want);
        ts_check_excerpt(items, got, sizeof got);
        ts_findings_add(j->findings, "J10",
                        "signals: expected the delivered signals %s as {\"text\": s} in delivery order (edits may be "
                        "listed among them), got %s",
                        want, got);
    } else {
        consumed = 0;
        for (size_t e = 0, i = 0; e < m; e++) {
            const ts_event *ev = &sc->events[events[e]];
            if (i < n && ts_str_eq(inbox_text(&items->u.a.items[i]), ev->text) && FITS(e + 1, i + 1)) {
                consumed += s->applied[events[e]];
                i++;
            }
        }
    }
#undef FITS
    if (a->signals_consumed != consumed)
        ts_findings_add(j->findings, "J10", "checkpoint.signalsConsumed: expected %zu (%s), got %llu", consumed,
                        s->phase == SIM_IDLE ? "every signal listed: the execution is idle"
                                             : "the signals listed that became entries before the pending tool call",
                        (unsigned long long)a->signals_consumed);
}

static void check_signals(judge *j) {
    const journal_answer *a = j->answer;
    const sim *s = j->sim;
    check_inbox(j);
    /* Each signal's text: as many user entries as the execution makes with that text. */
    for (size_t i = 0; i < s->signal_count; i++) {
        bool first = true;
        for (size_t k = 0; k < i; k++) first &= !ts_str_eq(s->signals[k], s->signals[i]);
        if (!first) continue;
        size_t want = 0, have = 0;
        ts_str text;
        for (size_t k = 0; k < s->entry_count; k++)
            want += user_text(s->entries[k].role, &s->entries[k].content, &text) && ts_str_eq(text, s->signals[i]);
        for (size_t k = 0; k < a->entry_count; k++)
            have += user_text(a->entries[k].role, a->entries[k].content, &text) && ts_str_eq(text, s->signals[i]);
        if (want != have) {
            char w[EXCERPT];
            str_excerpt(s->signals[i], w, sizeof w);
            ts_findings_add(j->findings, "J10",
                            "signal %s (signals[%zu]): expected %zu user entr%s with that text, got %zu (%s)", w, i,
                            want, want == 1 ? "y" : "ies", have, have > want ? "doubled" : "lost");
        }
    }
    /* ... in delivery order. */
    size_t ws = 0, gs = 0;
    for (;;) {
        ts_str wt = {NULL, 0}, gt = {NULL, 0};
        while (ws < s->entry_count &&
               !(user_text(s->entries[ws].role, &s->entries[ws].content, &wt) && is_signal_text(s, wt)))
            ws++;
        while (gs < a->entry_count &&
               !(user_text(a->entries[gs].role, a->entries[gs].content, &gt) && is_signal_text(s, gt)))
            gs++;
        if (ws == s->entry_count || gs == a->entry_count) break;
        if (!ts_str_eq(wt, gt)) {
            char w[EXCERPT], g[EXCERPT];
            str_excerpt(wt, w, sizeof w);
            str_excerpt(gt, g, sizeof g);
            ts_findings_add(j->findings, "J10",
                            "entries[%zu]: expected the user entry of signal %s (delivery order), got %s", gs, w, g);
            break;
        }
        ws++;
        gs++;
    }
}

/* ---- J11 ---- */

static void check_checkpoint(judge *j) {
    const journal_answer *a = j->answer;
    const sim *s = j->sim;
    if (a->transcript_count > 0) {
        ts_str last = a->transcript[a->transcript_count - 1].id;
        if (!ts_str_eq(a->leaf_id, last)) {
            char w[EXCERPT], g[EXCERPT];
            str_excerpt(last, w, sizeof w);
            str_excerpt(a->leaf_id, g, sizeof g);
            ts_findings_add(j->findings, "J11", "checkpoint.leafId: expected %s (the last transcript entry), got %s", w,
                            g);
        }
    }
    ts_str phase = ts_json_string(ts_json_get(a->state, "phase"));
    char got[EXCERPT];
    str_excerpt(phase, got, sizeof got);
    if (s->phase == SIM_IDLE) {
        if (!ts_str_eq_cstr(phase, "idle"))
            ts_findings_add(
                j->findings, "J11",
                "checkpoint.state.phase: expected \"idle\" (the turn is over, waiting for a signal), got %s", got);
        return;
    }
    if (s->phase != SIM_TOOLS || s->waiting_task == NO_INDEX) return; /* the derivation always suspends in one of two */
    const sim_task *t = &s->tasks[s->waiting_task];
    char what[EXCERPT];
    describe_sim_task(t, what, sizeof what);
    if (!ts_str_eq_cstr(phase, "tools")) {
        ts_findings_add(j->findings, "J11", "checkpoint.state.phase: expected \"tools\" (waiting for %s), got %s", what,
                        got);
        return;
    }
    const ts_json *index = ts_json_get(a->state, "pendingToolIndex");
    bool index_ok =
        index && ((index->kind == TS_JSON_INT && index->u.i >= 0 && (uint64_t)index->u.i == s->call_index) ||
                  (index->kind == TS_JSON_REAL && index->u.r == (double)s->call_index));
    if (!index_ok) {
        char g[EXCERPT];
        ts_check_excerpt(index, g, sizeof g);
        ts_findings_add(j->findings, "J11", "checkpoint.state.pendingToolIndex: expected %zu (waiting for %s), got %s",
                        s->call_index, what, g);
    }
    const ts_json *pending = ts_json_get(a->state, "pendingToolCalls");
    bool calls_ok = pending && pending->kind == TS_JSON_ARRAY && pending->u.a.count == s->calls->u.a.count;
    for (size_t i = 0; calls_ok && i < pending->u.a.count; i++) {
        const ts_json *item = &pending->u.a.items[i];
        ts_str want = ts_json_string(ts_json_get(&s->calls->u.a.items[i], "callId"));
        ts_str have = item->kind == TS_JSON_STRING ? item->u.s : ts_json_string(ts_json_get(item, "callId"));
        calls_ok = ts_str_eq(want, have);
    }
    if (!calls_ok) {
        char w[EXCERPT], g[EXCERPT];
        ts_check_excerpt(s->calls, w, sizeof w);
        ts_check_excerpt(pending, g, sizeof g);
        ts_findings_add(
            j->findings, "J11",
            "checkpoint.state.pendingToolCalls: expected the calls of the last assistant entry %s (or their "
            "call ids), got %s",
            w, g);
    }
}

/* ---- J12 ---- */

static void check_branches(judge *j) {
    const journal_answer *a = j->answer;
    const sim *s = j->sim;
    if (!s->branched) return;
    if (a->entry_count == s->entry_count) {
        for (size_t k = 0; k < s->entry_count; k++) {
            const sim_entry *e = &s->entries[k];
            const answer_entry *got = &a->entries[k];
            if (e->origin != FROM_BRANCH || got->role != e->role || !ts_json_equal(got->content, &e->content)) continue;
            ts_str want = e->parent == NO_INDEX ? (ts_str){NULL, 0} : a->entries[e->parent].id;
            if (ts_str_eq(want, got->parent_id)) continue;
            char w[EXCERPT], g[EXCERPT], from[64] = "";
            str_excerpt(want, w, sizeof w);
            str_excerpt(got->parent_id, g, sizeof g);
            if (e->parent != NO_INDEX) format_into(from, sizeof from, ", entries[%zu]", e->parent);
            ts_findings_add(j->findings, "J12",
                            "entries[%zu] (the edit of events[%zu], at transcript position %llu): parentId expected %s "
                            "(the transcript's entry K-1%s), got %s",
                            k, e->origin_index, (unsigned long long)j->scenario->events[e->origin_index].branch_at, w,
                            from, g);
        }
    }
    if (!j->path_known) return;
    /* The abandoned branches, kept: entries off the final transcript, in commit order. */
    bool *expected_on_path = ts_arena_calloc(j->arena, s->entry_count + 1, sizeof *expected_on_path);
    if (!expected_on_path) {
        j->out_of_memory = true;
        return;
    }
    for (size_t i = 0; i < j->expected_count; i++) expected_on_path[j->expected[i]] = true;
    size_t ws = 0, gs = 0, want_total = 0, got_total = 0;
    for (size_t i = 0; i < s->entry_count; i++) want_total += !expected_on_path[i];
    for (size_t i = 0; i < a->entry_count; i++) got_total += !j->on_path[i];
    for (;;) {
        while (ws < s->entry_count && expected_on_path[ws]) ws++;
        while (gs < a->entry_count && j->on_path[gs]) gs++;
        if (ws == s->entry_count || gs == a->entry_count) break;
        const sim_entry *e = &s->entries[ws];
        const answer_entry *got = &a->entries[gs];
        if (e->role != got->role || !ts_json_equal(&e->content, got->content)) {
            char w[EXCERPT], g[EXCERPT];
            entry_excerpt(e->role, &e->content, w, sizeof w);
            entry_excerpt(got->role, got->content, g, sizeof g);
            ts_findings_add(j->findings, "J12",
                            "entries[%zu]: expected the abandoned entry %s (kept, unchanged), got %s", gs, w, g);
            return;
        }
        ws++;
        gs++;
    }
    if (want_total != got_total)
        ts_findings_add(j->findings, "J12",
                        "the journal keeps %zu entries off the transcript, expected %zu (the abandoned "
                        "branches, unchanged)",
                        got_total, want_total);
}

/* ------------------------------------------------------------------------ the entry ---- */

/* Every check, for one derivation (one reading of SPEC §6.1), into j->findings. */
static void judge_all(judge *j) {
    sim *s = j->sim;
    if (!s->out_of_memory && !s->stuck) j->expected = sim_path(s, s->leaf, &j->expected_count);
    check_entry_ids(j);
    check_tree(j);
    if (s->stuck) ts_findings_add(j->findings, "J3", "the scenario cannot be run to its end: %s", s->stuck_why);
    bool derived = !s->stuck && !s->out_of_memory && !j->out_of_memory;
    if (derived) {
        check_transcript(j);
        check_entry_counts(j);
    }
    check_task_names(j);
    if (derived) check_tasks(j);
    check_llm_inputs(j);
    check_timestamps(j);
    check_tool_runs(j);
    if (derived) {
        check_signals(j);
        check_checkpoint(j);
        check_branches(j);
    }
}

static size_t required_count(const ts_findings *f) {
    size_t n = 0;
    for (size_t i = 0; i < f->count; i++) {
        const ts_rule_info *info = ts_rule_find(f->items[i].rule);
        n += info && info->level == TS_LEVEL_REQUIRED;
    }
    return n;
}

/* Index maps of the answer (first occurrence of each entry id and task key). */
static bool index_answer(const journal_answer *a, ts_strmap *entry_by_id, ts_strmap *task_by_key) {
    size_t first;
    for (size_t i = 0; i < a->entry_count; i++)
        if (!ts_strmap_get(entry_by_id, 0, a->entries[i].id, &first) &&
            !ts_strmap_put(entry_by_id, 0, a->entries[i].id, i))
            return false;
    for (size_t i = 0; i < a->task_count; i++)
        if (!ts_strmap_get(task_by_key, 0, a->tasks[i].key, &first) &&
            !ts_strmap_put(task_by_key, 0, a->tasks[i].key, i))
            return false;
    return true;
}

bool ts_check_journal(const ts_scenario *scenario, const ts_json *journal_answer_json, ts_findings *findings) {
    ts_arena arena;
    ts_arena_init(&arena);
    journal_answer answer;
    char why[600];
    if (!read_answer(journal_answer_json, &arena, &answer, why, sizeof why)) {
        if (why[0]) ts_findings_add(findings, "J2", "the journal answer is malformed: %s", why);
        ts_arena_free(&arena);
        return why[0] != '\0';
    }
    ts_strmap entry_by_id, task_by_key;
    ts_strmap_init(&entry_by_id);
    ts_strmap_init(&task_by_key);
    bool ok = index_answer(&answer, &entry_by_id, &task_by_key);
    /* Judge under each reading SPEC allows; keep the verdict of the one the answer fits best. */
    ts_findings verdicts[READING_COUNT];
    size_t best = 0;
    bool readings_differ = false;
    for (size_t r = 0; r < READING_COUNT; r++) ts_findings_init(&verdicts[r]);
    for (size_t r = 0; ok && r < READING_COUNT && (r == 0 || readings_differ); r++) {
        sim s;
        memset(&s, 0, sizeof s);
        s.scenario = scenario;
        s.answer = &answer;
        s.arena = &arena;
        s.reading = (sim_reading)r;
        sim_execute(&s);
        readings_differ |= s.edit_while_pending;
        judge j;
        memset(&j, 0, sizeof j);
        j.scenario = scenario;
        j.answer = &answer;
        j.sim = &s;
        j.entry_by_id = entry_by_id;
        j.task_by_key = task_by_key;
        j.findings = &verdicts[r];
        j.arena = &arena;
        judge_all(&j);
        ok = !s.out_of_memory && !j.out_of_memory;
        size_t have = required_count(&verdicts[r]), had = required_count(&verdicts[best]);
        if (r > 0 && (have < had || (have == had && verdicts[r].count < verdicts[best].count))) best = r;
    }
    for (size_t i = 0; i < verdicts[best].count; i++)
        ts_findings_add(findings, verdicts[best].items[i].rule, "%s", verdicts[best].items[i].message);
    findings->suppressed += verdicts[best].suppressed;
    for (size_t r = 0; r < READING_COUNT; r++) ts_findings_free(&verdicts[r]);
    ts_strmap_free(&entry_by_id);
    ts_strmap_free(&task_by_key);
    ts_arena_free(&arena);
    return ok;
}
