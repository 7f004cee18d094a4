/* engine.h — the reference resume engine: a ReAct agent loop that persists every step of an
 * execution in a journal (store.h) and, rebuilt from that journal at any point, continues
 * exactly where it stopped (conformance/SPEC.md section 6).
 *
 * Owns: when and what to commit. Every step is one atomic commit:
 *   - the input, or the signals waiting in the inbox, become user entries (one each, in order)
 *     together with the checkpoint that consumes them;
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

/* Known historic bugs, built in at the engine's seams so the conformance checkers and fuzzers
 * can prove they catch them (never set outside tests). */
typedef enum ts_engine_mutant {
    TS_ENGINE_CORRECT = 0,
    TS_ENGINE_MUTANT_COUNTER_IDS,          /* entry ids from a counter restarted on resume (seed 003 bug 1) */
    TS_ENGINE_MUTANT_TIMESTAMPS_ON_LOAD,   /* rebuilt messages get the clock's time (seed 003 bug 2) */
    TS_ENGINE_MUTANT_RESTART_LOOP,         /* resume ignores pending tool calls (seed 003 bug 3) */
    TS_ENGINE_MUTANT_BOTH_LAYERS_PERSIST,  /* an adapter persists the turn again (seed 002) */
    TS_ENGINE_MUTANT_UNESCAPED_KEYS,       /* the seed's canonical JSON: keys unescaped */
    TS_ENGINE_MUTANT_SIGNAL_OUTSIDE_COMMIT, /* the signal cursor advances in a commit of its own */
    TS_ENGINE_MUTANT_COUNT
} ts_engine_mutant;

const char *ts_engine_mutant_name(ts_engine_mutant mutant);
bool ts_engine_mutant_parse(const char *name, ts_engine_mutant *out);

typedef struct ts_engine_options {
    ts_engine_mutant mutant;
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

/* The adapter layer of TS_ENGINE_MUTANT_BOTH_LAYERS_PERSIST (seed 002): after a turn, it
 * appends the turn's assistant and tool entries again, with ids of its own, and moves the
 * checkpoint's leaf to the copies. Whoever drives such a mutant calls it when a turn ends. */
bool ts_engine_persist_turn_again(ts_store *store, const ts_journal *journal, ts_arena *arena, ts_error *err);

/* Drives a whole scenario (its world is ts_scenario_world): runs the engine, then applies each event not yet applied (the
 * store remembers how many were, so a driver that died resumes exactly) and runs again; a
 * restart event rebuilds the engine from the store, and so does a simulated crash (unless
 * options.stop_at_crash: then the drive stops there, with *out TS_ENGINE_CRASHED). Stops
 * after the last event with the engine suspended. A store that already holds a run of this
 * scenario is resumed. *commits_out (may be NULL) counts commits over all engines. */
bool ts_engine_drive(ts_store *store, const ts_scenario *scenario, const ts_engine_options *options,
                     ts_engine_state *out, uint64_t *commits_out, ts_error *err);

#endif
