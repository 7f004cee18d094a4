/* resume_run.h — the certifier's side of the `resume` op (conformance/PROTOCOL.md): the harness
 * owns the world, kills the testee itself, and judges only what it saw.
 *
 * Owns: (1) the world: answering each model call with llm[k], k the number of assistant
 * messages the call shows, and each tool call from its script (result, error, or pending for
 * an async tool), acknowledging commit notices, and recording every line with the reply it
 * got; (2) the nemesis: after the uninterrupted run, one run per *point* of it (each world
 * call and commit notice, on every turn), each from an empty store, killing the testee's
 * process group at that point before replying, restarting it, sending `recover`, reading the
 * stored conversation, re-sending the interrupted user or complete action when its effect is
 * not there (a client's retry), and going on with the rest of the case; (3) the stores: a
 * directory per run under a temporary directory the harness creates and removes
 * (resume_stores.h), so no run sees another's state; (4) the case's bounds (run.h): points per
 * action, the case's deadline, a run's recorded history, each reached ending the case with its
 * own outcome. The history of every run (resume_checks.h) is judged, and kept as the case's
 * answer so that the report replays it.
 */
#ifndef TURNSTILE_CONFORMANCE_CERTIFIER_RESUME_RUN_H
#define TURNSTILE_CONFORMANCE_CERTIFIER_RESUME_RUN_H

#include <stdbool.h>

#include "conformance/certifier/run.h"
#include "conformance/certifier/testee.h"

/* Runs resume case c through testee and fills r (verdict, outcome, findings of the rules
 * options selects, r->answer: the history JSON). `async`: the testee can suspend on a pending
 * tool call (hello's "async" is not false); a case that needs it is skipped otherwise. */
void ts_resume_run_case(const ts_case *c, ts_testee *testee, const ts_run_options *options, bool async,
                        ts_case_result *r);

#endif
