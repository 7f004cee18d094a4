/* journal_sim.h — the journal checkers' derivation of the expected execution: SPEC.md §6.1's
 * scripted world, executed from the scenario alone (never by the reference engine), under one
 * reading of the choices SPEC leaves open. Shared by the journal checker modules only.
 *
 * Owns: the entries, tasks and final state a scenario's execution must end with. Entry k here
 * is the k-th entry ever created (the answer's entries[k]). Where SPEC leaves a value to the
 * engine (the timestamps without a clock, the wording of an unknown tool's error, an empty
 * toolCalls array written or left out), the derivation takes the answer's own value for it, so
 * that what follows (LLM task inputs, keys) is judged against what the engine stored.
 */
#ifndef TURNSTILE_CONFORMANCE_CHECKERS_JOURNAL_SIM_H
#define TURNSTILE_CONFORMANCE_CHECKERS_JOURNAL_SIM_H

#include "conformance/checkers/journal/journal_answer.h"
#include "core/resume/scenario.h"

typedef enum sim_phase { SIM_IDLE, SIM_LLM, SIM_TOOLS } sim_phase;

/* SPEC §6.1 does not say what a user message (a signal or an edit) does while tool calls are
 * pending; every reading passes. Two choices, as bits of the reading:
 * EDITS_QUEUED: an edit is a user message like a signal: it waits in the inbox until the pending
 * calls finish and is applied in arrival order, at the points where signals are consumed (the
 * reference's reading); without it, an edit is applied when it arrives and abandons the pending
 * calls with the rest of the old branch (signals waiting then join before the next LLM task).
 * SIGNALS_AT_ONCE: a signal becomes its user entry when it arrives, before the pending calls'
 * tool entries; without it, it waits for them (the reference's reading). The model's answers
 * follow from the LLM tasks either way. Without a user message during pending calls every
 * reading is the same execution. */
typedef enum sim_reading { EDITS_QUEUED = 1, SIGNALS_AT_ONCE = 2, READING_COUNT = 4 } sim_reading;
typedef enum sim_origin { FROM_INPUT, FROM_SIGNAL, FROM_BRANCH, FROM_LLM, FROM_TOOL } sim_origin;

typedef struct sim_entry {
    ts_entry_role role;
    ts_json content;
    size_t parent;    /* NO_INDEX for a root */
    ts_str timestamp; /* the one the derivation hashes into LLM inputs */
    sim_origin origin;
    size_t origin_index; /* FROM_SIGNAL: signal; FROM_BRANCH: event; FROM_LLM / FROM_TOOL: task */
    bool error_free;     /* a tool the scenario lacks: its error's wording is the engine's */
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
    bool error_free;   /* a tool the scenario lacks: any error text */
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
    bool event_while_pending; /* a user message arrived while tool calls were pending: the readings differ */
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

/* clock.start + k * stepMs, written YYYY-MM-DDThh:mm:ss.fffffff+00:00 (SPEC §6.1, The clock). */
void jc_clock_timestamp(const ts_scenario *scenario, uint64_t k, char out[TIMESTAMP_TEXT]);
/* The path from the root to entry `leaf`, root first (arena). */
size_t *jc_sim_path(sim *s, size_t leaf, size_t *count);
/* Runs the scenario under s->reading: s->scenario, s->answer, s->arena set, the rest zero. */
void jc_sim_execute(sim *s);

#endif
