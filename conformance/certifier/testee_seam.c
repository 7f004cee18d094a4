/* testee_seam.c — the testee interface's calls (testee.h): each goes to the implementation's
 * vtable entry, or has its neutral answer when the testee starts no process of its own; and
 * what every testee holds alike (deadline, description, the status names, the clock). */
#include <string.h>
#include <time.h>

#include "conformance/certifier/testee.h"

const char *ts_call_status_name(ts_call_status status) {
    switch (status) {
    case TS_CALL_ANSWERED: return "answered";
    case TS_CALL_TIMEOUT: return "timeout";
    case TS_CALL_CRASHED: return "crashed";
    case TS_CALL_EXITED: return "exited";
    case TS_CALL_TOO_LARGE: return "protocol-error";
    case TS_CALL_UNAVAILABLE: return "unavailable";
    case TS_CALL_STDOUT_CLOSED: return "protocol-error";
    case TS_CALL_CASE_TIMEOUT: return "case-timeout";
    }
    return "unknown";
}

void ts_testee_init_base(ts_testee *base, const ts_testee_vtable *vtable) {
    memset(base, 0, sizeof *base);
    base->vtable = vtable;
}

double ts_testee_clock(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void ts_testee_set_deadline(ts_testee *t, double deadline) { t->deadline = deadline > 0 ? deadline : 0; }
double ts_testee_deadline(const ts_testee *t) { return t->deadline; }
const char *ts_testee_description(const ts_testee *t) { return t->description; }

/* ---- every implementation's ---- */

void ts_testee_call(ts_testee *t, const char *request, size_t len, ts_buf *answer, ts_call_result *result) {
    t->vtable->call(t, request, len, answer, result);
}

void ts_testee_converse(ts_testee *t, const char *request, size_t len, ts_line_handler on_line, void *context,
                        ts_call_result *result) {
    t->vtable->converse(t, request, len, on_line, context, result);
}

ts_testee *ts_testee_copy(const ts_testee *t) { return t->vtable->copy(t); }

void ts_testee_close(ts_testee *t) {
    if (t) t->vtable->close(t);
}

void ts_testee_forget(ts_testee *t) {
    if (t) (t->vtable->forget ? t->vtable->forget : t->vtable->close)(t);
}

/* ---- a child process's: neutral when the testee starts none ---- */

void ts_testee_set_warm(ts_testee *t, ts_testee_warm warm) {
    if (t->vtable->set_warm) t->vtable->set_warm(t, warm);
}

ts_testee_warm ts_testee_warm_mode(const ts_testee *t) {
    return t->vtable->warm_mode ? t->vtable->warm_mode(t) : TS_WARM_OFF;
}

void ts_testee_scale_timeout(ts_testee *t, double scale) {
    if (t->vtable->scale_timeout) t->vtable->scale_timeout(t, scale);
}

void ts_testee_starts(const ts_testee *t, long *execs, long *pooled, long *forked) {
    if (t->vtable->starts) t->vtable->starts(t, execs, pooled, forked);
    else *execs = *pooled = *forked = 0;
}

void ts_testee_set_auto_settle(ts_testee *t, double quiet_seconds) {
    if (t->vtable->set_auto_settle) t->vtable->set_auto_settle(t, quiet_seconds);
}

bool ts_testee_line_pipelined(const ts_testee *t) {
    return t->vtable->line_pipelined && t->vtable->line_pipelined(t);
}

bool ts_testee_observe(ts_testee *t, const char *root, int trace_fd) {
    return t->vtable->observe && t->vtable->observe(t, root, trace_fd);
}

bool ts_testee_arm(ts_testee *t, const char *subroot, uint64_t count, bool after) {
    return t->vtable->arm && t->vtable->arm(t, subroot, count, after);
}

uint64_t ts_testee_stdout_offset(const ts_testee *t) {
    return t->vtable->stdout_offset ? t->vtable->stdout_offset(t) : 0;
}

void ts_testee_stop(ts_testee *t) {
    if (t->vtable->stop) t->vtable->stop(t);
}

bool ts_testee_has_extra_output(ts_testee *t) {
    return t->vtable->has_extra_output && t->vtable->has_extra_output(t);
}

int ts_testee_extra_answers(const ts_testee *t, const char *id) {
    return t->vtable->extra_answers ? t->vtable->extra_answers(t, id) : 0;
}

bool ts_testee_extra_at(const ts_testee *t, size_t i, const char **id, int *count) {
    return t->vtable->extra_at && t->vtable->extra_at(t, i, id, count);
}

void ts_testee_finish(ts_testee *t) {
    if (t->vtable->finish) t->vtable->finish(t);
}

const char *ts_testee_failure(const ts_testee *t) { return t->vtable->failure ? t->vtable->failure(t) : NULL; }

void ts_testee_kill(ts_testee *t) {
    if (t->vtable->kill) t->vtable->kill(t);
}

bool ts_testee_alive(ts_testee *t) { return t->vtable->alive ? t->vtable->alive(t) : true; }

pid_t ts_testee_pid(const ts_testee *t) { return t->vtable->pid ? t->vtable->pid(t) : -1; }

const char *ts_testee_stderr_tail(const ts_testee *t, size_t *len) {
    if (t->vtable->stderr_tail) return t->vtable->stderr_tail(t, len);
    if (len) *len = 0;
    return "";
}

void ts_testee_clear_stderr_tail(ts_testee *t) {
    if (t->vtable->clear_stderr_tail) t->vtable->clear_stderr_tail(t);
}

int ts_testee_restarts(const ts_testee *t) { return t->vtable->restarts ? t->vtable->restarts(t) : 0; }
