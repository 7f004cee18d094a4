/* run.h — one certification: every selected case through a testee, judged two ways.
 *
 * Owns: verdicts. Invariant conformance: the checkers (conformance/checkers) decide each rule
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

#include "conformance/certifier/suite.h"
#include "conformance/certifier/testee.h"
#include "conformance/checkers/budget.h"
#include "conformance/checkers/findings.h"

typedef enum ts_verdict { TS_VERDICT_PASS, TS_VERDICT_FAIL, TS_VERDICT_SKIPPED, TS_VERDICT_ERROR, TS_VERDICT_UNDECIDED } ts_verdict;

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
    const char *apart;        /* the platform tag that sets this case apart, or NULL */
    bool expected;            /* every failure of this case is in the expected-failures list (gate.h) */
} ts_case_result;

typedef struct ts_run_options {
    const char *const *rules; /* selected rule ids; NULL: all */
    size_t rule_count;
    const char *const *case_globs; /* fnmatch patterns on case ids; NULL: all */
    size_t glob_count;
    bool repeat;              /* D1: send every case again, in reverse order */
    const char *platform;     /* "dotnet": set apart the cases .NET cannot represent; NULL: none */
    /* Called after each case (done of total), e.g. to show progress; NULL: not called. */
    void (*progress)(void *context, size_t done, size_t total, const ts_case *c);
    void *progress_context;
    long kill_points;         /* resume cases: kill at the first N points of each case; 0 all, < 0 none */
    long kill_at;             /* resume cases: > 0 kill at this point only (one kill run, replayed) */
    /* Bounds on what a testee can make one case cost; each, when reached, ends the case with a
     * harness outcome of its own ("case-timeout", "point-limit"), never a hang. */
    double case_timeout;      /* wall seconds per case, kill runs included; 0: TS_RUN_CASE_TIMEOUT; < 0: none */
    long max_points_per_action; /* resume: world calls and commit notices per action; 0: TS_RUN_MAX_POINTS */
    /* The resume nemesis (nemesis.h, conformance/nemesis/DESIGN.md): kills at protocol points
     * only, also after every store change the file-system observer sees, and also power-loss
     * crash states. A testee the observer cannot follow (in-process) gets protocol points. */
    enum { TS_NEMESIS_PROTOCOL = 0, TS_NEMESIS_STORE = 1, TS_NEMESIS_POWER_LOSS = 2 } nemesis;
    const char *crash_state;  /* with kill_at: the power-loss state to write there (--crash-state) */
    bool exact_points;        /* every point its own kill run, none merged (--exact-points) */
    const char *durability;   /* what the testee's hello claims ("power-loss", "process-crash"), or NULL */
    unsigned branch;          /* what its hello says it can do to a conversation (world.h TS_BRANCH_*) */
    ts_judge_budget budget;   /* per answer judged; zero fields: the defaults */
} ts_run_options;

enum {
    TS_RUN_CASE_TIMEOUT = 600,  /* seconds */
    TS_RUN_MAX_POINTS = 1000,
};

/* The case deadline options give, in seconds (0: none). */
double ts_run_case_timeout(const ts_run_options *options);

/* The platforms --platform accepts, NULL-terminated, and whether name is one. */
extern const char *const ts_run_platforms[];
bool ts_run_platform_known(const char *name);

/* The platform tag of c that sets it apart under options, or NULL. */
const char *ts_run_case_apart(const ts_run_options *options, const ts_case *c);

typedef struct ts_certification {
    ts_case_result *results;
    size_t count;
    char testee[1024];        /* the command, or "turnstile reference (in-process)" */
    char *testee_name;        /* from the hello answer, whole (heap), or NULL */
    char *testee_version;     /* likewise */
    char *testee_durability;  /* likewise: what it claims of its resume engine ("power-loss", ...) */
    unsigned testee_branch;   /* likewise: its "branch" list (world.h TS_BRANCH_*: edit, fork, history) */
    int restarts;
    double seconds;
    const ts_run_options *options;
    const ts_suite *suite;    /* the suite run (borrowed) */
    char harness_failure[300];/* non-empty: the run stopped, the testee could not be started */
    const char *turnstile_version, *turnstile_commit; /* set by the caller, for reports */
    char date[32];            /* when the run started, UTC, RFC 3339 */
} ts_certification;

/* True when rule id is selected by options. */
bool ts_run_rule_selected(const ts_run_options *options, const char *rule);

/* True when the run's --cases globs and --rules select case c. */
bool ts_run_case_selected(const ts_run_options *options, const ts_case *c);

/* hello (optional, PROTOCOL.md): asks the testee once; its name and version go into out (NULL: not
 * kept). Returns whether its tools may answer later (resume: true unless it says "async": false). */
bool ts_run_hello(ts_testee *testee, ts_certification *out);

/* Runs the selected cases of suite through testee. Returns false only on allocation failure. */
bool ts_certify(const ts_suite *suite, ts_testee *testee, const ts_run_options *options, ts_certification *out);
void ts_certification_free(ts_certification *c); /* accepts NULL */

/* Counts: cases passed / failed (fail + error) / skipped, over the cases not set apart.
 * Undecided cases are in none of them: ts_certification_undecided counts those. */
void ts_certification_counts(const ts_certification *c, size_t *passed, size_t *failed, size_t *skipped, size_t *errors);
size_t ts_certification_undecided(const ts_certification *c);

/* Writes the path and values where a and b first differ (a: expected, b: got) into out. */
void ts_json_first_difference(const ts_json *expected, const ts_json *got, char *out, size_t size);

#endif
