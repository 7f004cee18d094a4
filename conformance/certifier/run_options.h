/* run_options.h — what a certification is asked, and what it gives for one case.
 *
 * Owns: the run's options (rules, case globs, shards, platforms, the bounds of a case, the
 * nemesis, warm starts, jobs, the judging budget) and what they select — which rules and cases,
 * which cases a shard deals to this run, which cases a platform sets apart, a case's deadline;
 * and the record of one case (ts_case_result: its verdict, outcome, findings, answer) with the
 * names of verdicts and outcomes. Below every module that runs cases (run.h, resume_run.h,
 * resume_play.h, jobs.h), so that none of them needs the run's loop to speak of a case.
 */
#ifndef TURNSTILE_CONFORMANCE_CERTIFIER_RUN_OPTIONS_H
#define TURNSTILE_CONFORMANCE_CERTIFIER_RUN_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "conformance/certifier/suite.h"
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
    /* Warm starts for the resume runs' restarts (testee.h): TS_RUN_WARM_AUTO a fork server when
     * hello says "fork": true, else the pool (run.c); or one ts_testee_warm. */
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

#endif
