/* resume_checks.h — the universal resume rules U1-U11 (conformance/SPEC.md §6.4), judged on
 * what the certifier observed while it played the model and the tools and killed the testee.
 *
 * Owns: judging a recorded *history*, Jepsen/Knossos style: the history is data (the JSON
 * below, saved in the certify report), and judging it is a pure function of (scenario,
 * history), so a failure replays from the report alone (`turnstile check --scenario S
 * --history H`). Nothing here asks the testee anything; nothing is self-reported.
 *
 *   {"format": "turnstile-resume-history", "version": 1, "case": ID,
 *    "runs": [{"kill": null | POINT, "events": [EVENT, ...]}, ...]}
 *
 * runs[0] is the uninterrupted run; every other run was killed (SIGKILL of the testee's
 * process group) at world point POINT (1-based: the POINT-th line the testee wrote during the
 * run that was a world call or a commit notice), before the reply. EVENT is one of
 *   {"send": ACTION, "of": I, "attempt": N}   an action request (I: the scenario action it
 *                                            carries out; absent for a recover after a kill
 *                                            and for reads); ACTION as in PROTOCOL.md
 *   {"point": P, "model": [MSG...], "reply": K}   a model call, answered llm[K] (null: past the script)
 *   {"point": P, "tool": {"name", "callId", "arguments"}, "reply": REPLY}
 *   {"point": P, "commit": "before"|"after", "what": TEXT}
 *   {"store": N, "point": P, "op": OP}       the run's N-th operation on its store, as the
 *                                            file-system observer saw it (conformance/nemesis/
 *                                            fsop.h); "point" when it changed the store: a kill
 *                                            point after it
 *   {"power-loss": STATE, "description": TEXT}  after a kill, the store was replaced by that crash state
 *   {"killed": P}                            the testee's process group was killed here
 *   {"restart": "kill"|"clean"}              the testee was started again
 *   {"answer": ANSWER}                       the final line of the last action (without "id")
 *   {"outcome": "timeout"|"crashed"|"exited"|"protocol-error"|"case-timeout"|"point-limit"|"history-limit",
 *    "detail": TEXT}
 *                                            the last action drew no answer (harness verdict)
 *
 * A run may also carry "crash": {"state": NAME, "description": TEXT, "killedAs": POINT}: it was a
 * power loss (the store replaced by that crash state, conformance/nemesis/fsmodel.h); killedAs
 * names the killed-process run that is the same kill (a call that run re-ran too is its U7, not
 * a durability finding: the judge remembers what each killed-process run re-ran), and the history
 * "durability": what the testee claims (hello).
 *
 * Findings of a killed run are reported under U9 (crash equivalence), naming the rule they
 * break and the kill point; those of a power-loss run under U11 (power-loss durability, a
 * Recommended level), or U9 when the testee claims power-loss durability; U7 (exactly-once
 * across kills) stays U7, a Recommended level. A kill may re-run a call when it fell inside the
 * call or after its reply and no later than the engine's next protocol point (world call or
 * commit notice): store operations in between are no protocol points.
 * An `error` answer fails the case's own rule (its first Required one; U9 in a killed run) and
 * its run is judged on nothing else.
 */
#ifndef TURNSTILE_CONFORMANCE_CHECKERS_RESUME_CHECKS_H
#define TURNSTILE_CONFORMANCE_CHECKERS_RESUME_CHECKS_H

#include <stdbool.h>
#include <stddef.h>

#include "conformance/checkers/findings.h"
#include "core/json/json.h"
#include "core/resume/scenario.h"

/* A judge of one case's runs, one at a time: the uninterrupted run first (the others are
 * compared with it). NULL with why when the scenario is no resume case, or memory ran out. */
typedef struct ts_resume_judge ts_resume_judge;
ts_resume_judge *ts_resume_judge_new(const ts_scenario *scenario, const char *case_rule, char *why, size_t why_size);
/* What the testee claims of its durability (hello's "durability"; the history's): with
 * "power-loss", what a power-loss run loses or breaks is a U9 finding rather than U11's. */
void ts_resume_judge_claim(ts_resume_judge *judge, const char *durability);
/* Judges one run (an element of "runs") and appends its findings. false: out of memory. */
bool ts_resume_judge_run(ts_resume_judge *judge, const ts_json *run, ts_findings *findings);
void ts_resume_judge_free(ts_resume_judge *judge); /* accepts NULL */

/* Judges history (parsed JSON, as above) as runs of the resume case made from scenario;
 * `case_rule` is the case's own rule (its manifest's first), charged with error answers and
 * harness outcomes of the uninterrupted run. Appends findings; a malformed history draws
 * one finding under case_rule naming the field. Returns false only when memory ran out. */
bool ts_check_resume(const ts_scenario *scenario, const ts_json *history, const char *case_rule,
                     ts_findings *findings);

/* Whether history is a recorded history of the case made from scenario, before judging it: runs
 * a non-empty array whose first run is uninterrupted ("kill": null), every run's events a
 * non-empty array, and every action it sends as a scenario action ("of": I) that very action (the
 * same user text, the same call completed, a recovery for a restart). false with why naming the
 * field otherwise: a history with nothing recorded, or another case's, proves nothing. */
bool ts_resume_history_fits(const ts_scenario *scenario, const ts_json *history, char *why, size_t why_size);

#endif
