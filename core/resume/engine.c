/* engine.c — the reference resume engine; see engine.h. */
#include "core/resume/engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uuid/uuid.h>

#include "core/json/assert.h"
#include "core/json/canon.h"
#include "core/resume/engine_internal.h"
#include "core/resume/taskid.h"

static bool oom(ts_error *err) {
    ts_error_set(err, TS_ERR_NOMEM, "out of memory");
    return false;
}

/* --------------------------------------------------------------------------- staging ---- */

static void stage_reset(staged *s) {
    ts_arena_free(&s->arena);
    memset(s, 0, sizeof *s);
}

static void mint_entry_id(ts_engine *e, char out[TS_UUID_TEXT]) {
    uint64_t minted = e->ids_minted++;
    if (e->hooks.mint_entry_id) {
        e->hooks.mint_entry_id(e->options.hooks_context, minted, out);
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
    /* The signal cursor moves forward, never past the inbox. */
    TS_ASSERT(signals_consumed <= e->journal.signal_count &&
              (!e->journal.has_checkpoint || signals_consumed >= e->journal.checkpoint.signals_consumed));
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
    s->task.input = ts_str_dup(&s->arena, task->input); /* absent when kept as a leaf */
    return s->task.kind.ptr && (s->task.input.ptr || !task->input.ptr) &&
           ts_json_clone(&s->arena, &task->result, &s->task.result);
}

#if TS_DEBUG
/* A staged commit's entries chain: each is a root, or the child of an entry of the journal or
 * of one staged before it. */
static bool stage_chains(const ts_engine *e) {
    const staged *s = &e->stage;
    for (size_t i = 0; i < s->entry_count; i++) {
        const char *parent = s->entries[i].parent_id;
        bool found = !parent[0] || ts_journal_find_entry(&e->journal, parent);
        for (size_t k = 0; k < i && !found; k++) found = strcmp(s->entries[k].id, parent) == 0;
        if (!found) return false;
    }
    return true;
}
#endif

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
    if (e->hooks.filter_entries) e->hooks.filter_entries(e->options.hooks_context, &e->journal, s->entries, &s->entry_count);
    TS_ASSERT(stage_chains(e));
    ts_commit commit = {s->entries, s->entry_count, s->has_task ? &s->task : NULL, s->has_task ? 1 : 0,
                        s->has_checkpoint ? &s->checkpoint : NULL};
    if (!ts_store_commit(e->store, &commit, err)) return false;
    e->commits++;
    if (!ts_engine_mirror_commit(e, &commit, err)) return false;
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
                if (TS_NEVER(!stored)) return ts_error_set(err, TS_ERR_INPUT, "the mirror lost entry %s", s->entries[i].id), false;
                if (!ts_engine_push_message(e, stored, stored->timestamp, err)) return false;
            }
            snprintf(e->leaf_id, sizeof e->leaf_id, "%s", s->checkpoint.leaf_id);
        } else if (!ts_engine_rebuild_conversation(e, s->checkpoint.leaf_id, false, err)) {
            return false;
        }
    }
    /* The conversation is the path to the checkpoint's leaf. */
    TS_ASSERT(strcmp(e->leaf_id, e->journal.checkpoint.leaf_id) == 0 &&
              (e->message_count == 0 || strcmp(e->message_ids[e->message_count - 1], e->leaf_id) == 0));
    if (e->options.after_commit) e->options.after_commit(e->options.after_commit_context, e->commits);
    stage_reset(s);
    return !notify || notify(e->world, true, e->commits, what, err);
}

/* ------------------------------------------------------------------------ task names ---- */

/* Names the task (kind, input): canonical input, key, id. */
static bool name_task(ts_engine *e, const char *kind, const ts_json *input, ts_task *out, ts_arena *arena,
                      ts_error *err) {
    memset(out, 0, sizeof *out);
    ts_buf canonical;
    ts_buf_init(&canonical);
    bool ok = e->hooks.canonical_input ? e->hooks.canonical_input(e->options.hooks_context, &canonical, input, err)
                                       : ts_canon_write(&canonical, input, err);
    if (!ok || canonical.failed) {
        ts_buf_free(&canonical);
        if (!err->message[0]) ts_error_set(err, TS_ERR_INPUT, "cannot canonicalise the input of a %s task", kind);
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

/* Names the LLM task of the conversation so far. While the messages are the stored path, the
 * key is the running one and the input is kept as the leaf (the transcript is not written out
 * again); otherwise (a hook rewrote the messages or canonicalises another way: engine.h) the
 * whole input is canonicalised and kept inline. */
static bool name_llm_task(ts_engine *e, ts_task *out, ts_arena *arena, ts_error *err) {
    if (!e->faithful) {
        ts_json_builder b;
        ts_json_builder_init(&b, arena);
        ts_json_builder_add(&b, "messages", (ts_json){TS_JSON_ARRAY, {.a = {e->messages, e->message_count}}});
        ts_json input;
        if (!ts_json_builder_finish(&b, &input)) return oom(err);
        return name_task(e, TS_LLM_TASK_KIND, &input, out, arena, err);
    }
    memset(out, 0, sizeof *out);
    out->kind = ts_str_from(TS_LLM_TASK_KIND);
    snprintf(out->input_leaf, sizeof out->input_leaf, "%s", e->leaf_id);
    out->result = ts_json_make_null();
    return ts_engine_current_key(e, out->key, err) && ts_task_id(out->key, out->id, err);
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
 * of the transcript (its parent is the entry before K). One that also carries "immediate": true
 * is consumed even while tool calls are pending (immediate_branch_waiting): the branch abandons
 * them with the rest of the old suffix, and the new one goes on from phase llm. */
static bool step_signals(ts_engine *e, const ts_json *state, bool *crashed, ts_error *err) {
    const ts_journal *j = &e->journal;
    uint64_t from = j->checkpoint.signals_consumed, to = j->signal_count;
    if (e->hooks.cursor_before_signals) {
        /* The cursor moves first, in a commit of its own (engine.h); a crash before the next
         * commit loses the signals. */
        if (!stage_checkpoint(e, e->leaf_id, to, state)) return oom(err);
        e->stage.what = "the signal cursor";
        e->stage.active = true;
        if (!commit_stage(e, crashed, err)) return false;
        if (*crashed) return true;
    }
    /* Ids along the transcript as the batch builds it (the conversation's are the path's). */
    size_t count = e->message_count;
    const char **ids = ts_arena_alloc(&e->stage.arena, (count + (to - from) + 1) * sizeof *ids);
    if (!ids) return oom(err);
    for (size_t i = 0; i < count; i++) ids[i] = e->message_ids[i];
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

/* One LLM task: the conversation in, one assistant entry out. */
static bool step_llm(ts_engine *e, bool *crashed, ts_error *err) {
    ts_arena *arena = &e->stage.arena;
    ts_task task;
    if (!name_llm_task(e, &task, arena, err)) return false;
    const ts_task *recorded = ts_journal_find_task(&e->journal, task.id);
    ts_json answer;
    if (recorded && recorded->status == TS_TASK_COMPLETED) {
        answer = recorded->result; /* the same step again: its recorded result, never a new call */
    } else if (recorded) {
        ts_error_set(err, TS_ERR_REFUSED, "LLM task %s is %s", task.id, ts_task_status_name(recorded->status));
        return false;
    } else if (!e->world->vtable->model(e->world, e->messages, (const char(*)[TS_UUID_TEXT])e->message_ids,
                                        e->message_count, e->llm_answers, arena, &answer, err)) {
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
        ts_error_set(err, TS_ERR_INPUT, "checkpoint %llu: phase tools without pendingToolCalls and pendingToolIndex",
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

/* Whether the inbox holds an unconsumed signal that branches at once ("immediate": true, as the
 * universal tier's edit and fork do: PROTOCOL.md `resume`), whatever is pending. */
static bool immediate_branch_waiting(const ts_journal *j) {
    for (uint64_t k = j->checkpoint.signals_consumed; k < j->signal_count; k++) {
        const ts_json *immediate = ts_json_get(&j->signals[k], "immediate");
        if (ts_json_get(&j->signals[k], "branchFrom") && immediate && immediate->kind == TS_JSON_TRUE) return true;
    }
    return false;
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
    if (e->options.hooks) e->hooks = *e->options.hooks;
    ts_buf_init(&e->canonical);
    ts_arena_init(&e->arena);
    ts_journal_init(&e->journal);
    if (!ts_store_begin_execution(store, e->execution_id, err) || !ts_store_load(store, &e->arena, &e->journal, err))
        goto fail;
    if (strcmp(e->journal.execution_id, e->execution_id) != 0) {
        ts_error_set(err, TS_ERR_REFUSED, "the store holds execution %s, not %s", e->journal.execution_id, e->execution_id);
        goto fail;
    }
    if (!ts_engine_count_tasks(e)) {
        oom(err);
        goto fail;
    }
    if (!e->journal.has_checkpoint) ts_engine_restart_key(e, true);
    else if (!ts_engine_rebuild_conversation(e, e->journal.checkpoint.leaf_id, true, err)) goto fail;
    return e;
fail:
    ts_engine_close(e);
    return NULL;
}

void ts_engine_close(ts_engine *e) {
    if (!e) return;
    stage_reset(&e->stage);
    ts_transcript_key_free(&e->key);
    ts_buf_free(&e->canonical);
    free(e->pending);
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
    /* A resumed engine's first step may act on another phase than its checkpoint's (engine.h). */
    bool resuming = e->hooks.resumed_phase && e->commits == 0 && e->journal.has_checkpoint;
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
        TS_ASSERT(j->checkpoint.signals_consumed <= j->signal_count && e->pending_count <= j->task_count &&
                  e->llm_answers <= j->task_count);
        const ts_json *state = &j->checkpoint.state;
        ts_str phase = ts_json_string(ts_json_get(state, "phase"));
        if (resuming) phase = e->hooks.resumed_phase(e->options.hooks_context, phase);
        resuming = false;
        bool ok = true, waiting = false;
        if (((ts_str_eq_cstr(phase, "idle") || ts_str_eq_cstr(phase, "llm")) &&
             j->signal_count > j->checkpoint.signals_consumed) ||
            (ts_str_eq_cstr(phase, "tools") && immediate_branch_waiting(j))) {
            ok = step_signals(e, state, &crashed, err);
        } else if (ts_str_eq_cstr(phase, "idle")) {
            *out = TS_ENGINE_WAITING_SIGNAL;
            return true;
        } else if (ts_str_eq_cstr(phase, "llm")) {
            ok = step_llm(e, &crashed, err);
        } else if (ts_str_eq_cstr(phase, "tools")) {
            ok = step_tool(e, state, &waiting, &crashed, err);
        } else {
            ts_error_set(err, TS_ERR_INPUT, "checkpoint %llu has an unknown phase", (unsigned long long)j->checkpoint.sequence);
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

