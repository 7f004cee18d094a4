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

/* A case in a run: not started; started (sent, or its runs dealt); answered (judged, awaiting the
 * determinism repeat); decided (final). Only decided cases are in a finished certification; an
 * interrupted one names those in flight apart. */
typedef enum ts_case_state { TS_CASE_PENDING, TS_CASE_STARTED, TS_CASE_ANSWERED, TS_CASE_DECIDED } ts_case_state;

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
    ts_case_state state;      /* how far the run got with it */
    double seconds;           /* the wall time its runs took (with jobs, added over every testee) */
} ts_case_result;

typedef struct ts_certification ts_certification;

typedef struct ts_run_options {
    const char *const *rules; /* selected rule ids; NULL: all */
    size_t rule_count;
    const char *const *case_globs; /* fnmatch patterns on case ids; NULL: all */
    size_t glob_count;
    bool repeat;              /* D1: send every case again, in reverse order */
    const char *platform;     /* "dotnet": set apart the cases .NET cannot represent; NULL: none */
    /* Called as cases are answered and decided, and now and then while resume runs go on, with
     * the run so far (each result's state says how far its case got); NULL: not called. */
    void (*progress)(void *context, const ts_certification *run);
    /* Called once a case is final (with jobs, in the order cases end), e.g. to stream its report;
     * NULL: not called. Second answers found at the very end may still change it. */
    void (*decided)(void *context, const ts_certification *run, const ts_case_result *r);
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
    /* Warm starts for the resume runs' restarts (testee.h): TS_RUN_WARM_AUTO a fork server where
     * hello offers one, else the pool; or one ts_testee_warm. */
    int warm;
    int jobs;                 /* resume runs on this many testees at once (worker processes); <= 1: one */
    int shard_index, shard_count; /* --shard K/N: only the cases dealt to shard K of N (1-based); 0: all */
    unsigned branch;          /* what its hello says it can do to a conversation (world.h TS_BRANCH_*) */
    ts_judge_budget budget;   /* per answer judged; zero fields: the defaults */
} ts_run_options;

enum { TS_RUN_WARM_AUTO = -1 };

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

/* True when rule id is selected by options. */
bool ts_run_rule_selected(const ts_run_options *options, const char *rule);

/* True when the run's --cases globs and --rules select case c. */
bool ts_run_case_selected(const ts_run_options *options, const ts_case *c);

/* The selected cases of suite that --shard deals to this run, in the suite's order, into out
 * (room for suite->count; NULL: only counted); *selected: the selection before dealing. Shard K
 * of N takes every Nth of the selected resume cases from the (K-1)th on, and likewise of the
 * others, so each shard gets its share of the costly ones. Returns how many. */
size_t ts_run_shard_cases(const ts_suite *suite, const ts_run_options *options, const ts_case **out, size_t *selected);

/* A static string naming the outcome `name` (one a case can end with), or "error". */
const char *ts_run_outcome_static(const char *name);

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
