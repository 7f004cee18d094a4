/* journal_checks.h — the resume-engine checkers: decide rules J1-J12 of conformance/SPEC.md
 * section 6 on any testee's answer to a `journal` request (conformance/PROTOCOL.md).
 *
 * Owns: judging a journal against its scenario. The expected execution is re-derived here from
 * SPEC §6.1 alone — a small simulation of the scripted world (the ReAct loop, the LLM answer
 * index, tool scripts, async tools, signals, edits, restarts, the clock, task names) — and never
 * by calling the reference engine (core/resume/engine.h) or a store, so that the engine and this oracle
 * can disagree, and a disagreement is a finding. Only core's model modules are used (journal.h's
 * role and status names, scenario.h, canon.h, taskid.h, json.h, codec.h, timestamp.h).
 *
 * Where SPEC §6 leaves a choice, every allowed choice passes: member order; the form of
 * checkpoint.state beyond its phase, pendingToolIndex and the call ids of pendingToolCalls; the
 * checkpoint's sequence number (how many commits a step takes); whether edits are listed in the
 * "signals" inbox (and counted by signalsConsumed) beside the signals; what an edit does while
 * tool calls are pending — applied at once, abandoning them (an async task so abandoned may stay
 * pending or take its result), or queued like a signal until they finish; whether a signal that
 * arrives while tool calls are pending becomes its entry at once or after their entries: the
 * expected execution is derived under every reading and the answer judged by the one it fits;
 * the timestamps of a scenario without a clock (LLM inputs are then checked against the stored
 * ones); the wording of an unknown tool's error; and an empty "toolCalls" written or left out.
 *
 * Rule used for a malformed answer: J2 ("a tree, and a transcript"). An answer that is not an
 * object, lacks a member, or holds a member of the wrong type (executionId, transcript, entries,
 * tasks, signals, checkpoint and their items' members) draws one J2 finding naming the field
 * path (e.g. "entries[3].content: must be an object, got string") and no other check runs on
 * it; a null timestamp is J8's finding alone. J13 (crash equivalence) is judged on the answers
 * of crash cases: every Required finding there is a J13 finding naming its rule; it is also
 * judged through restart events by J3, J4 and J6-J11.
 *
 * These are the reference profile's rules (the `journal` op): a testee that answers it claims
 * the reference's design, task-key formula (J5) and LLM task inputs (J7) included. The
 * universal tier (resume_checks.h) has neither.
 */
#ifndef TURNSTILE_CONFORMANCE_CHECKERS_JOURNAL_CHECKS_H
#define TURNSTILE_CONFORMANCE_CHECKERS_JOURNAL_CHECKS_H

#include <stdbool.h>

#include "conformance/checkers/findings.h"
#include "core/json/json.h"
#include "core/resume/scenario.h"

/* Checks `journal_answer` (the value of the answer's "journal" member) as the journal the
 * execution of `scenario` ends with. Appends one finding per violation (a few per rule at most)
 * to `findings`, each saying what was expected and what came back. Borrows both inputs.
 * Returns false only when memory ran out (the findings are then incomplete). */
bool ts_check_journal(const ts_scenario *scenario, const ts_json *journal_answer, ts_findings *findings);

/* The same judgement of an answer given after a crash before commit `crash_before_commit`
 * (a journal case's "crashBeforeCommit"): a Required finding of any rule is reported under J13,
 * crash equivalence, naming that rule and the commit. */
bool ts_check_journal_after_crash(const ts_scenario *scenario, const ts_json *journal_answer,
                                  long crash_before_commit, ts_findings *findings);

/* A journal answer's JSON with every id the engine mints replaced by its position: entry ids
 * (entryId, parentId, leafId) by the entry's in "entries" ("#0", ...), task ids and keys by the
 * task's in "tasks" ("#t0", ...). Two runs of one scenario by an engine with ids of its own
 * (random, or from a clock or a counter) compare equal this way (D1). Copies into arena;
 * false when memory ran out. */
bool ts_journal_json_renumbered(const ts_json *journal, ts_arena *arena, ts_json *out);

#endif
