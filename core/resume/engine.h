/* engine.h — the reference resume engine: a ReAct agent loop that persists every step of an
 * execution in a journal (store.h) and, rebuilt from that journal at any point, continues
 * exactly where it stopped (conformance/SPEC.md section 6).
 *
 * Owns: when and what to commit. Every step is one atomic commit:
 *   - the input, or the signals waiting in the inbox, become user entries (one each, in order)
 *     together with the checkpoint that consumes them (a signal with "branchFrom" starts a
 *     branch there; with "immediate" too, at once, abandoning the calls pending);
 *   - one LLM task's answer becomes one assistant entry, with the task's result and the next
 *     checkpoint (phase "tools" with the pending tool calls and index 0, or "idle");
 *   - one tool call's result becomes one tool entry, with the task's result and the checkpoint
 *     that advances the index (or moves to phase "llm" after the last call).
 * Entry ids are random UUIDv4 (libuuid, the OS CSPRNG), minted once: a commit that failed is
 * retried with the very same ids. Task ids are content-derived (taskid.h), so the same step
 * after a resume finds its recorded result and never runs again. Timestamps are minted once,
 * when an entry is created, and read back verbatim: rebuilding never reads the clock. The
 * engine is the only component that appends entries (one owner of persistence).
 * What it does not own: the model, the tools and the clock. It asks its world (world.h) for
 * them — a scenario's scripted world, or the certifier over a pipe — and tells the world
 * before and after each commit.
 */
#ifndef TURNSTILE_CORE_ENGINE_H
#define TURNSTILE_CORE_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/json/buf.h"
#include "core/json/error.h"
#include "core/resume/scenario.h"
#include "core/resume/store.h"
#include "core/resume/world.h"

/* Where a run stopped. */
typedef enum ts_engine_state {
    TS_ENGINE_WAITING_SIGNAL, /* the turn is over; suspended until a signal arrives */
    TS_ENGINE_WAITING_TASK,   /* suspended until a pending tool task completes */
    TS_ENGINE_CRASHED,        /* stopped by options.crash_before_commit (a simulated crash) */
} ts_engine_state;

/* The engine's seams: the choices where the reference takes one way (SPEC §6) and an engine
 * could take another. A NULL hooks pointer, or a NULL member, is the reference's choice; a test
 * swaps another in to prove that the checkers catch it (conformance/testee/mutants.h builds
 * the seeds' historic bugs this way). The engine knows each hook only by what is said here.
 * Every hook gets options.hooks_context first. */
typedef struct ts_engine_hooks {
    /* Writes the id of a new entry into out (NUL-terminated), given how many ids this engine
     * has minted before (0 for a newly built engine). Reference: a random UUIDv4. */
    void (*mint_entry_id)(void *context, uint64_t minted, char out[TS_UUID_TEXT]);
    /* Called before each commit with the journal so far and the commit's entries, in order; it
     * may drop some (*count shrinks, the rest keep their order). Reference: none dropped. */
    void (*filter_entries)(void *context, const ts_journal *journal, ts_entry *entries, size_t *count);
    /* The timestamp of a message rebuilt from the journal when the engine is built, given the
     * stored entry and the ordinal the engine would give the world's clock for an entry at
     * that place (journal entries + position on the path). Reference: NULL, the entry's own,
     * read back verbatim. When set, the rebuilt messages count as rewritten: LLM tasks are
     * named from the conversation's whole text instead of the running key. */
    void (*timestamp_on_load)(void *context, ts_world *world, uint64_t clock_ordinal, const ts_entry *entry,
                              char out[TS_TIMESTAMP_TEXT]);
    /* The canonical text of a task's input, from which its key and id derive (false: cannot,
     * with err set or not). Reference: NULL, RFC 8785 (canon.h). When set, LLM tasks are named
     * from the conversation's whole text (the running key is the reference's form). */
    bool (*canonical_input)(void *context, ts_buf *out, const ts_json *input, ts_error *err);
    /* The phase to act on at the first step of a run (ts_engine_run) of a resumed engine (one
     * that found a checkpoint and has not committed yet), given the checkpoint's phase.
     * Reference: NULL, the checkpoint's own. */
    ts_str (*resumed_phase)(void *context, ts_str phase);
    /* Signals in the inbox: true moves the signal cursor in a commit of its own, before the
     * commit that writes their entries. Reference: false, one commit for both. */
    bool cursor_before_signals;
    /* A layer above the engine, called when a turn ends (the engine waits for a signal and
     * committed something in that run): it may write to the store (what it writes is
     * `after_turn_what`, for the world's notices). ts_engine_drive counts it as one commit and
     * rebuilds the engine from the store. Reference: NULL, nothing. */
    bool (*after_turn)(void *context, ts_store *store, const ts_journal *journal, ts_arena *scratch, ts_error *err);
    const char *after_turn_what;
    /* ts_engine_drive rebuilds the engine from the store at every event, as frameworks that
     * resume an execution for each event that wakes it do. Reference: false, the engine keeps
     * running and is rebuilt at restarts and crashes only. */
    bool rebuild_at_every_event;
} ts_engine_hooks;

typedef struct ts_engine_options {
    const ts_engine_hooks *hooks; /* NULL: the reference's choices; must outlive the engine */
    void *hooks_context;
    /* When non-zero, the run stops (TS_ENGINE_CRASHED) just before the commit with this
     * number (1-based, counted over the engine's whole life), as if the process died there. */
    uint64_t crash_before_commit;
    /* ts_engine_drive only: stop at that crash (returning TS_ENGINE_CRASHED), as a killed
     * process would, instead of resuming at once. */
    bool stop_at_crash;
    /* Called after each successful commit with its number; a crash test kills the process here. */
    void (*after_commit)(void *context, uint64_t commit_number);
    void *after_commit_context;
} ts_engine_options;

typedef struct ts_engine ts_engine;

/* Builds an engine over store for execution_id, asking world (world.h) for the model, the
 * tools and the clock: begins the execution if the store is new, loads the journal and
 * rebuilds the conversation from it. `input` is the first user message, used when the store
 * holds no step yet; absent (ptr NULL), such an engine waits (TS_ENGINE_WAITING_SIGNAL). NULL
 * with err on failure. The world, the input and the options must outlive the engine. */
ts_engine *ts_engine_open(ts_store *store, ts_world *world, const char *execution_id, ts_str input,
                          const ts_engine_options *options, ts_error *err);

/* Runs until the execution suspends. false with err when a step cannot be committed (the
 * store's error, never swallowed) or the world cannot answer (e.g. no LLM answer left); the
 * step's commit is kept and retried, with the same ids, by the next call. */
bool ts_engine_run(ts_engine *engine, ts_engine_state *out, ts_error *err);

/* The journal as the engine sees it (its mirror of the store). */
const ts_journal *ts_engine_journal(const ts_engine *engine);

/* How many commits this engine has made. */
uint64_t ts_engine_commits(const ts_engine *engine);

void ts_engine_close(ts_engine *engine); /* accepts NULL */

/* Drives a whole scenario (its world is ts_scenario_world): runs the engine, then applies each event not yet applied (the
 * store remembers how many were, so a driver that died resumes exactly) and runs again; a
 * restart event rebuilds the engine from the store, and so does a simulated crash (unless
 * options.stop_at_crash: then the drive stops there, with *out TS_ENGINE_CRASHED), and so do
 * the hooks after_turn and rebuild_at_every_event. Stops
 * after the last event with the engine suspended. A store that already holds a run of this
 * scenario is resumed. *commits_out (may be NULL) counts commits over all engines. */
bool ts_engine_drive(ts_store *store, const ts_scenario *scenario, const ts_engine_options *options,
                     ts_engine_state *out, uint64_t *commits_out, ts_error *err);

#endif
