/* engine.c — the reference resume engine; see engine.h. */
#include "core/resume/engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uuid/uuid.h>

#include "core/json/canon.h"
#include "core/json/codec.h"
#include "core/resume/taskid.h"

static const char *const mutant_names[TS_ENGINE_MUTANT_COUNT] = {
    "correct",
    "counter-entry-ids",
    "timestamps-regenerated-on-load",
    "resume-restarts-loop",
    "both-layers-persist",
    "unescaped-canonical-keys",
    "signal-consumed-outside-commit",
};

const char *ts_engine_mutant_name(ts_engine_mutant mutant) {
    return (unsigned)mutant < TS_ENGINE_MUTANT_COUNT ? mutant_names[mutant] : "?";
}

bool ts_engine_mutant_parse(const char *name, ts_engine_mutant *out) {
    for (int i = 0; i < TS_ENGINE_MUTANT_COUNT; i++)
        if (strcmp(name, mutant_names[i]) == 0) {
            *out = (ts_engine_mutant)i;
            return true;
        }
    return false;
}

/* A commit being prepared, or one that failed and waits to be retried verbatim. */
typedef struct staged {
    ts_arena arena;
    ts_entry *entries;
    size_t entry_count, entry_cap;
    ts_task task;
    bool has_task;
    ts_checkpoint checkpoint;
    bool has_checkpoint;
    const char *what;        /* what the commit holds, for the world's commit notices */
    bool active;
} staged;

struct ts_engine {
    ts_store *store;
    ts_world *world;
    char execution_id[TS_UUID_TEXT];
    ts_str input;            /* the execution's first user message (absent: wait for one) */
    ts_engine_options options;
    ts_arena arena;          /* the journal mirror and the conversation */
    ts_journal journal;
    ts_json *messages;       /* the visible transcript as LLM messages: role, content, timestamp */
    char (*message_ids)[TS_UUID_TEXT]; /* and the ids of their entries */
    size_t message_count, message_cap;
    char leaf_id[TS_UUID_TEXT];
    staged stage;
    uint64_t commits;
    uint64_t counter;        /* TS_ENGINE_MUTANT_COUNTER_IDS only */
};

static bool oom(ts_error *err) {
    ts_error_set(err, "out of memory");
    return false;
}

/* ------------------------------------------------------------------- the conversation ---- */

static bool push_message(ts_engine *e, const ts_entry *entry, ts_str timestamp) {
    if (e->message_count == e->message_cap) {
        size_t cap = e->message_cap ? 2 * e->message_cap : 16;
        ts_json *grown = e->messages ? ts_arena_grow(&e->arena, e->messages, e->message_cap * sizeof *grown, cap * sizeof *grown)
                                     : ts_arena_alloc(&e->arena, cap * sizeof *grown);
        char(*ids)[TS_UUID_TEXT] = e->message_ids ? ts_arena_grow(&e->arena, e->message_ids, e->message_cap * sizeof *ids,
                                                                  cap * sizeof *ids)
                                                  : ts_arena_alloc(&e->arena, cap * sizeof *ids);
        if (grown) e->messages = grown;
        if (ids) e->message_ids = ids;
        if (!grown || !ids) return false;
        e->message_cap = cap;
    }
    memcpy(e->message_ids[e->message_count], entry->id, TS_UUID_TEXT);
    ts_json_builder b;
    ts_json_builder_init(&b, &e->arena);
    ts_json_builder_add(&b, "role", ts_json_make_string(ts_str_from(ts_entry_role_name(entry->role))));
    ts_json_builder_add(&b, "content", entry->content);
    ts_json_builder_add(&b, "timestamp", ts_json_make_string(timestamp));
    return ts_json_builder_finish(&b, &e->messages[e->message_count++]);
}

/* Rebuilds the conversation from the stored path to leaf. `reload` marks the rebuild after a
 * load, the one place the timestamps-on-load mutant reads the clock. */
static bool rebuild_conversation(ts_engine *e, const char *leaf, bool reload, ts_error *err) {
    const ts_entry **path;
    size_t count;
    if (!ts_journal_path(&e->journal, leaf, &e->arena, &path, &count, err)) return false;
    e->message_count = 0;
    for (size_t i = 0; i < count; i++) {
        ts_str timestamp = path[i]->timestamp;
        if (reload && e->options.mutant == TS_ENGINE_MUTANT_TIMESTAMPS_ON_LOAD) {
            char now[TS_TIMESTAMP_TEXT];
            e->world->vtable->timestamp(e->world, e->journal.entry_count + i, now);
            timestamp = ts_str_dup(&e->arena, ts_str_from(now));
        }
        if (!push_message(e, path[i], timestamp)) return oom(err);
    }
    snprintf(e->leaf_id, sizeof e->leaf_id, "%s", leaf);
    return true;
}

/* --------------------------------------------------------------------------- staging ---- */

static void stage_reset(staged *s) {
    ts_arena_free(&s->arena);
    memset(s, 0, sizeof *s);
}

static void mint_entry_id(ts_engine *e, char out[TS_UUID_TEXT]) {
    if (e->options.mutant == TS_ENGINE_MUTANT_COUNTER_IDS) {
        snprintf(out, TS_UUID_TEXT, "00000000-0000-4000-8000-%012llx", (unsigned long long)e->counter++);
        return;
    }
    uuid_t id;
    uuid_generate_random(id);
    uuid_unparse_lower(id, out);
}

/* Stages a new entry as a child of parent; returns it (its id is minted now, once). */
static ts_entry *stage_entry(ts_engine *e, ts_entry_role role, const char *parent, const ts_json *content) {
    staged *s = &e->stage;
    if (s->entry_count == s->entry_cap) {
        size_t cap = s->entry_cap ? 2 * s->entry_cap : 4;
        ts_entry *grown = ts_arena_alloc(&s->arena, cap * sizeof *grown);
        if (!grown) return NULL;
        if (s->entry_count) memcpy(grown, s->entries, s->entry_count * sizeof *grown);
        s->entries = grown;
        s->entry_cap = cap;
    }
    ts_entry *entry = &s->entries[s->entry_count];
    memset(entry, 0, sizeof *entry);
    mint_entry_id(e, entry->id);
    snprintf(entry->parent_id, sizeof entry->parent_id, "%s", parent);
    entry->role = role;
    char timestamp[TS_TIMESTAMP_TEXT];
    e->world->vtable->timestamp(e->world, e->journal.entry_count + s->entry_count, timestamp);
    entry->timestamp = ts_str_dup(&s->arena, ts_str_from(timestamp));
    if (!entry->timestamp.ptr || !ts_json_clone(&s->arena, content, &entry->content)) return NULL;
    s->entry_count++;
    return entry;
}

static bool stage_checkpoint(ts_engine *e, const char *leaf, uint64_t signals_consumed, const ts_json *state) {
    staged *s = &e->stage;
    s->has_checkpoint = true;
    s->checkpoint.sequence = e->journal.has_checkpoint ? e->journal.checkpoint.sequence + 1 : 1;
    snprintf(s->checkpoint.leaf_id, sizeof s->checkpoint.leaf_id, "%s", leaf);
    s->checkpoint.signals_consumed = signals_consumed;
    return ts_json_clone(&s->arena, state, &s->checkpoint.state);
}

static bool stage_task(ts_engine *e, const ts_task *task) {
    staged *s = &e->stage;
    s->task = *task;
    s->has_task = true;
    s->task.kind = ts_str_dup(&s->arena, task->kind);
    s->task.input = ts_str_dup(&s->arena, task->input);
    return s->task.kind.ptr && s->task.input.ptr && ts_json_clone(&s->arena, &task->result, &s->task.result);
}

/* The seed's counter-id bug: an entry whose id is already taken is silently dropped (the
 * seed's server deduplicated it by key), and the message with it. */
static void drop_colliding_entries(ts_engine *e) {
    staged *s = &e->stage;
    size_t kept = 0;
    for (size_t i = 0; i < s->entry_count; i++)
        if (!ts_journal_find_entry(&e->journal, s->entries[i].id)) s->entries[kept++] = s->entries[i];
    s->entry_count = kept;
}

/* Commits the staged batch. On failure the batch stays staged, to be retried as it is. */
static bool commit_stage(ts_engine *e, bool *crashed, ts_error *err) {
    staged *s = &e->stage;
    *crashed = false;
    if (e->options.crash_before_commit && e->commits + 1 == e->options.crash_before_commit) {
        *crashed = true;
        return true;
    }
    bool (*notify)(ts_world *, bool, uint64_t, const char *, ts_error *) = e->world->vtable->commit;
    const char *what = s->what ? s->what : "a step";
    if (notify && !notify(e->world, false, e->commits + 1, what, err)) return false;
    if (e->options.mutant == TS_ENGINE_MUTANT_COUNTER_IDS) drop_colliding_entries(e);
    ts_commit commit = {s->entries, s->entry_count, s->has_task ? &s->task : NULL, s->has_task ? 1 : 0,
                        s->has_checkpoint ? &s->checkpoint : NULL};
    if (!ts_store_commit(e->store, &commit, err)) return false;
    e->commits++;
    /* The mirror follows the store: the same check, then the same change. */
    bool *fresh = calloc(commit.entry_count + commit.task_count + 1, sizeof *fresh);
    if (!fresh) return oom(err);
    bool ok = ts_commit_check(&e->journal, &commit, fresh, fresh + commit.entry_count, err) &&
              ts_commit_apply(&e->journal, &e->arena, &commit, fresh, fresh + commit.entry_count, err);
    free(fresh);
    if (!ok) return false;
    if (s->has_checkpoint && strcmp(s->checkpoint.leaf_id, e->leaf_id) != 0) {
        /* Extend the conversation when the new leaf continues it; otherwise (a branch, or an
         * entry lost to a collision) read the new path back from the journal. */
        bool extends = true;
        const char *parent = e->leaf_id;
        for (size_t i = 0; i < s->entry_count && extends; i++) {
            extends = strcmp(s->entries[i].parent_id, parent) == 0;
            parent = s->entries[i].id;
        }
        extends = extends && strcmp(parent, s->checkpoint.leaf_id) == 0;
        if (extends) {
            for (size_t i = 0; i < s->entry_count; i++) {
                const ts_entry *stored = ts_journal_find_entry(&e->journal, s->entries[i].id);
                if (!push_message(e, stored, stored->timestamp)) return oom(err);
            }
            snprintf(e->leaf_id, sizeof e->leaf_id, "%s", s->checkpoint.leaf_id);
        } else if (!rebuild_conversation(e, s->checkpoint.leaf_id, false, err)) {
            return false;
        }
    }
    if (e->options.after_commit) e->options.after_commit(e->options.after_commit_context, e->commits);
    stage_reset(s);
    return !notify || notify(e->world, true, e->commits, what, err);
}

/* ------------------------------------------------------------------------ task names ---- */

/* The seed's canonicaliser (shared/seeds/003): members sorted by key bytes, keys written
 * without escaping. Kept only as a mutant: {"a\":1,\"b": 2} and {"a":1,"b":2} collide. */
static bool seed_canonical(ts_buf *out, const ts_json *v) {
    if (v->kind == TS_JSON_ARRAY) {
        ts_buf_append_char(out, '[');
        for (size_t i = 0; i < v->u.a.count; i++) {
            if (i) ts_buf_append_char(out, ',');
            if (!seed_canonical(out, &v->u.a.items[i])) return false;
        }
        ts_buf_append_char(out, ']');
        return true;
    }
    if (v->kind != TS_JSON_OBJECT) return ts_codec_write(out, v, TS_WRITE_COMPACT);
    size_t n = v->u.o.count;
    const ts_member **sorted = malloc((n + 1) * sizeof *sorted);
    if (!sorted) return false;
    for (size_t i = 0; i < n; i++) sorted[i] = &v->u.o.members[i];
    for (size_t i = 1; i < n; i++) /* insertion sort by raw key bytes */
        for (size_t j = i; j > 0; j--) {
            ts_str a = sorted[j - 1]->key, b = sorted[j]->key;
            size_t common = a.len < b.len ? a.len : b.len;
            int c = memcmp(a.ptr, b.ptr, common);
            if (c < 0 || (c == 0 && a.len <= b.len)) break;
            const ts_member *t = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = t;
        }
    ts_buf_append_char(out, '{');
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        if (i) ts_buf_append_char(out, ',');
        ts_buf_append_char(out, '"');
        ts_buf_append(out, sorted[i]->key.ptr, sorted[i]->key.len);
        ts_buf_append_str(out, "\":");
        ok = seed_canonical(out, &sorted[i]->value);
    }
    ts_buf_append_char(out, '}');
    free(sorted);
    return ok;
}

/* Names the task (kind, input): canonical input, key, id. */
static bool name_task(ts_engine *e, const char *kind, const ts_json *input, ts_task *out, ts_arena *arena,
                      ts_error *err) {
    memset(out, 0, sizeof *out);
    ts_buf canonical;
    ts_buf_init(&canonical);
    bool ok = e->options.mutant == TS_ENGINE_MUTANT_UNESCAPED_KEYS ? seed_canonical(&canonical, input)
                                                                    : ts_canon_write(&canonical, input, err);
    if (!ok || canonical.failed) {
        ts_buf_free(&canonical);
        if (!err->message[0]) ts_error_set(err, "cannot canonicalise the input of a %s task", kind);
        return false;
    }
    ts_str text = {canonical.data ? canonical.data : "", canonical.len};
    out->kind = ts_str_dup(arena, ts_str_from(kind));
    out->input = ts_str_dup(arena, text);
    ok = out->kind.ptr && out->input.ptr && ts_task_key(e->journal.execution_id, out->kind, out->input, out->key, err) &&
         ts_task_id(out->key, out->id, err);
    ts_buf_free(&canonical);
    out->result = ts_json_make_null();
    return ok;
}

/* ----------------------------------------------------------------------------- steps ---- */

static ts_json state_object(ts_arena *arena, const char *phase, const ts_json *calls, int64_t index) {
    ts_json_builder b;
    ts_json_builder_init(&b, arena);
    ts_json_builder_add(&b, "phase", ts_json_make_string(ts_str_from(phase)));
    if (calls) {
        ts_json_builder_add(&b, "pendingToolCalls", *calls);
        ts_json_builder_add(&b, "pendingToolIndex", ts_json_make_int(index));
    }
    ts_json out = ts_json_make_null();
    ts_json_builder_finish(&b, &out);
    return out;
}

static ts_json text_content(ts_arena *arena, ts_str text) {
    ts_json_builder b;
    ts_json_builder_init(&b, arena);
    ts_json_builder_add(&b, "text", ts_json_make_string(text));
    ts_json out = ts_json_make_null();
    ts_json_builder_finish(&b, &out);
    return out;
}

/* The first commit of an execution: the input as the root user entry. */
static bool step_begin(ts_engine *e, bool *crashed, ts_error *err) {
    ts_json content = text_content(&e->stage.arena, e->input);
    ts_json state = state_object(&e->stage.arena, "llm", NULL, 0);
    ts_entry *entry = stage_entry(e, TS_ENTRY_USER, "", &content);
    if (!entry || state.kind != TS_JSON_OBJECT || !stage_checkpoint(e, entry->id, 0, &state)) return oom(err);
    e->stage.what = "the input";
    e->stage.active = true;
    return commit_stage(e, crashed, err);
}

/* Signals waiting in the inbox become user entries, one each, in order, consumed in the same
 * commit. A signal carrying "branchFrom": K starts a new branch: its entry replaces position K
 * of the transcript (its parent is the entry before K). */
static bool step_signals(ts_engine *e, const ts_json *state, bool *crashed, ts_error *err) {
    const ts_journal *j = &e->journal;
    uint64_t from = j->checkpoint.signals_consumed, to = j->signal_count;
    if (e->options.mutant == TS_ENGINE_MUTANT_SIGNAL_OUTSIDE_COMMIT) {
        /* The bug: the cursor moves first, in a commit of its own; a crash before the next
         * commit loses the signals. */
        if (!stage_checkpoint(e, e->leaf_id, to, state)) return oom(err);
        e->stage.what = "the signal cursor";
        e->stage.active = true;
        if (!commit_stage(e, crashed, err)) return false;
        if (*crashed) return true;
    }
    /* Ids along the transcript as the batch builds it. */
    const ts_entry **path;
    size_t count;
    if (!ts_journal_path(j, e->leaf_id, &e->stage.arena, &path, &count, err)) return false;
    const char **ids = ts_arena_alloc(&e->stage.arena, (count + (to - from) + 1) * sizeof *ids);
    if (!ids) return oom(err);
    for (size_t i = 0; i < count; i++) ids[i] = path[i]->id;
    size_t path_len = count;
    for (uint64_t k = from; k < to; k++) {
        const ts_json *signal = &j->signals[k];
        ts_str text = ts_json_string(ts_json_get(signal, "text"));
        const ts_json *branch = ts_json_get(signal, "branchFrom");
        if (branch && branch->kind == TS_JSON_INT && branch->u.i >= 0 && (uint64_t)branch->u.i < path_len)
            path_len = (size_t)branch->u.i;
        ts_json content = text_content(&e->stage.arena, text.ptr ? text : ts_str_from(""));
        ts_entry *entry = stage_entry(e, TS_ENTRY_USER, path_len ? ids[path_len - 1] : "", &content);
        if (!entry) return oom(err);
        ids[path_len++] = entry->id;
    }
    ts_json next = state_object(&e->stage.arena, "llm", NULL, 0);
    if (!stage_checkpoint(e, path_len ? ids[path_len - 1] : "", to, &next)) return oom(err);
    e->stage.what = "user messages";
    e->stage.active = true;
    return commit_stage(e, crashed, err);
}

static size_t recorded_llm_tasks(const ts_journal *j) {
    size_t n = 0;
    for (size_t i = 0; i < j->task_count; i++)
        if (ts_str_eq_cstr(j->tasks[i].kind, "llm-request") && j->tasks[i].status == TS_TASK_COMPLETED) n++;
    return n;
}

/* One LLM task: the conversation in, one assistant entry out. */
static bool step_llm(ts_engine *e, bool *crashed, ts_error *err) {
    ts_arena *arena = &e->stage.arena;
    ts_json_builder b;
    ts_json_builder_init(&b, arena);
    ts_json_builder_add(&b, "messages", (ts_json){TS_JSON_ARRAY, {.a = {e->messages, e->message_count}}});
    ts_json input;
    if (!ts_json_builder_finish(&b, &input)) return oom(err);
    ts_task task;
    if (!name_task(e, "llm-request", &input, &task, arena, err)) return false;
    const ts_task *recorded = ts_journal_find_task(&e->journal, task.id);
    ts_json answer;
    if (recorded && recorded->status == TS_TASK_COMPLETED) {
        answer = recorded->result; /* the same step again: its recorded result, never a new call */
    } else if (recorded) {
        ts_error_set(err, "LLM task %s is %s", task.id, ts_task_status_name(recorded->status));
        return false;
    } else if (!e->world->vtable->model(e->world, e->messages, (const char(*)[TS_UUID_TEXT])e->message_ids,
                                        e->message_count, recorded_llm_tasks(&e->journal), arena, &answer, err)) {
        return false;
    }
    task.status = TS_TASK_COMPLETED;
    task.result = answer;
    if (!recorded && !stage_task(e, &task)) return oom(err);
    ts_entry *entry = stage_entry(e, TS_ENTRY_ASSISTANT, e->leaf_id, &answer);
    if (!entry) return oom(err);
    const ts_json *calls = ts_json_get(&answer, "toolCalls");
    bool has_calls = calls && calls->kind == TS_JSON_ARRAY && calls->u.a.count > 0;
    ts_json state = state_object(arena, has_calls ? "tools" : "idle", has_calls ? calls : NULL, 0);
    if (!stage_checkpoint(e, entry->id, e->journal.checkpoint.signals_consumed, &state)) return oom(err);
    e->stage.what = "a model answer";
    e->stage.active = true;
    return commit_stage(e, crashed, err);
}

/* True when the transcript already holds a tool entry for call_id after its last assistant
 * entry: a result that was committed but whose index advance was not (defensive; this
 * engine commits both together). */
static bool has_tool_result(const ts_engine *e, ts_str call_id) {
    for (size_t i = e->message_count; i-- > 0;) {
        ts_str role = ts_json_string(ts_json_get(&e->messages[i], "role"));
        if (ts_str_eq_cstr(role, "assistant")) return false;
        const ts_json *content = ts_json_get(&e->messages[i], "content");
        if (ts_str_eq_cstr(role, "tool") && ts_str_eq(ts_json_string(ts_json_get(content, "callId")), call_id)) return true;
    }
    return false;
}

/* One pending tool call: its result as one tool entry, with the index advanced. */
static bool step_tool(ts_engine *e, const ts_json *state, bool *waiting, bool *crashed, ts_error *err) {
    ts_arena *arena = &e->stage.arena;
    *waiting = false;
    const ts_json *calls = ts_json_get(state, "pendingToolCalls");
    const ts_json *index_value = ts_json_get(state, "pendingToolIndex");
    if (!calls || calls->kind != TS_JSON_ARRAY || !index_value || index_value->kind != TS_JSON_INT ||
        index_value->u.i < 0) {
        ts_error_set(err, "checkpoint %llu: phase tools without pendingToolCalls and pendingToolIndex",
                     (unsigned long long)e->journal.checkpoint.sequence);
        return false;
    }
    size_t index = (size_t)index_value->u.i;
    uint64_t consumed = e->journal.checkpoint.signals_consumed;
    ts_json next = index + 1 < calls->u.a.count ? state_object(arena, "tools", calls, (int64_t)index + 1)
                                               : state_object(arena, "llm", NULL, 0);
    if (index >= calls->u.a.count) {
        if (!stage_checkpoint(e, e->leaf_id, consumed, &next)) return oom(err);
        e->stage.what = "the end of the tool calls";
        e->stage.active = true;
        return commit_stage(e, crashed, err);
    }
    const ts_json *call = &calls->u.a.items[index];
    ts_str call_id = ts_json_string(ts_json_get(call, "callId")), name = ts_json_string(ts_json_get(call, "name"));
    const ts_json *arguments = ts_json_get(call, "arguments");
    ts_json_builder b;
    ts_json_builder_init(&b, arena);
    ts_json_builder_add(&b, "callId", ts_json_make_string(call_id));
    ts_json_builder_add(&b, "arguments", arguments ? *arguments : ts_json_make_null());
    ts_json input;
    if (!ts_json_builder_finish(&b, &input)) return oom(err);
    char kind[128];
    snprintf(kind, sizeof kind, "%.*s", (int)(name.len > 120 ? 120 : name.len), name.ptr ? name.ptr : "");
    ts_task task;
    if (!name_task(e, kind, &input, &task, arena, err)) return false;
    if (has_tool_result(e, call_id)) { /* the result is in; only the index is behind */
        if (!stage_checkpoint(e, e->leaf_id, consumed, &next)) return oom(err);
        e->stage.what = "the tool index";
        e->stage.active = true;
        return commit_stage(e, crashed, err);
    }
    const ts_task *recorded = ts_journal_find_task(&e->journal, task.id);
    if (recorded && recorded->status == TS_TASK_PENDING) {
        *waiting = true;
        return true;
    }
    if (recorded) {
        task.status = recorded->status;
        task.result = recorded->result;
    } else {
        ts_tool_status status;
        ts_json no_arguments = ts_json_make_null();
        if (!e->world->vtable->tool(e->world, name, call_id, arguments ? arguments : &no_arguments, arena, &status,
                                    &task.result, err))
            return false;
        if (status == TS_TOOL_PENDING) { /* scheduled; its result arrives later: suspend */
            task.status = TS_TASK_PENDING;
            task.result = ts_json_make_null();
            if (!stage_task(e, &task)) return oom(err);
            e->stage.what = "a pending tool call";
            e->stage.active = true;
            if (!commit_stage(e, crashed, err)) return false;
            *waiting = !*crashed;
            return true;
        }
        task.status = status == TS_TOOL_FAILED ? TS_TASK_FAILED : TS_TASK_COMPLETED;
        if (!stage_task(e, &task)) return oom(err);
    }
    ts_json_builder_init(&b, arena);
    ts_json_builder_add(&b, "callId", ts_json_make_string(call_id));
    ts_json_builder_add(&b, "name", ts_json_make_string(name));
    ts_json_builder_add(&b, task.status == TS_TASK_FAILED ? "error" : "result", task.result);
    ts_json content;
    if (!ts_json_builder_finish(&b, &content)) return oom(err);
    ts_entry *entry = stage_entry(e, TS_ENTRY_TOOL, e->leaf_id, &content);
    if (!entry || !stage_checkpoint(e, entry->id, consumed, &next)) return oom(err);
    e->stage.what = "a tool result";
    e->stage.active = true;
    return commit_stage(e, crashed, err);
}

/* ------------------------------------------------------------------------ the engine ---- */

ts_engine *ts_engine_open(ts_store *store, ts_world *world, const char *execution_id, ts_str input,
                          const ts_engine_options *options, ts_error *err) {
    ts_engine *e = calloc(1, sizeof *e);
    if (!e) {
        oom(err);
        return NULL;
    }
    e->store = store;
    e->world = world;
    snprintf(e->execution_id, sizeof e->execution_id, "%s", execution_id);
    e->input = input;
    if (options) e->options = *options;
    ts_arena_init(&e->arena);
    ts_journal_init(&e->journal);
    if (!ts_store_begin_execution(store, e->execution_id, err) || !ts_store_load(store, &e->arena, &e->journal, err))
        goto fail;
    if (strcmp(e->journal.execution_id, e->execution_id) != 0) {
        ts_error_set(err, "the store holds execution %s, not %s", e->journal.execution_id, e->execution_id);
        goto fail;
    }
    if (e->journal.has_checkpoint && !rebuild_conversation(e, e->journal.checkpoint.leaf_id, true, err)) goto fail;
    return e;
fail:
    ts_engine_close(e);
    return NULL;
}

void ts_engine_close(ts_engine *e) {
    if (!e) return;
    stage_reset(&e->stage);
    ts_journal_free(&e->journal);
    ts_arena_free(&e->arena);
    free(e);
}

const ts_journal *ts_engine_journal(const ts_engine *e) { return &e->journal; }

uint64_t ts_engine_commits(const ts_engine *e) { return e->commits; }

bool ts_engine_run(ts_engine *e, ts_engine_state *out, ts_error *err) {
    bool crashed = false;
    if (e->stage.active) { /* a commit that failed before: retried with the same ids */
        if (!commit_stage(e, &crashed, err)) return false;
        if (crashed) goto crash;
    }
    /* The restart bug: a resumed loop ignores where it stopped and asks the LLM again. */
    bool restart_bug = e->options.mutant == TS_ENGINE_MUTANT_RESTART_LOOP && e->commits == 0;
    for (;;) {
        const ts_journal *j = &e->journal;
        if (!j->has_checkpoint) {
            if (!e->input.ptr) { /* nothing has begun, and nothing to begin with */
                *out = TS_ENGINE_WAITING_SIGNAL;
                return true;
            }
            if (!step_begin(e, &crashed, err)) return false;
            if (crashed) goto crash;
            continue;
        }
        const ts_json *state = &j->checkpoint.state;
        ts_str phase = ts_json_string(ts_json_get(state, "phase"));
        if (restart_bug && ts_str_eq_cstr(phase, "tools")) phase = ts_str_from("llm");
        restart_bug = false;
        bool ok = true, waiting = false;
        if ((ts_str_eq_cstr(phase, "idle") || ts_str_eq_cstr(phase, "llm")) &&
            j->signal_count > j->checkpoint.signals_consumed) {
            ok = step_signals(e, state, &crashed, err);
        } else if (ts_str_eq_cstr(phase, "idle")) {
            *out = TS_ENGINE_WAITING_SIGNAL;
            return true;
        } else if (ts_str_eq_cstr(phase, "llm")) {
            ok = step_llm(e, &crashed, err);
        } else if (ts_str_eq_cstr(phase, "tools")) {
            ok = step_tool(e, state, &waiting, &crashed, err);
        } else {
            ts_error_set(err, "checkpoint %llu has an unknown phase", (unsigned long long)j->checkpoint.sequence);
            return false;
        }
        if (!ok) return false;
        if (crashed) goto crash;
        if (waiting) {
            stage_reset(&e->stage);
            *out = TS_ENGINE_WAITING_TASK;
            return true;
        }
    }
crash:
    stage_reset(&e->stage); /* the process died: what it held in memory is gone */
    *out = TS_ENGINE_CRASHED;
    return true;
}

/* ------------------------------------------------------------------------ the driver ---- */

/* The pending task of tool call call_id, if the journal has one. */
static const ts_task *pending_task_of_call(const ts_journal *j, ts_str call_id, ts_arena *arena) {
    for (size_t i = 0; i < j->task_count; i++) {
        if (j->tasks[i].status != TS_TASK_PENDING) continue;
        ts_json input;
        ts_error ignored;
        ts_error_clear(&ignored);
        if (!ts_codec_parse(arena, j->tasks[i].input.ptr, j->tasks[i].input.len, &input, &ignored)) continue;
        if (ts_str_eq(ts_json_string(ts_json_get(&input, "callId")), call_id)) return &j->tasks[i];
    }
    return NULL;
}

/* The scripted result of a pending tool task, by the tool's name (the task's kind). */
static bool complete_event(ts_store *store, const ts_scenario *scenario, const ts_journal *j, const ts_event *ev,
                           uint64_t number, ts_arena *arena, ts_error *err) {
    const ts_task *pending = pending_task_of_call(j, ev->call_id, arena);
    if (!pending) return ts_store_mark_event(store, number, err); /* nothing is waiting for it */
    ts_task done = *pending;
    const ts_tool_script *tool = ts_scenario_tool(scenario, pending->kind);
    done.status = tool && !tool->failed ? TS_TASK_COMPLETED : TS_TASK_FAILED;
    done.result = tool ? tool->result : ts_json_make_string(ts_str_from("no such tool"));
    return ts_store_complete_task(store, &done, number, err);
}

bool ts_engine_persist_turn_again(ts_store *store, const ts_journal *j, ts_arena *arena, ts_error *err) {
    const ts_entry **path;
    size_t count;
    if (!ts_journal_path(j, j->checkpoint.leaf_id, arena, &path, &count, err)) return false;
    size_t start = count;
    while (start > 0 && path[start - 1]->role != TS_ENTRY_USER) start--;
    if (start == count) return true;
    ts_entry *copies = ts_arena_alloc(arena, (count - start) * sizeof *copies);
    if (!copies) return oom(err);
    const char *parent = j->checkpoint.leaf_id;
    for (size_t i = start; i < count; i++) {
        ts_entry *c = &copies[i - start];
        *c = *path[i];
        uuid_t id;
        uuid_generate_random(id);
        uuid_unparse_lower(id, c->id);
        snprintf(c->parent_id, sizeof c->parent_id, "%s", parent);
        parent = c->id;
    }
    ts_checkpoint cp = j->checkpoint;
    cp.sequence++;
    snprintf(cp.leaf_id, sizeof cp.leaf_id, "%s", parent);
    ts_commit commit = {copies, count - start, NULL, 0, &cp};
    return ts_store_commit(store, &commit, err);
}

bool ts_engine_drive(ts_store *store, const ts_scenario *scenario, const ts_engine_options *options,
                     ts_engine_state *out, uint64_t *commits_out, ts_error *err) {
    ts_engine_options run_options = options ? *options : (ts_engine_options){0};
    uint64_t commits = 0;
    bool ok = false;
    ts_arena scratch;
    ts_arena_init(&scratch);
    ts_scenario_world world;
    ts_scenario_world_init(&world, scenario);
    ts_engine *engine = NULL;
    for (;;) {
        if (!engine) {
            if (run_options.crash_before_commit && run_options.crash_before_commit <= commits)
                run_options.crash_before_commit = 0; /* one crash per drive */
            ts_engine_options these = run_options;
            if (these.crash_before_commit) these.crash_before_commit -= commits;
            engine = ts_engine_open(store, &world.base, scenario->execution_id, scenario->input, &these, err);
            if (!engine) goto done;
        }
        uint64_t before = ts_engine_commits(engine);
        ts_engine_state state;
        bool ran = ts_engine_run(engine, &state, err);
        commits += ts_engine_commits(engine) - before;
        if (!ran) goto done;
        if (state == TS_ENGINE_CRASHED && run_options.stop_at_crash) {
            *out = state;
            ok = true;
            goto done;
        }
        if (state == TS_ENGINE_CRASHED) {
            run_options.crash_before_commit = 0;
            ts_engine_close(engine);
            engine = NULL;
            continue;
        }
        if (state == TS_ENGINE_WAITING_SIGNAL && run_options.mutant == TS_ENGINE_MUTANT_BOTH_LAYERS_PERSIST &&
            ts_engine_commits(engine) > before) {
            if (!ts_engine_persist_turn_again(store, ts_engine_journal(engine), &scratch, err)) goto done;
            commits++;
            ts_engine_close(engine); /* its mirror is behind the store now */
            engine = NULL;
            continue;
        }
        const ts_journal *j = ts_engine_journal(engine);
        uint64_t next = j->events_applied;
        if (next >= scenario->event_count) {
            *out = state;
            ok = true;
            goto done;
        }
        const ts_event *ev = &scenario->events[next];
        bool applied = false;
        switch (ev->kind) {
        case TS_EVENT_SIGNAL:
        case TS_EVENT_BRANCH: {
            ts_json_builder b;
            ts_json_builder_init(&b, &scratch);
            ts_json_builder_add(&b, "text", ts_json_make_string(ev->text));
            if (ev->kind == TS_EVENT_BRANCH) ts_json_builder_add(&b, "branchFrom", ts_json_make_int((int64_t)ev->branch_at));
            ts_json signal;
            applied = ts_json_builder_finish(&b, &signal) && ts_store_deliver_signal(store, &signal, next + 1, err);
            break;
        }
        case TS_EVENT_COMPLETE: applied = complete_event(store, scenario, j, ev, next + 1, &scratch, err); break;
        case TS_EVENT_RESTART: applied = ts_store_mark_event(store, next + 1, err); break;
        }
        if (!applied) goto done;
        /* The engine's mirror misses what the world just wrote: every event is a resume. For a
         * restart that is the point; for the others a running engine would be told, which
         * rebuilding models just as well. */
        ts_engine_close(engine);
        engine = NULL;
    }
done:
    ts_engine_close(engine);
    ts_arena_free(&scratch);
    if (commits_out) *commits_out = commits;
    return ok;
}
