/* resume_run.h — the certifier's side of the `resume` op (conformance/PROTOCOL.md): the harness
 * owns the world, kills the testee itself, and judges only what it saw.
 *
 * Owns: a resume case's sweep and verdict. The runs are played by resume_play.h (the world,
 * the nemesis, the stores): first the uninterrupted run, then one kill run per plan it gives,
 * each from an empty store of its own, killing the testee at that point, restarting it, sending
 * `recover`, reading the stored conversation, re-sending the interrupted action when its effect
 * is not there (a client's retry), and going on with the rest of the case. This module consumes
 * those runs in order — however and wherever they were played (inline here, or by worker
 * processes: jobs.h) — judges each (resume_checks.h), keeps the history (the uninterrupted run,
 * the first failing kill runs, and every failing run's point and rules), and decides the case:
 * a bound of the case (points per action, its deadline, a run's history, an overloaded host)
 * ends it with its own outcome. The history is the case's answer, so that the report replays it.
 */
#ifndef TURNSTILE_CONFORMANCE_CERTIFIER_RESUME_RUN_H
#define TURNSTILE_CONFORMANCE_CERTIFIER_RESUME_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "conformance/certifier/resume_play.h"
#include "conformance/certifier/run_options.h"
#include "conformance/certifier/testee.h"

/* Runs resume case c through testee and fills r (verdict, outcome, findings of the rules
 * options selects, r->answer: the history JSON). `async`: the testee can suspend on a pending
 * tool call (hello's "async" is not false); a case that needs it is skipped otherwise. Stops
 * between runs when the certifier is interrupted (supervise.h ts_child_interrupted): r is then
 * no verdict and the caller drops it. */
void ts_resume_run_case(const ts_case *c, ts_testee *testee, const ts_run_options *options, bool async,
                        ts_case_result *r);

/* ---- the sweep, for runs played elsewhere (jobs.h) ---- */

typedef struct ts_resume_sweep ts_resume_sweep;

/* A sweep of case c (r->outcome "answered" set first). NULL when the case is decided before any
 * run — no resume case ("bad-case"), or one that needs an asynchronous tool the testee lacks
 * (skipped) — with r saying so. */
ts_resume_sweep *ts_resume_sweep_new(const ts_case *c, const ts_run_options *options, bool async, ts_case_result *r);

/* Does the uninterrupted run call for kill runs (then its player computes their plans)? */
bool ts_resume_run_wants_plans(const ts_resume_run *run);

/* The uninterrupted run and what its player found (ts_resume_player_plans, with plans when
 * ts_resume_run_wants_plans). True when plans->count kill runs follow (index 0...). */
bool ts_resume_sweep_first(ts_resume_sweep *s, const ts_resume_run *run, const ts_resume_plans *plans, ts_case_result *r);

/* Kill run `index` (in order), made by plan. True when the next follows; false when the case ends here (a
 * bound of the case, or a run that could not begin). */
bool ts_resume_sweep_kill(ts_resume_sweep *s, size_t index, const ts_kill_plan *plan, const ts_resume_run *run,
                          ts_case_result *r);

/* The case decided into r (the history as r->answer, findings, verdict); frees s. Accepts NULL. */
void ts_resume_sweep_finish(ts_resume_sweep *s, ts_case_result *r);

#endif
