/* jobs.c — worker processes playing resume runs; see jobs.h. The worker's side (one testee,
 * one case held at a time) is jobs_worker.c; this file deals the runs and consumes their records. */
#define _GNU_SOURCE
#include "conformance/certifier/jobs.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conformance/certifier/jobs_internal.h"
#include "conformance/certifier/resume_run.h"
#include "conformance/certifier/resume_stores.h"
#include "conformance/certifier/supervise.h"

/* One resume case dealt to the workers, and its sweep. */
typedef struct job_case {
    const ts_case *c;
    ts_case_result *r;
    uint32_t index;           /* in the suite */
    ts_resume_sweep *sweep;   /* NULL once ended */
    double deadline;
    ts_kill_plan *plans;
    size_t plan_count;
    bool planned;             /* the uninterrupted run's record came (plans known) */
    size_t dealt;             /* runs dealt: 0 none, 1 the uninterrupted run, 1 + k up to kill run k */
    size_t consumed;          /* runs consumed, in order */
    ts_job_run **waiting;     /* records come out of order: run n waits in waiting[n] */
    size_t waiting_cap;
    bool ended, decided;
    int holders;              /* workers holding it (their stores not yet removed) */
    ts_buf left;              /* store directories left (resume_stores.h), NUL-separated */
} job_case;

typedef struct worker {
    pid_t pid;
    int tasks, results;       /* the pipes' ends: write tasks, read results (-1: gone) */
    bool busy;                /* a run in flight */
    long holding;             /* the job case it holds (index into cases), -1 none */
    ts_buf in;                /* results read, not yet whole */
    bool exited;
    ts_job_exit stats;
    ts_buf extras;
} worker;

struct ts_jobs {
    const ts_suite *suite;
    const ts_run_options *options;
    bool async;
    ts_jobs_decided decided;
    void *context;
    worker *workers;
    int count;
    job_case *cases;
    size_t case_count, case_cap;
    size_t next_first;        /* the next case whose uninterrupted run is to be dealt */
    char failure[300];
};

/* ------------------------------------------------------------------ starting ---- */

ts_jobs *ts_jobs_start(int workers, const ts_suite *suite, ts_testee *testee, const ts_run_options *options, bool async,
                       ts_testee_warm warm, ts_jobs_decided decided, void *context, char *why, size_t why_size) {
    ts_jobs *j = calloc(1, sizeof *j);
    if (!j || !(j->workers = calloc((size_t)workers, sizeof *j->workers))) {
        free(j);
        snprintf(why, why_size, "out of memory");
        return NULL;
    }
    j->suite = suite;
    j->options = options;
    j->async = async;
    j->decided = decided;
    j->context = context;
    fflush(NULL); /* nothing buffered is written twice */
    for (int i = 0; i < workers; i++) {
        worker *w = &j->workers[i];
        int tasks[2], results[2];
        if (pipe2(tasks, O_CLOEXEC) != 0 || pipe2(results, O_CLOEXEC) != 0) {
            snprintf(why, why_size, "cannot start a worker: %s", strerror(errno));
            ts_jobs_finish(j, NULL, NULL, NULL);
            return NULL;
        }
        sigset_t all, old;
        sigfillset(&all);
        sigprocmask(SIG_BLOCK, &all, &old); /* adopted before any signal can reach it */
        pid_t pid = fork();
        if (pid == 0) {
            sigprocmask(SIG_SETMASK, &old, NULL);
            ts_child_forked();
            close(tasks[1]);
            close(results[0]);
            ts_jobs_worker_main(tasks[0], results[1], suite, testee, options, warm);
        }
        if (pid > 0) ts_child_adopt_worker(pid);
        sigprocmask(SIG_SETMASK, &old, NULL);
        close(tasks[0]);
        close(results[1]);
        if (pid < 0) {
            close(tasks[1]);
            close(results[0]);
            snprintf(why, why_size, "cannot start a worker: %s", strerror(errno));
            ts_jobs_finish(j, NULL, NULL, NULL);
            return NULL;
        }
        *w = (worker){pid, tasks[1], results[0], false, -1, {0}, false, {0}, {0}};
        ts_buf_init(&w->in);
        ts_buf_init(&w->extras);
        fcntl(w->results, F_SETFL, fcntl(w->results, F_GETFL) | O_NONBLOCK);
        j->count++;
    }
    return j;
}

static void maybe_decide(ts_jobs *j, job_case *jc);

bool ts_jobs_add(ts_jobs *j, const ts_case *c, ts_case_result *r) {
    if (j->case_count == j->case_cap) {
        size_t cap = j->case_cap ? 2 * j->case_cap : 64;
        job_case *grown = realloc(j->cases, cap * sizeof *grown);
        if (!grown) return false;
        j->cases = grown;
        j->case_cap = cap;
    }
    job_case *jc = &j->cases[j->case_count];
    memset(jc, 0, sizeof *jc);
    jc->c = c;
    jc->r = r;
    jc->index = (uint32_t)(c - j->suite->cases);
    ts_buf_init(&jc->left);
    r->state = TS_CASE_STARTED;
    jc->sweep = ts_resume_sweep_new(c, j->options, j->async, r);
    jc->ended = jc->sweep == NULL; /* decided before any run (a bad case, a skip) */
    j->case_count++;
    maybe_decide(j, jc); /* such a case has no worker to report it: decided now, or waited for for ever */
    return true;
}

/* ------------------------------------------------------------------ deciding ---- */

static void fail(ts_jobs *j, const char *what) {
    if (!j->failure[0]) snprintf(j->failure, sizeof j->failure, "%.290s", what);
}

/* The case is decided once its sweep has ended and every worker holding it has removed its stores. */
static void maybe_decide(ts_jobs *j, job_case *jc) {
    if (jc->decided || !jc->ended || jc->holders > 0) return;
    for (size_t at = 0; at < jc->left.len; at += strlen(jc->left.data + at) + 1) ts_resume_stores_blame(jc->r, jc->left.data + at);
    jc->decided = true;
    jc->r->state = TS_CASE_DECIDED;
    if (jc->r->verdict == TS_VERDICT_ERROR && strcmp(jc->r->outcome, "unavailable") == 0)
        fail(j, jc->r->detail); /* the testee could not be started */
    if (j->decided) j->decided(j->context, jc->r);
}

static void end_sweep(ts_jobs *j, job_case *jc) {
    ts_resume_sweep_finish(jc->sweep, jc->r);
    jc->sweep = NULL;
    jc->ended = true;
    for (size_t n = 0; n < jc->waiting_cap; n++) ts_job_run_free(jc->waiting[n]), jc->waiting[n] = NULL;
    maybe_decide(j, jc);
}

/* Consumes the case's records that are next in order. */
static void consume(ts_jobs *j, job_case *jc) {
    while (!jc->ended && jc->consumed < jc->waiting_cap && jc->waiting[jc->consumed]) {
        ts_job_run *run = jc->waiting[jc->consumed];
        jc->waiting[jc->consumed] = NULL;
        jc->r->seconds += run->run.seconds;
        bool go_on;
        if (jc->consumed == 0) {
            go_on = ts_resume_sweep_first(jc->sweep, &run->run, &run->plans, jc->r);
            jc->plans = run->plans.plans;
            jc->plan_count = go_on ? run->plans.count : 0;
            run->plans.plans = NULL;
            jc->planned = true;
        } else {
            go_on = ts_resume_sweep_kill(jc->sweep, jc->consumed - 1, &jc->plans[jc->consumed - 1], &run->run, jc->r);
        }
        ts_job_run_free(run);
        jc->consumed++;
        if (!go_on || jc->consumed == jc->plan_count + 1) end_sweep(j, jc);
    }
}

/* A record arrived: kept in order, consumed when it is next. */
static void on_run(ts_jobs *j, worker *w, ts_job_run *run) {
    w->busy = false;
    job_case *jc = NULL;
    for (size_t i = 0; i < j->case_count && !jc; i++)
        if (j->cases[i].index == run->case_index) jc = &j->cases[i];
    if (!jc || jc->ended) { /* the case ended before this run (a bound): it is not judged */
        ts_job_run_free(run);
        return;
    }
    size_t need = run->run_number + 1 > (jc->plan_count + 1) ? run->run_number + 1 : jc->plan_count + 1;
    if (need > jc->waiting_cap) {
        ts_job_run **grown = realloc(jc->waiting, need * sizeof *grown);
        if (!grown) {
            ts_job_run_free(run);
            fail(j, "out of memory");
            return;
        }
        memset(grown + jc->waiting_cap, 0, (need - jc->waiting_cap) * sizeof *grown);
        jc->waiting = grown;
        jc->waiting_cap = need;
    }
    jc->waiting[run->run_number] = run;
    consume(j, jc);
}

static job_case *held_case(ts_jobs *j, const worker *w) { return w->holding >= 0 ? &j->cases[w->holding] : NULL; }

static void on_release(ts_jobs *j, const ts_job_release *release) {
    job_case *jc = NULL;
    for (size_t i = 0; i < j->case_count && !jc; i++)
        if (j->cases[i].index == release->case_index) jc = &j->cases[i];
    if (!jc) return;
    if (!release->ok) ts_buf_append(&jc->left, release->left, strnlen(release->left, sizeof release->left) + 1);
    jc->holders--;
    maybe_decide(j, jc);
}

/* ------------------------------------------------------------------ dealing ---- */

/* Does the case have a run to deal? */
static bool has_run(const job_case *jc) {
    if (jc->ended) return false;
    return jc->dealt == 0 || (jc->planned && jc->dealt < jc->plan_count + 1);
}

/* The next run for w: of the case it holds when that has one, else of the earliest case with
 * kill runs left, else the next case's uninterrupted run. -1: none. */
static long choose(ts_jobs *j, const worker *w) {
    if (w->holding >= 0 && has_run(&j->cases[w->holding]) && j->cases[w->holding].dealt > 0) return w->holding;
    for (size_t i = 0; i < j->case_count; i++)
        if (j->cases[i].dealt > 0 && has_run(&j->cases[i])) return (long)i;
    while (j->next_first < j->case_count && !has_run(&j->cases[j->next_first])) j->next_first++;
    return j->next_first < j->case_count ? (long)j->next_first++ : -1;
}

static void lose_worker(ts_jobs *j, worker *w, const char *what) {
    char text[300];
    snprintf(text, sizeof text, "a worker process (pid %ld) %s", (long)w->pid, what);
    fail(j, text);
    if (w->tasks >= 0) close(w->tasks);
    if (w->results >= 0) close(w->results);
    w->tasks = w->results = -1;
}

static void deal(ts_jobs *j, worker *w) {
    if (w->busy || w->tasks < 0 || j->failure[0]) return;
    long chosen = choose(j, w);
    job_case *held = held_case(j, w);
    if (held && (chosen < 0 || chosen != w->holding)) { /* it leaves that case: its stores go first */
        ts_job_task release = {TS_JOB_RELEASE, held->index, 0, 0, {0}};
        w->holding = -1;
        if (!ts_job_send(w->tasks, TS_JOB_RELEASE, &release, sizeof release, NULL, 0)) {
            lose_worker(j, w, "could not be written to");
            return;
        }
    }
    if (chosen < 0) return;
    job_case *jc = &j->cases[chosen];
    if (jc->dealt == 0) {
        double timeout = ts_run_case_timeout(j->options);
        jc->deadline = timeout > 0 ? ts_testee_clock() + timeout : 0;
    }
    ts_job_task task = {TS_JOB_RUN, jc->index, (uint32_t)jc->dealt, jc->deadline, {0}};
    if (jc->dealt > 0) task.plan = jc->plans[jc->dealt - 1];
    if (!ts_job_send(w->tasks, TS_JOB_RUN, &task, sizeof task, NULL, 0)) {
        lose_worker(j, w, "could not be written to");
        return;
    }
    if (w->holding != chosen) jc->holders++;
    w->holding = chosen;
    jc->dealt++;
    w->busy = true;
}

/* ------------------------------------------------------------------ collecting ---- */

/* Handles every whole message w has sent. */
static void take_messages(ts_jobs *j, worker *w) {
    size_t at = 0;
    uint32_t kind;
    const char *body;
    size_t len;
    while (ts_job_parse(w->in.data + at, w->in.len - at, &kind, &body, &len)) {
        at += TS_JOB_HEADER + len;
        if (kind == TS_JOB_RUN) {
            ts_job_run *run = ts_job_run_decode(body, len);
            if (run) on_run(j, w, run);
            else lose_worker(j, w, "sent a record that could not be read");
        } else if (kind == TS_JOB_RELEASE && len == sizeof(ts_job_release)) {
            ts_job_release release;
            memcpy(&release, body, sizeof release);
            on_release(j, &release);
        } else if (kind == TS_JOB_EXIT && len >= sizeof(ts_job_exit)) {
            memcpy(&w->stats, body, sizeof w->stats);
            ts_buf_append(&w->extras, body + sizeof w->stats, len - sizeof w->stats);
            w->exited = true;
        } else {
            lose_worker(j, w, "sent a message that could not be read");
        }
        if (w->results < 0) break;
    }
    if (at && w->results >= 0) {
        memmove(w->in.data, w->in.data + at, w->in.len - at);
        w->in.len -= at;
    }
}

/* Reads what w has written; false at its end. */
static bool read_worker(ts_jobs *j, worker *w) {
    char buf[1 << 16];
    for (;;) {
        ssize_t n = read(w->results, buf, sizeof buf);
        if (n > 0) {
            ts_buf_append(&w->in, buf, (size_t)n);
            if (w->in.failed) {
                lose_worker(j, w, "sent more than memory holds");
                return false;
            }
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) break;
        take_messages(j, w);
        if (!w->exited && w->results >= 0) lose_worker(j, w, "ended before its runs were over");
        return false;
    }
    take_messages(j, w);
    return true;
}

bool ts_jobs_idle(const ts_jobs *j) {
    for (size_t i = 0; i < j->case_count; i++)
        if (!j->cases[i].decided) return false;
    return true;
}

const char *ts_jobs_failure(const ts_jobs *j) { return j->failure[0] ? j->failure : NULL; }

void ts_jobs_service(ts_jobs *j, double seconds) {
    double end = ts_testee_clock() + seconds;
    for (;;) {
        for (int i = 0; i < j->count; i++) deal(j, &j->workers[i]);
        struct pollfd fds[64];
        int n = j->count < 64 ? j->count : 64;
        for (int i = 0; i < n; i++) fds[i] = (struct pollfd){j->workers[i].results, POLLIN, 0};
        double left = end - ts_testee_clock();
        int ready = poll(fds, (nfds_t)n, left > 0 ? (int)(left * 1000) + 1 : 0);
        for (int i = 0; i < n && ready > 0; i++)
            if (fds[i].revents && j->workers[i].results >= 0) read_worker(j, &j->workers[i]);
        if (ready > 0) continue; /* deal again before waiting */
        if (ts_testee_clock() >= end || ts_jobs_idle(j) || j->failure[0] || ts_child_interrupted()) return;
    }
}

/* ------------------------------------------------------------------ ending ---- */

void ts_jobs_finish(ts_jobs *j, ts_jobs_totals *totals, void (*blame)(void *context, const char *id), void *context) {
    if (!j) return;
    for (int i = 0; i < j->count; i++) { /* each ends its case and its testee, and says what it counted */
        worker *w = &j->workers[i];
        ts_job_task task = {TS_JOB_EXIT, 0, 0, 0, {0}};
        if (w->tasks >= 0 && !ts_job_send(w->tasks, TS_JOB_EXIT, &task, sizeof task, NULL, 0)) lose_worker(j, w, "could not be written to");
    }
    double end = ts_testee_clock() + 30;
    for (int i = 0; i < j->count; i++) {
        worker *w = &j->workers[i];
        while (w->results >= 0 && !w->exited && !ts_child_interrupted() && ts_testee_clock() < end) {
            struct pollfd p = {w->results, POLLIN, 0};
            poll(&p, 1, 1000);
            if (!read_worker(j, w)) break;
        }
        if (w->tasks >= 0) close(w->tasks);
        if (w->results >= 0) close(w->results);
        if (!w->exited) kill(w->pid, SIGTERM); /* its handler ends its trees */
        while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR) {}
        ts_child_forget_worker(w->pid);
        if (totals && w->exited) {
            totals->restarts += w->stats.restarts;
            totals->execs += w->stats.execs;
            totals->pooled += w->stats.pooled;
            totals->forked += w->stats.forked;
            for (size_t at = 0; blame && at < w->extras.len; at += strlen(w->extras.data + at) + 1)
                blame(context, w->extras.data + at);
        }
        ts_buf_free(&w->in);
        ts_buf_free(&w->extras);
    }
    for (size_t i = 0; i < j->case_count; i++) {
        job_case *jc = &j->cases[i];
        if (jc->sweep) ts_resume_sweep_finish(jc->sweep, jc->r); /* not decided: the caller drops it */
        for (size_t n = 0; n < jc->waiting_cap; n++) ts_job_run_free(jc->waiting[n]);
        free(jc->waiting);
        free(jc->plans);
        ts_buf_free(&jc->left);
    }
    free(j->cases);
    free(j->workers);
    free(j);
}
