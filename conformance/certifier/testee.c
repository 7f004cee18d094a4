/* testee.c — the child-process testee (a long-lived process on a pipe): its calls, its end and
 * its vtable; its starts are testee_start.c's, its conversations testee_converse.c's, its
 * request ids testee_ids.c's. See testee.h and testee_child.h. */
#include "conformance/certifier/testee.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "conformance/certifier/load_probe.h"
#include "conformance/certifier/supervise.h"
#include "conformance/certifier/testee_child.h"
#include "core/json/codec.h"

static const double closed_stdout_grace = 2.0; /* for a testee that closed stdout to exit */
static const double default_start_timeout = 60.0;
static const double load_probe_seconds = 0.25;  /* how long a timed-out testee is watched for load */
static const double finish_grace = 2.0;        /* for a testee to exit at end of input */
static const double max_timeout = 86400.0;

void ts_testee_no_child(ts_child *c) {
    memset(c, 0, sizeof *c);
    c->pid = c->supervisor = -1;
    c->in = c->out = c->err = c->status = c->control = c->fork = -1;
}

static const ts_testee_vtable child_vtable; /* at the end */
static void child_testee_close(ts_testee *base);

/* A testee with no process yet. */
static ts_child_testee *new_testee(void) {
    ts_child_testee *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    ts_testee_init_base(&t->base, &child_vtable);
    ts_testee_no_child(&t->child);
    ts_testee_no_child(&t->server);
    ts_testee_no_child(&t->spare);
    t->trace_fd = -1;
    t->timeout_scale = 1;
    return t;
}

double ts_testee_now_seconds(void) { return ts_testee_clock(); }

/* ---- stderr: kept as a tail ---- */

static void keep_stderr(ts_child_testee *t, const char *data, size_t n) {
    if (n >= STDERR_TAIL) {
        memcpy(t->tail, data + n - STDERR_TAIL, STDERR_TAIL);
        t->tail_len = STDERR_TAIL;
    } else {
        size_t keep = t->tail_len + n > STDERR_TAIL ? STDERR_TAIL - n : t->tail_len;
        memmove(t->tail, t->tail + t->tail_len - keep, keep);
        memcpy(t->tail + keep, data, n);
        t->tail_len = keep + n;
    }
    t->tail[t->tail_len] = '\0';
}

void ts_testee_drain_stderr(ts_child_testee *t) {
    char buf[65536];
    while (t->child.err >= 0) {
        ssize_t n = read(t->child.err, buf, sizeof buf);
        if (n > 0) {
            keep_stderr(t, buf, (size_t)n);
        } else {
            if (n == 0) { /* the testee closed stderr: stop polling it (poll ignores -1) */
                close(t->child.err);
                t->child.err = -1;
            }
            break;
        }
    }
}

/* A start ended (died or was killed) by the testee's fault: after SILENT_STARTS of them
 * without a single line ever written, the testee cannot be used. */
static void start_failed(ts_child_testee *t, const char *how) {
    if (t->answered_once || ++t->silent_starts < SILENT_STARTS || t->failure) return;
    /* The last line of its stderr says why, most often ("can't open file ..."). */
    size_t end = t->tail_len;
    while (end && (t->tail[end - 1] == '\n' || t->tail[end - 1] == '\r' || t->tail[end - 1] == ' ')) end--;
    size_t begin = end;
    while (begin && t->tail[begin - 1] != '\n') begin--;
    if (end - begin > 100) begin = end - 100;
    char last[101];
    for (size_t i = begin; i < end; i++) last[i - begin] = t->tail[i] && t->tail[i] != '\r' ? t->tail[i] : ' ';
    last[end - begin] = '\0';
    size_t size = 400;
    if (!(t->failure = malloc(size))) return;
    snprintf(t->failure, size, "it never answered: its first %d starts all ended before it wrote a line (the last %s)%s%s",
             SILENT_STARTS, how, last[0] ? "; its stderr ends: " : "", last);
}

static void describe_end(ts_child_testee *t, bool during_request, ts_call_result *result) {
    char how[80];
    if (t->child.lost) {
        result->status = TS_CALL_CRASHED;
        result->code = 9;
        snprintf(how, sizeof how, "was killed (its supervisor died)");
    } else {
        result->status = WIFSIGNALED(t->child.wait_status) ? TS_CALL_CRASHED : TS_CALL_EXITED;
        result->code = WIFSIGNALED(t->child.wait_status) ? WTERMSIG(t->child.wait_status) : WEXITSTATUS(t->child.wait_status);
        ts_child_describe_status(t->child.wait_status, how, sizeof how);
    }
    if (during_request)
        snprintf(result->detail, sizeof result->detail, "the testee %s before answering", how);
    else
        snprintf(result->detail, sizeof result->detail, "the testee %s %s", how,
                 t->answers_this_start ? "after its last answer, before this request was sent"
                                       : "before this request was sent");
}

/* ---- stdout ---- */

static bool append_pending(ts_child_testee *t, const char *data, size_t n) {
    if (t->pending_len + n + 1 > t->pending_cap) {
        size_t cap = t->pending_cap ? t->pending_cap : 65536;
        while (cap < t->pending_len + n + 1) cap *= 2;
        char *grown = realloc(t->pending, cap);
        if (!grown) return false;
        t->pending = grown;
        t->pending_cap = cap;
    }
    memcpy(t->pending + t->pending_len, data, n);
    t->pending_len += n;
    return true;
}

/* Reads what stdout holds now (never more than one answer's limit past what is pending). */
static void read_stdout_now(ts_child_testee *t) {
    char buf[65536];
    while (!t->stdout_eof && t->pending_len <= t->options.max_answer_bytes) {
        ssize_t n = read(t->child.out, buf, sizeof buf);
        if (n > 0) {
            if (!append_pending(t, buf, (size_t)n)) return;
            t->stdout_read += (uint64_t)n;
        } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
            t->stdout_eof = true;
        } else {
            return;
        }
    }
}

/* Everything pending is output after the last answer: count its lines as second answers. */
static bool count_pending_as_extra(ts_child_testee *t) {
    bool extra = false;
    size_t at = 0;
    while (at < t->pending_len) {
        char *newline = memchr(t->pending + at, '\n', t->pending_len - at);
        size_t end = newline ? (size_t)(newline - t->pending) : t->pending_len;
        for (size_t i = at; i < end && !extra; i++)
            extra = t->pending[i] != ' ' && t->pending[i] != '\t' && t->pending[i] != '\r';
        ts_testee_count_extra_line(t, t->pending + at, end - at);
        at = end + 1;
    }
    t->pending_len = 0;
    return extra;
}

static bool child_testee_has_extra_output(ts_testee *base) {
    ts_child_testee *t = child_of(base);
    if (!t->running) return false;
    read_stdout_now(t);
    ts_testee_drain_stderr(t);
    ts_child_check_ended(&t->child);
    return count_pending_as_extra(t);
}

/* Takes the first line of pending that answers request `id` into answer; counts the lines
 * before it that carry the id of an earlier request. False when no such line is complete. */
static bool take_answer(ts_child_testee *t, const char *id, ts_buf *answer) {
    char *newline;
    while (t->pending_len && (newline = memchr(t->pending, '\n', t->pending_len))) {
        size_t line_len = (size_t)(newline - t->pending);
        size_t body = line_len && t->pending[line_len - 1] == '\r' ? line_len - 1 : line_len;
        char line_owner[ID_MAX];
        bool earlier = id[0] && ts_testee_line_id(t->pending, body, line_owner) && strcmp(line_owner, id) != 0 &&
                       ts_testee_was_sent(t, line_owner);
        if (earlier) ts_testee_count_extra_line(t, t->pending, body);
        else ts_buf_append(answer, t->pending, body);
        memmove(t->pending, newline + 1, t->pending_len - line_len - 1);
        t->pending_len -= line_len + 1;
        if (!earlier) {
            t->answered_once = true;
            t->answers_this_start++;
            snprintf(t->last_answered, sizeof t->last_answered, "%s", id);
            return true;
        }
    }
    return false;
}

/* ---- calls ---- */

ts_testee *ts_testee_spawn(char *const argv[], const ts_testee_options *options, char *why, size_t why_size) {
    ts_testee_options checked = *options;
    if (checked.timeout_seconds == 0) checked.timeout_seconds = 5;
    if (!isfinite(checked.timeout_seconds) || checked.timeout_seconds < 0 || checked.timeout_seconds > max_timeout) {
        snprintf(why, why_size, "the timeout must be a number of seconds above 0 and at most %.0f", max_timeout);
        return NULL;
    }
    if (checked.max_restarts < 0) {
        snprintf(why, why_size, "the restart limit must not be negative");
        return NULL;
    }
    if (checked.start_timeout_seconds == 0) checked.start_timeout_seconds = default_start_timeout;
    if (!isfinite(checked.start_timeout_seconds) || checked.start_timeout_seconds < 0 ||
        checked.start_timeout_seconds > max_timeout) {
        snprintf(why, why_size, "the start timeout must be a number of seconds above 0 and at most %.0f", max_timeout);
        return NULL;
    }
    if (!checked.max_answer_bytes) checked.max_answer_bytes = (size_t)16 << 20;
    if (!checked.max_restarts) checked.max_restarts = 20;
    ts_child_testee *t = new_testee();
    if (!t) return NULL;
    size_t argc = 0;
    while (argv[argc]) argc++;
    t->argv = calloc(argc + 1, sizeof *t->argv);
    if (!t->argv) {
        free(t);
        return NULL;
    }
    size_t used = 0;
    for (size_t i = 0; i < argc; i++) {
        t->argv[i] = strdup(argv[i]);
        used += (size_t)snprintf(t->base.description + used, used < sizeof t->base.description ? sizeof t->base.description - used : 0,
                                 "%s%s", i ? " " : "", argv[i]);
        if (used >= sizeof t->base.description) used = sizeof t->base.description - 1;
    }
    t->options = checked;
    if (!ts_testee_start_child(t, why, why_size)) {
        child_testee_close(&t->base);
        return NULL;
    }
    return &t->base;
}

/* deadline = when, or the case's deadline when it comes first (then true). */
static bool set_deadline(const ts_child_testee *t, double when, double *deadline) {
    bool case_first = t->base.deadline > 0 && t->base.deadline < when;
    *deadline = case_first ? t->base.deadline : when;
    return case_first;
}

/* Has the testee read everything written to its stdin (the pipe is empty)? */
static bool request_read(const ts_child_testee *t) {
    int unread = 0;
    return ioctl(t->child.in, FIONREAD, &unread) != 0 || unread == 0;
}

/* The call's bound ran out: before its start was over (starting), before it read the request
 * (reading), or before its answer. A testee the host starved (load_probe.h) is said so: its
 * timeout is no verdict on it. The child is killed. */
static void timed_out(ts_child_testee *t, bool starting, bool reading, double timeout, ts_call_result *result) {
    char load[120], how[120];
    result->status = TS_CALL_TIMEOUT;
    result->loaded = ts_load_probe(t->child.pid, load_probe_seconds, load, sizeof load);
    if (starting)
        snprintf(how, sizeof how, "did not read its first request within %.3g s of its start (--start-timeout)",
                 t->options.start_timeout_seconds);
    else if (reading)
        snprintf(how, sizeof how, "did not read the request within %.3g s", timeout);
    else
        snprintf(how, sizeof how, "gave no answer within %.3g s", timeout);
    snprintf(result->detail, sizeof result->detail, "the testee %.100s%s%.40s%s", how,
             result->loaded ? " while the host was loaded (" : "", result->loaded ? load : "", result->loaded ? "): no verdict on it" : "");
    ts_testee_stop_child(t, true);
    start_failed(t, how);
}

/* Before a request is sent: the testee usable, a death since its last answer noticed (with
 * check_extra, taking the output left as second answers), a child running (started again,
 * counted as a restart unless it was stopped on purpose). False, with result saying why, when
 * the request cannot be sent. */
static bool ready_to_send(ts_child_testee *t, bool sending, bool check_extra, ts_call_result *result) {
    if (t->failure) {
        result->status = TS_CALL_UNAVAILABLE;
        snprintf(result->detail, sizeof result->detail, "not sent: %s", t->failure);
        return false;
    }
    if (t->running && sending && check_extra) {
        result->extra_output = child_testee_has_extra_output(&t->base);
        if (t->child.ended) { /* it died after its last answer: this request finds it dead */
            describe_end(t, false, result);
            ts_testee_stop_child(t, false);
            start_failed(t, result->detail + strlen("the testee "));
            return false;
        }
    }
    if (!t->running) {
        if (!t->started_once) { /* a copy's first start (ts_testee_copy) is no restart */
        } else if (t->stopped_on_purpose) {
            t->planned_restarts++;
        } else if (t->restarts >= t->options.max_restarts) {
            result->status = TS_CALL_UNAVAILABLE;
            snprintf(result->detail, sizeof result->detail, "not sent: the testee was restarted %d times already",
                     t->restarts);
            return false;
        } else {
            t->restarts++;
        }
        t->stopped_on_purpose = false;
        if (!ts_testee_start_child(t, result->detail, sizeof result->detail)) {
            result->status = TS_CALL_UNAVAILABLE;
            return false;
        }
    }
    return true;
}

/* The call ends as status with detail, by the testee's fault (`how`, start_failed's): the child
 * is killed. */
static void give_up(ts_child_testee *t, ts_call_status status, const char *detail, const char *how,
                    ts_call_result *result) {
    result->status = status;
    snprintf(result->detail, sizeof result->detail, "%s", detail);
    ts_testee_stop_child(t, true);
    start_failed(t, how);
}

/* The child ended before its answer (all it wrote read): how, into result. The observer's armed
 * kill is a planned end, any other the testee's failure. */
static void ended_before_answer(ts_child_testee *t, ts_call_result *result) {
    describe_end(t, true, result);
    bool nemesis = t->armed_this_start && result->status == TS_CALL_CRASHED && result->code == SIGKILL;
    ts_testee_stop_child(t, false);
    if (nemesis) t->stopped_on_purpose = true;
    else start_failed(t, result->detail + strlen("the testee "));
}

/* Writes request (unless NULL) to the child and reads the line that answers it. check_extra:
 * first take output left from the previous request as second answers, and notice a death
 * since; off for the replies of a conversation (ts_testee_converse), whose next world call
 * may already be written. */
void ts_testee_call_child(ts_child_testee *t, const char *request, size_t len, ts_buf *answer, ts_call_result *result,
                          bool check_extra) {
    memset(result, 0, sizeof *result);
    ts_buf_reset(answer);
    if (!ready_to_send(t, request != NULL, check_extra, result)) return;
    char id[ID_MAX] = "";
    if (request && !ts_testee_line_id(request, len, id)) id[0] = '\0';
    ts_testee_remember_sent(t, id);
    /* Write the request (and newline) while reading stdout/stderr, so a testee that answers
     * before reading everything cannot deadlock us; watch the supervisor's report, so a dead
     * testee is seen at once even when something it started still holds its stdout. The answer's
     * timeout runs from when the testee has read the request whole (the pipe is empty): until
     * then a start is timed by its own bound, and a running testee by the answer's. */
    double timeout = t->options.timeout_seconds * t->timeout_scale;
    bool reading = request != NULL, starting = reading && !t->read_first;
    double deadline = 0, recheck = 0.001;
    bool case_deadline = set_deadline(t, ts_testee_now_seconds() + (starting ? t->options.start_timeout_seconds : timeout),
                                      &deadline);
    size_t sent = 0, total = request ? len + 1 : 0;
    for (;;) {
        if (sent == total && take_answer(t, id, answer)) {
            t->read_first = true;
            result->status = TS_CALL_ANSWERED;
            return;
        }
        if (reading && sent == total && request_read(t)) {
            reading = starting = false;
            t->read_first = true;
            case_deadline = set_deadline(t, ts_testee_now_seconds() + timeout, &deadline);
        }
        if (t->pending_len > t->options.max_answer_bytes) {
            char detail[80];
            snprintf(detail, sizeof detail, "the answer exceeds %zu bytes", t->options.max_answer_bytes);
            give_up(t, TS_CALL_TOO_LARGE, detail, "wrote a line longer than the answer limit", result);
            return;
        }
        if (t->child.ended) {
            size_t before = t->pending_len;
            read_stdout_now(t); /* what it wrote before it ended is all there now */
            if (t->pending_len != before) continue;
            ended_before_answer(t, result);
            return;
        }
        double left = deadline - ts_testee_now_seconds();
        if (t->stdout_eof) { /* closed to exit, or closed and still running? */
            if (ts_child_wait_ended(&t->child, left < closed_stdout_grace ? left : closed_stdout_grace)) continue;
            give_up(t, TS_CALL_STDOUT_CLOSED, "the testee closed its stdout and kept running (the certifier then killed it)",
                    "it closed its stdout and kept running", result);
            return;
        }
        if (left <= 0 && case_deadline) {
            give_up(t, TS_CALL_CASE_TIMEOUT, "the case reached its deadline (--case-timeout) waiting for a line",
                    "gave no answer before the case's deadline", result);
            return;
        }
        if (left <= 0) {
            timed_out(t, starting, reading, timeout, result);
            return;
        }
        double wait = left;
        if (reading && sent == total && recheck < wait) wait = recheck, recheck *= 2; /* has it read the request? */
        struct pollfd fds[4] = {{t->child.status, POLLIN, 0}, {t->child.out, POLLIN, 0}, {t->child.err, POLLIN, 0},
                                {sent < total ? t->child.in : -1, POLLOUT, 0}};
        int ready = poll(fds, 4, (int)(wait * 1000) + 1);
        if (ready < 0 && errno != EINTR) {
            result->status = TS_CALL_UNAVAILABLE;
            snprintf(result->detail, sizeof result->detail, "poll failed: %s", strerror(errno));
            ts_testee_stop_child(t, true);
            return;
        }
        if (ready <= 0) continue;
        if (fds[3].revents & (POLLOUT | POLLERR | POLLHUP)) {
            ssize_t n = sent < len ? write(t->child.in, request + sent, len - sent) : write(t->child.in, "\n", 1);
            if (n > 0) sent += (size_t)n;
            else if (n < 0 && errno != EAGAIN && errno != EINTR) sent = total; /* it closed stdin: see what follows */
        }
        if (fds[2].revents) ts_testee_drain_stderr(t);
        if (fds[1].revents) read_stdout_now(t);
        if (fds[0].revents) ts_child_check_ended(&t->child);
    }
}

static void child_testee_call(ts_testee *base, const char *request, size_t len, ts_buf *answer, ts_call_result *result) {
    ts_testee_call_child(child_of(base), request, len, answer, result, true);
}

/* Closes the child's stdin and reads what it writes until it exits (2 s at most, then it is
 * killed); output after its last answer counts as second answers. */
static void finish_child(ts_child_testee *t) {
    if (!t->running) return;
    if (t->child.in >= 0) close(t->child.in);
    t->child.in = -1;
    double deadline = ts_testee_now_seconds() + finish_grace;
    while (!(t->child.ended && t->stdout_eof)) {
        double left = deadline - ts_testee_now_seconds();
        if (left <= 0) break;
        struct pollfd fds[3] = {{t->child.ended ? -1 : t->child.status, POLLIN, 0},
                                {t->stdout_eof ? -1 : t->child.out, POLLIN, 0}, {t->child.err, POLLIN, 0}};
        if (poll(fds, 3, (int)(left * 1000) + 1) < 0 && errno != EINTR) break;
        if (fds[2].revents) ts_testee_drain_stderr(t);
        if (fds[1].revents) read_stdout_now(t);
        if (fds[0].revents) ts_child_check_ended(&t->child);
        if (t->pending_len > t->options.max_answer_bytes) break;
        if (t->child.ended) read_stdout_now(t);
        if (t->child.ended && !t->stdout_eof) break; /* something it started holds stdout: done anyway */
    }
    read_stdout_now(t);
    count_pending_as_extra(t);
    ts_testee_stop_child(t, !t->child.ended);
    t->stopped_on_purpose = true;
}

static void child_testee_stop(ts_testee *base) { finish_child(child_of(base)); }

static void child_testee_finish(ts_testee *base) {
    ts_child_testee *t = child_of(base);
    finish_child(t);
    ts_testee_stop_warm(t);
}

static const char *child_testee_failure(const ts_testee *base) {
    const ts_child_testee *t = const_child_of(base);
    return t->failure;
}

static void child_testee_kill(ts_testee *base) {
    ts_child_testee *t = child_of(base);
    if (!t->running) return;
    ts_testee_stop_child(t, true);
    t->stopped_on_purpose = true;
}

static bool child_testee_alive(ts_testee *base) {
    ts_child_testee *t = child_of(base);
    return t->running && !ts_child_check_ended(&t->child);
}

static pid_t child_testee_pid(const ts_testee *base) {
    const ts_child_testee *t = const_child_of(base);
    return t->running ? t->child.pid : -1;
}

static const char *child_testee_stderr_tail(const ts_testee *base, size_t *len) {
    const ts_child_testee *t = const_child_of(base);
    if (len) *len = t->tail_len;
    return t->tail;
}

static void child_testee_clear_stderr_tail(ts_testee *base) {
    ts_child_testee *t = child_of(base);
    t->tail_len = 0;
    t->tail[0] = '\0';
}
static int child_testee_restarts(const ts_testee *base) {
    const ts_child_testee *t = const_child_of(base);
    return t->restarts + t->planned_restarts;
}

static ts_testee *child_testee_copy(const ts_testee *base) {
    const ts_child_testee *t = const_child_of(base);
    ts_child_testee *copy = new_testee();
    if (!copy) return NULL;
    size_t argc = 0;
    while (t->argv[argc]) argc++;
    if (!(copy->argv = calloc(argc + 1, sizeof *copy->argv))) {
        free(copy);
        return NULL;
    }
    for (size_t i = 0; i < argc; i++)
        if (!(copy->argv[i] = strdup(t->argv[i]))) {
            child_testee_close(&copy->base);
            return NULL;
        }
    copy->options = t->options;
    copy->warm = t->warm;
    memcpy(copy->base.description, t->base.description, sizeof copy->base.description);
    return &copy->base;
}

/* Closes a ts_child's descriptors and nothing else. */
static void close_child_fds(ts_child *c) {
    int fds[] = {c->in, c->out, c->err, c->instance ? -1 : c->status, c->instance ? -1 : c->control, c->fork};
    for (size_t i = 0; i < sizeof fds / sizeof *fds; i++)
        if (fds[i] >= 0) close(fds[i]);
}

static void child_testee_forget(ts_testee *base) {
    ts_child_testee *t = child_of(base);
    if (!t) return;
    close_child_fds(&t->child);
    close_child_fds(&t->server);
    close_child_fds(&t->spare);
    ts_testee_no_child(&t->child);
    ts_testee_no_child(&t->server);
    ts_testee_no_child(&t->spare);
    t->running = false;
    child_testee_close(&t->base);
}

static void child_testee_close(ts_testee *base) {
    ts_child_testee *t = child_of(base);
    if (!t) return;
    child_testee_finish(&t->base);
    ts_child_finish(&t->child);
    ts_testee_stop_warm(t);
    if (t->argv)
        for (size_t i = 0; t->argv[i]; i++) free(t->argv[i]);
    free(t->argv);
    free(t->pending);
    for (size_t i = 0; i < t->sent_count; i++) free(t->sent[i]);
    free(t->sent);
    for (size_t i = 0; i < t->extra_len; i++) free(t->extras[i].id);
    free(t->extras);
    free(t->failure);
    free(t->observe_root);
    free(t);
}

static const ts_testee_vtable child_vtable = {
    .call = child_testee_call,
    .converse = child_testee_converse,
    .copy = child_testee_copy,
    .close = child_testee_close,
    .forget = child_testee_forget,
    .set_warm = child_testee_set_warm,
    .warm_mode = child_testee_warm_mode,
    .scale_timeout = child_testee_scale_timeout,
    .starts = child_testee_starts,
    .set_auto_settle = child_testee_set_auto_settle,
    .line_pipelined = child_testee_line_pipelined,
    .observe = child_testee_observe,
    .arm = child_testee_arm,
    .stdout_offset = child_testee_stdout_offset,
    .stop = child_testee_stop,
    .has_extra_output = child_testee_has_extra_output,
    .extra_answers = child_testee_extra_answers,
    .extra_at = child_testee_extra_at,
    .finish = child_testee_finish,
    .failure = child_testee_failure,
    .kill = child_testee_kill,
    .alive = child_testee_alive,
    .pid = child_testee_pid,
    .stderr_tail = child_testee_stderr_tail,
    .clear_stderr_tail = child_testee_clear_stderr_tail,
    .restarts = child_testee_restarts,
};
