/* run.h — one certification: every selected case through a testee, judged two ways.
 *
 * Owns: verdicts. Invariant conformance: the checkers (conformance/checkers) decide each rule
 * on the answer; a case fails when a Required rule has a finding (Recommended findings are
 * reported, not failed). Reference equivalence: the answer equals the golden answer as JSON
 * values; reported apart, since a valid implementation may differ from the reference. Harness
 * outcomes (timeout, crash, exit, protocol error) are errors of that case, never of the run.
 */
#ifndef TURNSTILE_CONFORMANCE_CERTIFIER_RUN_H
#define TURNSTILE_CONFORMANCE_CERTIFIER_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "conformance/certifier/suite.h"
#include "conformance/certifier/testee.h"
#include "conformance/checkers/findings.h"

typedef enum ts_verdict { TS_VERDICT_PASS, TS_VERDICT_FAIL, TS_VERDICT_SKIPPED, TS_VERDICT_ERROR } ts_verdict;

const char *ts_verdict_name(ts_verdict verdict);

typedef struct ts_case_result {
    const ts_case *c;
    ts_verdict verdict;
    const char *outcome;      /* "answered", "unsupported", "rejected", "timeout", "crashed", ... */
    char detail[400];         /* harness detail for errors, the rejection text, ... */
    ts_findings findings;     /* of the selected rules */
    int equivalent;           /* 1 equal to the golden answer, 0 differs, -1 not judged */
    char diff[700];           /* where the answer first differs from the golden one */
    char *stderr_tail;        /* for errors: the testee's last stderr (heap) */
    char *answer;             /* the answer line (heap) */
} ts_case_result;

typedef struct ts_run_options {
    const char *const *rules; /* selected rule ids; NULL: all */
    size_t rule_count;
    const char *const *case_globs; /* fnmatch patterns on case ids; NULL: all */
    size_t glob_count;
    bool repeat;              /* D1: send every case again, in reverse order */
    long kill_points;         /* resume cases: kill at the first N points of each case; 0 all, < 0 none */
} ts_run_options;

typedef struct ts_certification {
    ts_case_result *results;
    size_t count;
    char testee[256];         /* the command, or "turnstile reference (in-process)" */
    char testee_name[128];    /* from the hello answer, if any */
    int restarts;
    double seconds;
    const ts_run_options *options;
} ts_certification;

/* True when rule id is selected by options. */
bool ts_run_rule_selected(const ts_run_options *options, const char *rule);

/* True when the run's --cases globs and --rules select case c. */
bool ts_run_case_selected(const ts_run_options *options, const ts_case *c);

/* Runs the selected cases of suite through testee. Returns false only on allocation failure. */
bool ts_certify(const ts_suite *suite, ts_testee *testee, const ts_run_options *options, ts_certification *out);
void ts_certification_free(ts_certification *c); /* accepts NULL */

/* Counts: cases passed / failed (fail + error) / skipped. */
void ts_certification_counts(const ts_certification *c, size_t *passed, size_t *failed, size_t *skipped, size_t *errors);

/* Writes the path and values where a and b first differ (a: expected, b: got) into out. */
void ts_json_first_difference(const ts_json *expected, const ts_json *got, char *out, size_t size);

#endif
