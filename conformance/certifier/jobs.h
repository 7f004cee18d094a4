/* jobs.h — resume runs on several testees at once (certify --jobs N).
 *
 * Owns: N worker processes, each with a copy of the testee of its own (testee.h ts_testee_copy:
 * its own process, process group, store directories, file-system observer and trace file), and
 * the dealing of resume runs to them: each case's uninterrupted run first, then, from the plans
 * it gives, its kill runs to whichever worker is free — a worker keeps the case it played last
 * while that case has runs left, so that its testee is not restarted for nothing. Every run a
 * worker plays (resume_play.h) comes back as its record; the certifier's process consumes them
 * case by case *in order*, whichever worker played them and whenever they came, with the same
 * sweep as one testee playing every run in turn (resume_run.h). So a case's verdict, findings
 * and history are the ones --jobs 1 gives, and so are the report's order and counts.
 *
 * Why worker processes rather than one process polling N testees: the world, the nemesis and
 * the testee's conversation are written as straight-line code around blocking calls with
 * deadlines (world.h, testee.h); a poll loop over N of them would turn every one into a state
 * machine. A fork of the certifier runs that code unchanged, one testee each, and its address
 * space already holds the suite. What crosses the pipe is small and explicit (a run's plan out;
 * its record, outcome and plans back), and a worker that dies takes only its testee with it.
 *
 * A worker is adopted by supervise.h: the certifier's death by a signal ends it, and it ends its
 * own testee trees first. Its testee restarts count in the certification's restarts, its
 * second answers are charged to the case they answered.
 */
#ifndef TURNSTILE_CONFORMANCE_CERTIFIER_JOBS_H
#define TURNSTILE_CONFORMANCE_CERTIFIER_JOBS_H

#include <stdbool.h>
#include <stddef.h>

#include "conformance/certifier/run_options.h"
#include "conformance/certifier/suite.h"
#include "conformance/certifier/testee.h"

typedef struct ts_jobs ts_jobs;

/* Called once a case is decided (r final but for second answers found at the end). */
typedef void (*ts_jobs_decided)(void *context, ts_case_result *r);

/* Starts `workers` worker processes (at least 2) over suite's cases, each with a copy of testee
 * in warm mode `warm`. options and suite are borrowed (the workers' copies are taken now).
 * `async`: hello's. NULL with why when a worker cannot be started. */
ts_jobs *ts_jobs_start(int workers, const ts_suite *suite, ts_testee *testee, const ts_run_options *options, bool async,
                       ts_testee_warm warm, ts_jobs_decided decided, void *context, char *why, size_t why_size);

/* Deals resume case c (of the suite); its result goes into r (borrowed until decided). */
bool ts_jobs_add(ts_jobs *j, const ts_case *c, ts_case_result *r);

/* Deals runs to free workers and consumes what they sent, for up to `seconds` (0: only what is
 * ready now; returns early once every case added is decided). */
void ts_jobs_service(ts_jobs *j, double seconds);

/* Is every case added decided? */
bool ts_jobs_idle(const ts_jobs *j);

/* A harness failure that stops the run (a worker died, the testee could not be started), or NULL. */
const char *ts_jobs_failure(const ts_jobs *j);

/* What the workers' testees did, added up by ts_jobs_finish (testee.h ts_testee_restarts and
 * ts_testee_starts). */
typedef struct ts_jobs_totals {
    int restarts;
    long execs, pooled, forked;
} ts_jobs_totals;

/* Ends every worker (its testee finished) and frees j: their restarts and process starts are
 * added into totals (NULL: not counted), and their second answers charged (blame, unless NULL:
 * called with context for each case id that drew lines beyond its answer). Cases not decided
 * stay as they are. Accepts NULL. */
void ts_jobs_finish(ts_jobs *j, ts_jobs_totals *totals, void (*blame)(void *context, const char *id), void *context);

#endif
