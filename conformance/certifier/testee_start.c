/* testee_start.c — a child-process testee's starts: cold (a new process of the command), pooled
 * (a process started ahead of need) or forked (an instance from the testee's fork server), the
 * observer's configuration and arming that go with each, and the stop of a start; see testee.h
 * (ts_testee_set_warm) and testee_child.h. The calls over a start are testee.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/certifier/supervise.h"
#include "conformance/certifier/testee.h"
#include "conformance/certifier/testee_child.h"

/* ---- the child's lifetime ---- */

/* A new process of the command into c, observed as configured (hold: started ahead of need). */
static bool start_process(ts_child_testee *t, ts_child *c, bool hold, char *why, size_t why_size) {
    ts_child_trace trace = {t->observe_root, t->trace_fd, hold};
    bool ok = t->observe_root ? ts_child_start_traced(c, t->argv, &trace, why, why_size)
                              : ts_child_start(c, t->argv, why, why_size);
    t->execs += ok;
    return ok;
}

/* An instance from the fork server (started first when it is not running). */
static bool start_instance(ts_child_testee *t, char *why, size_t why_size) {
    if (t->server.pid < 0 || ts_child_check_ended(&t->server)) {
        ts_child_finish(&t->server);
        ts_child_trace trace = {t->observe_root, t->trace_fd, false};
        if (!ts_child_start_server(&t->server, t->argv, t->observe_root ? &trace : NULL, why, why_size)) return false;
        t->execs++;
    }
    double timeout = t->options.start_timeout_seconds, left = t->base.deadline - ts_testee_now_seconds();
    if (t->base.deadline > 0 && left < timeout) timeout = left > 0 ? left : 0; /* the case's deadline bounds it too */
    if (!ts_child_fork(&t->server, &t->child, timeout, why, why_size)) return false;
    t->forked++;
    return true;
}

/* The warm start the mode gives, into t->child; false when there is none (then a cold start). */
static bool start_warm(ts_child_testee *t) {
    if (t->warm == TS_WARM_FORK) {
        char why[300];
        if (start_instance(t, why, sizeof why)) return true;
        if (ts_child_interrupted()) return false;
        fprintf(stderr, "turnstile certify: the testee's fork server failed (%s); cold starts from now on\n", why);
        ts_child_finish(&t->server);
        t->warm = TS_WARM_OFF;
        return false;
    }
    if (t->warm != TS_WARM_POOL || t->spare.pid < 0) return false;
    if (ts_child_check_ended(&t->spare)) { /* it ended before it was needed: a cold start says how */
        ts_child_finish(&t->spare);
        return false;
    }
    t->child = t->spare;
    ts_testee_no_child(&t->spare);
    t->pooled++;
    return true;
}

bool ts_testee_start_child(ts_child_testee *t, char *why, size_t why_size) {
    bool pooled = t->warm == TS_WARM_POOL && t->spare.pid > 0;
    if (!start_warm(t)) {
        pooled = false;
        if (!start_process(t, &t->child, false, why, why_size)) return false;
    }
    if (t->warm == TS_WARM_POOL && t->spare.pid < 0) { /* the next start's, loading while this one works */
        char ignored[300];
        start_process(t, &t->spare, true, ignored, sizeof ignored);
    }
    t->running = t->started_once = true;
    t->stdout_eof = false;
    t->answers_this_start = 0;
    t->pending_len = 0;
    t->stdout_read = 0;
    t->read_first = false;
    t->armed_this_start = t->arm_pending && ts_child_arm(&t->child, t->arm_subroot, t->arm_count, t->arm_after);
    if (pooled && !t->armed_this_start && t->observe_root) ts_child_arm(&t->child, "", 0, false); /* its records, from now */
    t->arm_pending = false;
    return true;
}

/* Stops the fork server and the pooled process, clearing their trees. */
void ts_testee_stop_warm(ts_child_testee *t) {
    if (t->server.supervisor > 0) ts_child_finish(&t->server);
    if (t->spare.supervisor > 0) ts_child_finish(&t->spare);
}

void child_testee_set_warm(ts_testee *base, ts_testee_warm warm) {
    ts_child_testee *t = child_of(base);
    if (t->warm == warm) return;
    if (t->running) ts_testee_kill(base); /* started otherwise */
    ts_testee_stop_warm(t);
    t->warm = warm;
}

ts_testee_warm child_testee_warm_mode(const ts_testee *base) {
    const ts_child_testee *t = const_child_of(base);
    return t->warm;
}

void child_testee_scale_timeout(ts_testee *base, double scale) {
    ts_child_testee *t = child_of(base);
    t->timeout_scale = scale > 0 ? scale : 1;
}

void child_testee_starts(const ts_testee *base, long *execs, long *pooled, long *forked) {
    const ts_child_testee *t = const_child_of(base);
    *execs = t->execs;
    *pooled = t->pooled;
    *forked = t->forked;
}

bool child_testee_observe(ts_testee *base, const char *root, int trace_fd) {
    ts_child_testee *t = child_of(base);
    bool same = (!root && !t->observe_root) || (root && t->observe_root && !strcmp(root, t->observe_root));
    if (same && t->trace_fd == trace_fd) return true;
    free(t->observe_root);
    t->observe_root = root ? strdup(root) : NULL;
    t->trace_fd = trace_fd;
    if (t->running) ts_testee_kill(base); /* started otherwise: the next start is observed */
    ts_testee_stop_warm(t);
    return !root || t->observe_root != NULL;
}

bool child_testee_arm(ts_testee *base, const char *subroot, uint64_t count, bool after) {
    ts_child_testee *t = child_of(base);
    if (!t->observe_root) return false;
    if (t->running && !t->child.ended) {
        t->armed_this_start = ts_child_arm(&t->child, subroot, count, after);
        return t->armed_this_start;
    }
    snprintf(t->arm_subroot, sizeof t->arm_subroot, "%s", subroot);
    t->arm_count = count;
    t->arm_after = after;
    t->arm_pending = true;
    return true;
}

uint64_t child_testee_stdout_offset(const ts_testee *base) {
    const ts_child_testee *t = const_child_of(base);
    return !t->running ? 0 : t->stdout_read - t->pending_len;
}

void ts_testee_stop_child(ts_child_testee *t, bool kill_it) {
    if (!t->running) return;
    if (kill_it) ts_child_kill(&t->child);
    ts_child_wait_ended(&t->child, kill_it ? 5.0 : 0.0);
    ts_testee_drain_stderr(t);
    ts_child_finish(&t->child);
    t->running = false;
    t->pending_len = 0;
}

