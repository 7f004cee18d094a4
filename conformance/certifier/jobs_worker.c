/* jobs_worker.c — a worker process of jobs.h: its messages and its loop (jobs_internal.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "conformance/certifier/jobs_internal.h"
#include "conformance/certifier/resume_play.h"
#include "conformance/certifier/resume_run.h"

enum { MAX_BODY = 1u << 30 };

/* ------------------------------------------------------------------ messages ---- */

static bool write_all(int fd, struct iovec *iov, int count) {
    while (count > 0) {
        ssize_t n = writev(fd, iov, count);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        while (count > 0 && (size_t)n >= iov->iov_len) n -= (ssize_t)iov->iov_len, iov++, count--;
        if (count > 0) iov->iov_base = (char *)iov->iov_base + n, iov->iov_len -= (size_t)n;
    }
    return true;
}

bool ts_job_send(int fd, uint32_t kind, const void *head, size_t head_len, const void *body, size_t body_len) {
    if (head_len + body_len > MAX_BODY) return false;
    uint32_t header[2] = {kind, (uint32_t)(head_len + body_len)};
    struct iovec iov[3] = {{header, sizeof header}, {(void *)head, head_len}, {(void *)body, body_len}};
    return write_all(fd, iov, body_len ? 3 : 2);
}

bool ts_job_parse(const char *data, size_t len, uint32_t *kind, const char **body, size_t *body_len) {
    if (!data || len < TS_JOB_HEADER) return false;
    uint32_t header[2];
    memcpy(header, data, sizeof header);
    if (len - TS_JOB_HEADER < header[1]) return false;
    *kind = header[0];
    *body = data + TS_JOB_HEADER;
    *body_len = header[1];
    return true;
}

/* A run's record on the pipe: this, then the run's text, its warnings and the plans. */
typedef struct run_record {
    uint32_t case_index, run_number;
    uint8_t started, unsupported, aborted;
    char outcome[32], limit[32];
    char detail[400], why[300], unmade[300];
    int64_t kill_point;
    double seconds;
    uint64_t text_len, warnings_len, plan_count;
    ts_resume_plans facts;   /* its plans pointer means nothing here */
    ts_case_pipelining pipelining;
    uint8_t settled_kill, unsettled_kill;
} run_record;

bool ts_job_run_send(int fd, uint32_t case_index, uint32_t run_number, const ts_resume_run *run,
                     const ts_resume_plans *plans) {
    run_record h;
    memset(&h, 0, sizeof h);
    h.case_index = case_index;
    h.run_number = run_number;
    h.started = run->started;
    h.unsupported = run->outcome.unsupported;
    h.aborted = run->outcome.aborted;
    snprintf(h.outcome, sizeof h.outcome, "%s", run->outcome.outcome ? run->outcome.outcome : "");
    snprintf(h.limit, sizeof h.limit, "%s", run->outcome.limit ? run->outcome.limit : "");
    memcpy(h.detail, run->outcome.detail, sizeof h.detail);
    memcpy(h.why, run->why, sizeof h.why);
    memcpy(h.unmade, run->unmade, sizeof h.unmade);
    h.kill_point = run->kill_point;
    h.seconds = run->seconds;
    h.pipelining = run->pipelining;
    h.settled_kill = run->settled_kill;
    h.unsettled_kill = run->unsettled_kill;
    h.text_len = run->text.len;
    h.warnings_len = run->warnings.len;
    if (plans) h.facts = *plans, h.plan_count = plans->count;
    h.facts.plans = NULL;
    size_t plans_len = plans && plans->plans ? plans->count * sizeof *plans->plans : 0;
    if (sizeof h + h.text_len + h.warnings_len + plans_len > MAX_BODY) return false;
    uint32_t header[2] = {TS_JOB_RUN, (uint32_t)(sizeof h + h.text_len + h.warnings_len + plans_len)};
    struct iovec iov[5] = {{header, sizeof header}, {&h, sizeof h}, {run->text.data, run->text.len},
                           {run->warnings.data, run->warnings.len}, {plans ? plans->plans : NULL, plans_len}};
    return write_all(fd, iov, 5);
}

ts_job_run *ts_job_run_decode(const char *body, size_t len) {
    run_record h;
    if (len < sizeof h) return NULL;
    memcpy(&h, body, sizeof h);
    size_t plans_len = h.plan_count * sizeof(ts_kill_plan);
    if (h.plan_count > len || h.text_len > len || h.warnings_len > len || sizeof h + h.text_len + h.warnings_len + plans_len != len)
        return NULL;
    ts_job_run *out = calloc(1, sizeof *out);
    if (!out) return NULL;
    ts_resume_run_init(&out->run);
    out->case_index = h.case_index;
    out->run_number = h.run_number;
    ts_resume_run *run = &out->run;
    run->started = h.started;
    run->outcome.unsupported = h.unsupported;
    run->outcome.aborted = h.aborted;
    h.outcome[sizeof h.outcome - 1] = h.limit[sizeof h.limit - 1] = '\0';
    run->outcome.outcome = h.outcome[0] ? ts_run_outcome_static(h.outcome) : NULL;
    run->outcome.limit = h.limit[0] ? ts_run_outcome_static(h.limit) : NULL;
    memcpy(run->outcome.detail, h.detail, sizeof run->outcome.detail);
    run->outcome.detail[sizeof run->outcome.detail - 1] = '\0';
    memcpy(run->why, h.why, sizeof run->why);
    run->why[sizeof run->why - 1] = '\0';
    memcpy(run->unmade, h.unmade, sizeof run->unmade);
    run->unmade[sizeof run->unmade - 1] = '\0';
    run->kill_point = (long)h.kill_point;
    run->seconds = h.seconds;
    run->pipelining = h.pipelining;
    run->settled_kill = h.settled_kill;
    run->unsettled_kill = h.unsettled_kill;
    const char *at = body + sizeof h;
    ts_buf_append(&run->text, at, h.text_len);
    ts_buf_append(&run->warnings, at + h.text_len, h.warnings_len);
    out->plans = h.facts;
    out->plans.plans = NULL;
    out->plans.count = h.plan_count;
    if (plans_len && (out->plans.plans = malloc(plans_len))) memcpy(out->plans.plans, at + h.text_len + h.warnings_len, plans_len);
    if (run->text.failed || run->warnings.failed || (plans_len && !out->plans.plans)) {
        ts_job_run_free(out);
        return NULL;
    }
    if (!h.text_len) ts_buf_append_str(&run->text, ""); /* an empty run still has a (valid) buffer */
    return out;
}

void ts_job_run_free(ts_job_run *run) {
    if (!run) return;
    ts_resume_run_free(&run->run);
    ts_resume_plans_free(&run->plans);
    free(run);
}

/* ------------------------------------------------------------------ the worker ---- */

static bool read_all(int fd, void *out, size_t len) {
    char *p = out;
    while (len) {
        ssize_t n = read(fd, p, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        p += n;
        len -= (size_t)n;
    }
    return true;
}

/* Closes every descriptor above stderr but the two given. */
static void close_others(int a, int b) {
    int low = a < b ? a : b, high = a < b ? b : a;
    syscall(SYS_close_range, 3u, (unsigned)low - 1, 0u);
    if (high > low + 1) syscall(SYS_close_range, (unsigned)low + 1, (unsigned)high - 1, 0u);
    syscall(SYS_close_range, (unsigned)high + 1, ~0u, 0u);
}

typedef struct worker_state {
    int results;
    const ts_suite *suite;
    const ts_run_options *options;
    ts_testee *testee;
    ts_resume_player *player; /* the case held, or NULL */
    uint32_t held;
    bool holding, used;
} worker_state;

/* Lets the held case go: its testee finished, its stores removed; says how that went. */
static bool release(worker_state *w) {
    if (!w->holding) return true;
    ts_job_release r;
    memset(&r, 0, sizeof r);
    r.case_index = w->held;
    r.ok = ts_resume_player_free(w->player, w->used, r.left, sizeof r.left);
    w->player = NULL;
    w->holding = false;
    return ts_job_send(w->results, TS_JOB_RELEASE, &r, sizeof r, NULL, 0);
}

static bool play(worker_state *w, const ts_job_task *task) {
    if (w->holding && w->held != task->case_index && !release(w)) return false;
    char why[300] = "";
    if (!w->holding) {
        w->player = ts_resume_player_new(&w->suite->cases[task->case_index], w->testee, w->options, task->deadline, why,
                                         sizeof why);
        w->held = task->case_index;
        w->holding = true;
        w->used = false;
    }
    ts_resume_run run;
    ts_resume_run_init(&run);
    ts_resume_plans plans;
    memset(&plans, 0, sizeof plans);
    if (!w->player) {
        snprintf(run.why, sizeof run.why, "%s", why[0] ? why : "the case could not be set up");
    } else {
        char name[64];
        if (task->run) snprintf(name, sizeof name, "kill-%u", task->run);
        else snprintf(name, sizeof name, "run");
        ts_testee_set_deadline(w->testee, task->deadline);
        ts_resume_player_play(w->player, name, task->run ? &task->plan : NULL, &run);
        ts_testee_set_deadline(w->testee, 0);
        w->used |= !run.outcome.unsupported;
        if (!task->run) ts_resume_player_plans(w->player, ts_resume_run_wants_plans(&run), &plans);
    }
    bool ok = ts_job_run_send(w->results, task->case_index, task->run, &run, task->run ? NULL : &plans);
    ts_resume_plans_free(&plans);
    ts_resume_run_free(&run);
    return ok;
}

/* The EXIT message: restarts, starts, then every id that drew second answers. */
static void say_exit(worker_state *w) {
    ts_job_exit stats;
    memset(&stats, 0, sizeof stats);
    stats.restarts = ts_testee_restarts(w->testee);
    ts_testee_starts(w->testee, &stats.execs, &stats.pooled, &stats.forked);
    ts_buf ids;
    ts_buf_init(&ids);
    const char *id;
    int count;
    for (size_t i = 0; ts_testee_extra_at(w->testee, i, &id, &count); i++)
        if (count > 0) ts_buf_append(&ids, id, strlen(id) + 1);
    ts_job_send(w->results, TS_JOB_EXIT, &stats, sizeof stats, ids.data, ids.len);
    ts_buf_free(&ids);
}

void ts_jobs_worker_main(int tasks, int results, const ts_suite *suite, ts_testee *parent_testee,
                         const ts_run_options *options, ts_testee_warm warm) {
    worker_state w = {results, suite, options, ts_testee_copy(parent_testee), NULL, 0, false, false};
    ts_testee_forget(parent_testee); /* the certifier's, not this process's */
    close_others(tasks, results);
    if (!w.testee) _exit(1);
    ts_testee_set_warm(w.testee, warm);
    for (;;) {
        uint32_t header[2];
        ts_job_task task;
        if (!read_all(tasks, header, sizeof header) || header[1] != sizeof task || !read_all(tasks, &task, sizeof task)) break;
        if (header[0] == TS_JOB_RUN && task.case_index < suite->count) {
            if (!play(&w, &task)) break;
        } else if (header[0] == TS_JOB_RELEASE) {
            if (w.holding && w.held == task.case_index && !release(&w)) break;
        } else if (header[0] == TS_JOB_EXIT) {
            release(&w);
            ts_testee_finish(w.testee);
            say_exit(&w);
            break;
        }
    }
    ts_resume_player_free(w.player, w.used, NULL, 0);
    ts_testee_close(w.testee);
    _exit(0); /* nothing of the certifier's (buffers, exit handlers) is this process's to run */
}
