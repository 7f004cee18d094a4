/* engine_mirror.c — the engine's view of its journal: the mirror, the conversation and its
 * running key, and the counts kept beside them (answers recorded, tasks pending), following
 * the engine's own commits and the outside world's writes; see engine_internal.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json/assert.h"
#include "core/json/codec.h"
#include "core/resume/engine_internal.h"

static bool oom(ts_error *err) {
    ts_error_set(err, TS_ERR_NOMEM, "out of memory");
    return false;
}

/* ------------------------------------------------------------------- the conversation ---- */

/* Hashes one message ({"role", "content", "timestamp"}) into the running key. */
static bool add_to_key(ts_engine *e, const ts_json *message, ts_error *err) {
    ts_buf_reset(&e->canonical);
    if (!ts_llm_message_canon(&e->canonical, ts_json_string(ts_json_get(message, "role")), ts_json_get(message, "content"),
                              ts_json_string(ts_json_get(message, "timestamp")), err))
        return false;
    ts_transcript_key_add(&e->key, e->canonical.data, e->canonical.len);
    return true;
}

/* Appends one message; while the messages are the stored path, its canonical text joins the
 * running key. */
bool ts_engine_push_message(ts_engine *e, const ts_entry *entry, ts_str timestamp, ts_error *err) {
    if (e->message_count == e->message_cap) {
        size_t cap = e->message_cap ? 2 * e->message_cap : 16;
        ts_json *grown = e->messages ? ts_arena_grow(&e->arena, e->messages, e->message_cap * sizeof *grown, cap * sizeof *grown)
                                     : ts_arena_alloc(&e->arena, cap * sizeof *grown);
        char(*ids)[TS_UUID_TEXT] = e->message_ids ? ts_arena_grow(&e->arena, e->message_ids, e->message_cap * sizeof *ids,
                                                                  cap * sizeof *ids)
                                                  : ts_arena_alloc(&e->arena, cap * sizeof *ids);
        if (grown) e->messages = grown;
        if (ids) e->message_ids = ids;
        if (!grown || !ids) return oom(err);
        e->message_cap = cap;
    }
    memcpy(e->message_ids[e->message_count], entry->id, TS_UUID_TEXT);
    ts_json *message = &e->messages[e->message_count];
    if (!ts_llm_message(entry, timestamp, &e->arena, message)) return oom(err);
    e->message_count++;
    if (!e->faithful || !e->key.state || e->key_messages + 1 != e->message_count) return true; /* caught up later */
    e->key_messages++;
    return add_to_key(e, message, err);
}

/* The running key starts over (a rebuilt conversation). Only the reference's canonical form
 * is grown this way; another (hooks.canonical_input) names every task from its whole text. */
void ts_engine_restart_key(ts_engine *e, bool faithful) {
    ts_transcript_key_free(&e->key);
    e->key_messages = 0;
    e->faithful = faithful && !e->hooks.canonical_input;
}

bool ts_engine_current_key(ts_engine *e, char out[TS_TASK_KEY_TEXT_LEN + 1], ts_error *err) {
    if (!e->key.state && !ts_transcript_key_begin(&e->key, e->journal.execution_id, err)) return false;
    for (; e->key_messages < e->message_count; e->key_messages++)
        if (!add_to_key(e, &e->messages[e->key_messages], err)) return false;
    return ts_transcript_key_finish(&e->key, out, err);
}

/* Rebuilds the conversation from the stored path to leaf. `reload` marks the rebuild after a
 * load, the one place hooks.timestamp_on_load is asked. */
bool ts_engine_rebuild_conversation(ts_engine *e, const char *leaf, bool reload, ts_error *err) {
    const ts_entry **path;
    size_t count;
    if (!ts_journal_path(&e->journal, leaf, &e->arena, &path, &count, err)) return false;
    bool regenerate = reload && e->hooks.timestamp_on_load;
    ts_engine_restart_key(e, !regenerate);
    e->message_count = 0;
    for (size_t i = 0; i < count; i++) {
        ts_str timestamp = path[i]->timestamp;
        if (regenerate) {
            char now[TS_TIMESTAMP_TEXT];
            e->hooks.timestamp_on_load(e->options.hooks_context, e->world, e->journal.entry_count + i, path[i], now);
            timestamp = ts_str_dup(&e->arena, ts_str_from(now));
        }
        if (!ts_engine_push_message(e, path[i], timestamp, err)) return false;
    }
    snprintf(e->leaf_id, sizeof e->leaf_id, "%s", leaf);
    return true;
}

/* ------------------------------------------------------------------- the journal mirror ---- */

static bool is_llm_answer(const ts_task *t) {
    return ts_str_eq_cstr(t->kind, TS_LLM_TASK_KIND) && t->status == TS_TASK_COMPLETED;
}

static bool note_pending(ts_engine *e, size_t index) {
    if (e->pending_count == e->pending_cap) {
        size_t cap = e->pending_cap ? 2 * e->pending_cap : 8;
        size_t *grown = realloc(e->pending, cap * sizeof *grown);
        if (!grown) return false;
        e->pending = grown;
        e->pending_cap = cap;
    }
    e->pending[e->pending_count++] = index;
    return true;
}

static void forget_pending(ts_engine *e, size_t index) {
    for (size_t i = 0; i < e->pending_count; i++)
        if (e->pending[i] == index) {
            e->pending[i] = e->pending[--e->pending_count];
            return;
        }
}

/* The counts the engine keeps beside its mirror, from the journal as loaded. */
bool ts_engine_count_tasks(ts_engine *e) {
    e->llm_answers = 0;
    e->pending_count = 0;
    for (size_t i = 0; i < e->journal.task_count; i++) {
        const ts_task *t = &e->journal.tasks[i];
        e->llm_answers += is_llm_answer(t);
        if (t->status == TS_TASK_PENDING && !note_pending(e, i)) return false;
    }
    return true;
}

/* The mirror takes a commit the store took: the same check, then the same change, and the
 * counts follow. */
bool ts_engine_mirror_commit(ts_engine *e, const ts_commit *commit, ts_error *err) {
    size_t n = commit->entry_count, m = commit->task_count;
    bool *fresh = calloc(n + 2 * m + 1, sizeof *fresh);
    if (!fresh) return oom(err);
    bool *new_tasks = fresh + n, *was_pending = fresh + n + m;
    for (size_t i = 0; i < m; i++) {
        const ts_task *t = ts_journal_find_task(&e->journal, commit->tasks[i].id);
        was_pending[i] = t && t->status == TS_TASK_PENDING;
    }
    bool ok = ts_commit_check(&e->journal, commit, fresh, new_tasks, err) &&
              ts_commit_apply(&e->journal, &e->arena, commit, fresh, new_tasks, err);
    for (size_t i = 0; ok && i < m; i++) {
        if (!new_tasks[i]) continue;
        const ts_task *t = ts_journal_find_task(&e->journal, commit->tasks[i].id);
        if (TS_NEVER(!t)) { /* applied just now */
            ts_error_set(err, TS_ERR_INPUT, "the mirror lost task %s", commit->tasks[i].id);
            ok = false;
            break;
        }
        size_t index = (size_t)(t - e->journal.tasks);
        e->llm_answers += is_llm_answer(t);
        if (was_pending[i]) forget_pending(e, index);
        if (t->status == TS_TASK_PENDING && !note_pending(e, index)) ok = oom(err);
    }
    free(fresh);
    return ok;
}

bool ts_engine_note_signal(ts_engine *e, const ts_json *signal, uint64_t events_applied, ts_error *err) {
    if (!ts_journal_add_signal(&e->journal, &e->arena, signal)) return oom(err);
    e->journal.events_applied = events_applied;
    return true;
}

bool ts_engine_note_completion(ts_engine *e, const ts_task *task, uint64_t events_applied, ts_error *err) {
    ts_task *t = ts_journal_find_task(&e->journal, task->id);
    ts_json result; /* the driver completes only tasks the engine names as pending */
    if (TS_NEVER(!t) || !ts_json_clone(&e->arena, &task->result, &result)) {
        if (t) ts_error_set(err, TS_ERR_NOMEM, "out of memory");
        else ts_error_set(err, TS_ERR_INPUT, "the engine does not know task %s", task->id);
        return false;
    }
    if (t->status == TS_TASK_PENDING) forget_pending(e, (size_t)(t - e->journal.tasks));
    t->status = task->status;
    t->result = result;
    e->llm_answers += is_llm_answer(t);
    e->journal.events_applied = events_applied;
    return true;
}

void ts_engine_note_event(ts_engine *e, uint64_t events_applied) { e->journal.events_applied = events_applied; }

const ts_task *ts_engine_pending_task_of_call(const ts_engine *e, ts_str call_id, ts_arena *scratch) {
    for (size_t i = 0; i < e->pending_count; i++) {
        const ts_task *t = &e->journal.tasks[e->pending[i]];
        if (!t->input.ptr) continue; /* an LLM task: no call */
        ts_json input;
        ts_error ignored;
        ts_error_clear(&ignored);
        if (!ts_codec_parse(scratch, t->input.ptr, t->input.len, &input, &ignored)) continue;
        if (ts_str_eq(ts_json_string(ts_json_get(&input, "callId")), call_id)) return t;
    }
    return NULL;
}

