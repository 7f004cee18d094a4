/* jobs_internal.h — private to jobs.c and jobs_worker.c: the messages between the certifier and
 * its workers, and the worker's main loop. Not part of the certifier's interface (jobs.h).
 *
 * Every message is a header (kind, body length: two uint32) and a body. The two ends are one
 * program forked (same binary, same layout), so bodies are plain structs; strings are copied.
 *   certifier -> worker  RUN (a ts_job_task: play run `run` of a case), RELEASE (its stores
 *                        go, its testee finishes), EXIT (the same, then the worker ends)
 *   worker -> certifier  RUN (a run's record), RELEASE (a ts_job_release), EXIT (a ts_job_exit,
 *                        then the ids that drew second answers, each NUL-terminated)
 */
#ifndef TURNSTILE_CONFORMANCE_CERTIFIER_JOBS_INTERNAL_H
#define TURNSTILE_CONFORMANCE_CERTIFIER_JOBS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conformance/certifier/nemesis.h"
#include "conformance/certifier/resume_play.h"
#include "conformance/certifier/run_options.h"
#include "conformance/certifier/suite.h"
#include "conformance/certifier/testee.h"

enum { TS_JOB_RUN = 1, TS_JOB_RELEASE = 2, TS_JOB_EXIT = 3 };
enum { TS_JOB_HEADER = 8 };

typedef struct ts_job_task {
    uint32_t kind;
    uint32_t case_index;     /* in the suite */
    uint32_t run;            /* 0: the uninterrupted run; k: kill run k (plan) */
    double deadline;         /* the case's (ts_testee_clock seconds, 0 none) */
    ts_kill_plan plan;
} ts_job_task;

typedef struct ts_job_release {
    uint32_t case_index;
    uint8_t ok;
    char left[400];          /* !ok: the store directory left (resume_stores.h) */
} ts_job_release;

typedef struct ts_job_exit {
    int restarts;
    long execs, pooled, forked;
} ts_job_exit;

/* A run's record, decoded (heap). */
typedef struct ts_job_run {
    uint32_t case_index;
    size_t run_number;
    ts_resume_run run;
    ts_resume_plans plans;   /* the uninterrupted run's */
} ts_job_run;

/* Writes one message (header, head, then body); false when the pipe is gone. */
bool ts_job_send(int fd, uint32_t kind, const void *head, size_t head_len, const void *body, size_t body_len);

/* The first whole message in data (kind, body): false when none is whole yet. */
bool ts_job_parse(const char *data, size_t len, uint32_t *kind, const char **body, size_t *body_len);

/* A run's record: encoded and sent by the worker, decoded by the certifier (NULL: malformed). */
bool ts_job_run_send(int fd, uint32_t case_index, uint32_t run_number, const ts_resume_run *run,
                     const ts_resume_plans *plans);
ts_job_run *ts_job_run_decode(const char *body, size_t len);
void ts_job_run_free(ts_job_run *run); /* accepts NULL */

/* The worker: plays what it is told until EXIT, then _exit(0). Never returns. parent_testee is
 * the certifier's (forgotten here); the worker's is a copy of it. */
void ts_jobs_worker_main(int tasks, int results, const ts_suite *suite, ts_testee *parent_testee,
                         const ts_run_options *options, ts_testee_warm warm) __attribute__((noreturn));

#endif
