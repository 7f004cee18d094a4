/* engine_internal.h — private to the resume engine (engine.h): the engine object and what its
 * two files share. Nothing outside core/resume/engine*.c includes it.
 *
 *   engine.c        the engine: staging and committing steps, task names, open, run, close;
 *   engine_mirror.c its view of the journal: the mirror, the conversation and its running
 *                   key, the counts beside them;
 *   engine_drive.c  the scenario driver: the outside world's events, written to the store and
 *                   told to the running engine (no reload per event), restarts and crashes.
 */
#ifndef TURNSTILE_CORE_RESUME_ENGINE_INTERNAL_H
#define TURNSTILE_CORE_RESUME_ENGINE_INTERNAL_H

#include "core/json/buf.h"
#include "core/resume/engine.h"
#include "core/resume/taskid.h"

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
    ts_engine_hooks hooks;   /* options.hooks, or all NULL: the reference's choices (engine.h) */
    ts_arena arena;          /* the journal mirror and the conversation */
    ts_journal journal;
    ts_json *messages;       /* the visible transcript as LLM messages: role, content, timestamp */
    char (*message_ids)[TS_UUID_TEXT]; /* and the ids of their entries */
    size_t message_count, message_cap;
    char leaf_id[TS_UUID_TEXT];
    /* The key an LLM task would get for the first key_messages messages, grown one message at
     * a time (taskid.h), so naming a task costs its last message, not its whole transcript.
     * Kept while the messages are the stored path byte for byte (`faithful`); an LLM task's
     * input is then kept as its leaf. After a rebuild the key starts empty and catches up when
     * a task is named (a resumed engine with nothing to do hashes nothing). Hooks that
     * rewrite messages (timestamp_on_load) or canonicalise another way (canonical_input)
     * name tasks from the whole text instead. */
    ts_transcript_key key;
    size_t key_messages;
    bool faithful;
    ts_buf canonical;        /* scratch: one message's canonical text */
    uint64_t llm_answers;    /* LLM tasks with a recorded result: the world's answer ordinal */
    size_t *pending;         /* indexes (journal.tasks) of the tasks that are pending */
    size_t pending_count, pending_cap;
    staged stage;
    uint64_t commits;
    uint64_t ids_minted;     /* entry ids this engine has minted (hooks.mint_entry_id) */
};

/* ------------------------------------------------------------------ engine_mirror.c ----- */

/* Appends one message to the conversation (and, while faithful, to the running key). */
bool ts_engine_push_message(ts_engine *engine, const ts_entry *entry, ts_str timestamp, ts_error *err);
/* Starts the running key over (empty, caught up when needed); faithful says whether the
 * messages will be the stored path. */
void ts_engine_restart_key(ts_engine *engine, bool faithful);
/* The running key of all the messages (catching up on those not yet in it). */
bool ts_engine_current_key(ts_engine *engine, char out[TS_TASK_KEY_TEXT_LEN + 1], ts_error *err);
/* Rebuilds the conversation from the stored path to leaf; `reload` marks the rebuild after a
 * load, the one place hooks.timestamp_on_load is asked. */
bool ts_engine_rebuild_conversation(ts_engine *engine, const char *leaf, bool reload, ts_error *err);
/* The counts beside the mirror, from the journal as loaded (false: out of memory). */
bool ts_engine_count_tasks(ts_engine *engine);
/* The mirror takes a commit the store took: the same check, the same change, the counts. */
bool ts_engine_mirror_commit(ts_engine *engine, const ts_commit *commit, ts_error *err);

/* What the outside world wrote to the store, told to the engine so that its mirror follows
 * without reading the journal again (engine.c). */
bool ts_engine_note_signal(ts_engine *engine, const ts_json *signal, uint64_t events_applied, ts_error *err);
bool ts_engine_note_completion(ts_engine *engine, const ts_task *task, uint64_t events_applied, ts_error *err);
void ts_engine_note_event(ts_engine *engine, uint64_t events_applied);

/* The pending task of tool call call_id, or NULL. */
const ts_task *ts_engine_pending_task_of_call(const ts_engine *engine, ts_str call_id, ts_arena *scratch);

#endif
