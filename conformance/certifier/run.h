/* run.h — one certification: every selected case through a testee, judged two ways.
 *
 * Owns: verdicts (what a run is asked and the record of one case are run_options.h's). Invariant conformance: the checkers (conformance/checkers) decide each rule
 * on the answer; a case fails when a Required rule has a finding (Recommended findings are
 * reported, not failed). Reference equivalence: the answer equals the golden answer as JSON
 * values; reported apart, since a valid implementation may differ from the reference. Harness
 * outcomes (timeout, crash, exit, protocol error) are errors of that case, never of the run;
 * a testee that cannot be (re)started at all ends the run (a harness failure, not a verdict).
 * Judging runs under a budget (options.budget, checkers/budget.h): an answer whose messages
 * were not decided within it, and that broke no Required rule otherwise, is `undecided` —
 * neither passed nor failed, counted on its own.
 * With a platform, cases whose inputs that platform's standard serializer cannot represent
 * (suite.h tags) are run but set apart: reported on their own, counted in no verdict.
 */
#ifndef TURNSTILE_CONFORMANCE_CERTIFIER_RUN_H
#define TURNSTILE_CONFORMANCE_CERTIFIER_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "conformance/certifier/run_options.h"
#include "conformance/certifier/suite.h"
#include "conformance/certifier/testee.h"

struct ts_certification {
    ts_case_result *results;  /* during the run: every case of the selection (state); after it:
                               * the decided ones, in the suite's order */
    size_t count;
    char testee[1024];        /* the command, or "turnstile reference (in-process)" */
    char *testee_name;        /* from the hello answer, whole (heap), or NULL */
    char *testee_version;     /* likewise */
    char *testee_durability;  /* likewise: what it claims of its resume engine ("power-loss", ...) */
    bool testee_forks;        /* likewise: it can be a fork server ("fork": true) */
    long execs, pooled, forked; /* processes started (testee.h ts_testee_starts), over every testee */
    unsigned testee_branch;   /* likewise: its "branch" list (world.h TS_BRANCH_*: edit, fork, history) */
    int restarts;
    double seconds;
    const ts_run_options *options;
    const ts_suite *suite;    /* the suite run (borrowed) */
    char harness_failure[300];/* non-empty: the run stopped, the testee could not be started */
    const char *turnstile_version, *turnstile_commit; /* set by the caller, for reports */
    char date[32];            /* when the run started, UTC, RFC 3339 */
    size_t selected;          /* cases the selection holds before sharding */
    int interrupted;          /* the run was interrupted by this signal (supervise.h); 0: it ended */
    const ts_case **in_flight;/* interrupted: the cases begun and not decided (heap array, borrowed cases) */
    size_t in_flight_count;
    size_t not_run;           /* interrupted, or stopped by a harness failure: cases never begun */
};

/* hello (optional, PROTOCOL.md): asks the testee once; its name and version go into out (NULL: not
 * kept). Returns whether its tools may answer later (resume: true unless it says "async": false). */
bool ts_run_hello(ts_testee *testee, ts_certification *out);

/* Runs the selected cases of suite through testee (out's turnstile_version and _commit, set by
 * the caller, are kept). Stops when the certifier is interrupted (supervise.h,
 * ts_child_defer_signals): out->interrupted then names the signal, and out holds what was
 * decided. Returns false only on allocation failure. */
bool ts_certify(const ts_suite *suite, ts_testee *testee, const ts_run_options *options, ts_certification *out);
void ts_certification_free(ts_certification *c); /* accepts NULL */

/* Counts: cases passed / failed (fail + error) / skipped, over the cases not set apart.
 * Undecided cases are in none of them: ts_certification_undecided counts those. */
void ts_certification_counts(const ts_certification *c, size_t *passed, size_t *failed, size_t *skipped, size_t *errors);
size_t ts_certification_undecided(const ts_certification *c);

/* Writes the path and values where a and b first differ (a: expected, b: got) into out. */
void ts_json_first_difference(const ts_json *expected, const ts_json *got, char *out, size_t size);

#endif
