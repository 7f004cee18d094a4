/* testee_converse.c — requests answered after world calls (PROTOCOL.md `resume`): the certifier
 * plays the testee's model and tools on the pipe, and kills it where the caller asks; see
 * testee.h (ts_testee_converse) and testee_child.h. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "conformance/certifier/testee.h"
#include "conformance/certifier/testee_child.h"

/* Has the child read every reply written to its stdin? (FIONREAD works on either end of a pipe.) */
static bool replies_read(const ts_child_testee *t) {
    int unread = 0;
    return ioctl(t->child.in, FIONREAD, &unread) != 0 || unread == 0;
}

/* Reads what the child writes until it has read the replies it was sent and then been silent for
 * `seconds` (at most 20 times that in all, and never past the case's deadline), dropping it: lines
 * in flight when the certifier kills. */
static void settle(ts_child_testee *t, double seconds) {
    char buf[65536];
    double end = ts_testee_now_seconds() + 20 * seconds, quiet = ts_testee_now_seconds() + seconds;
    if (t->base.deadline > 0 && t->base.deadline < end) end = t->base.deadline; /* the case's deadline bounds it too */
    while (t->running && !t->stdout_eof && ts_testee_now_seconds() < end &&
           (ts_testee_now_seconds() < quiet || !replies_read(t))) {
        if (!replies_read(t)) quiet = ts_testee_now_seconds() + seconds; /* silence counts once it has them */
        struct pollfd fds[2] = {{t->child.out, POLLIN, 0}, {t->child.err, POLLIN, 0}};
        double wait = quiet - ts_testee_now_seconds();
        int ready = poll(fds, 2, wait > 0.01 ? (int)(wait * 1000) + 1 : 10);
        if (ready <= 0) continue;
        if (fds[1].revents) ts_testee_drain_stderr(t);
        if (fds[0].revents) {
            ssize_t n = read(t->child.out, buf, sizeof buf);
            if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) break; /* it exited meanwhile */
            if (n > 0) quiet = ts_testee_now_seconds() + seconds;
        }
    }
    t->pending_len = 0;
}

void child_testee_set_auto_settle(ts_testee *base, double quiet_seconds) {
    ts_child_testee *t = child_of(base);
    t->auto_settle = quiet_seconds > 0 ? quiet_seconds : 0;
}

bool child_testee_line_pipelined(const ts_testee *base) {
    const ts_child_testee *t = const_child_of(base);
    return t->line_pipelined;
}

/* Has the child written more than the line just handed out, before it was sent that line's reply?
 * (Bytes already read past it, or waiting on its stdout.) A pipelined world call, PROTOCOL.md; so is
 * a line that comes while the reply to the last one still sits unread in the child's stdin. Neither
 * can be seen of a testee that waits for each reply: no false alarm, though a race may hide one. */
static bool wrote_ahead(const ts_child_testee *t) {
    if (t->pending_len > 0) return true;
    struct pollfd out = {t->child.out, POLLIN, 0};
    return poll(&out, 1, 0) > 0 && (out.revents & POLLIN);
}

/* How long a kill waits for silence first: the --kill-settle given, or (automatic) the world's
 * quiet when pipelining was seen in the case, at least TS_TESTEE_AUTO_SETTLE_MIN when this
 * conversation saw it; 0: kill at once. */
static double settle_seconds(const ts_child_testee *t, long pipelined_here) {
    if (t->options.kill_settle_seconds != 0) return t->options.kill_settle_seconds > 0 ? t->options.kill_settle_seconds : 0;
    if (t->auto_settle > 0) return t->auto_settle;
    return pipelined_here ? TS_TESTEE_AUTO_SETTLE_MIN : 0;
}

/* The child's side of ts_testee_converse: each line handed to on_line and its reply written back,
 * noting pipelining and the testee's slowest step, until the answer or a kill. */
static void converse_child(ts_child_testee *t, const char *request, size_t len, ts_line_handler on_line, void *context,
                           ts_call_result *result, ts_buf *line, ts_buf *reply) {
    long pipelined = 0;
    double slowest = 0;
    bool settled = false;
    t->line_pipelined = false;
    ts_testee_call_child(t, request, len, line, result, true);
    while (result->status == TS_CALL_ANSWERED) {
        ts_buf_reset(reply);
        ts_line_verdict v = on_line(context, line->data ? line->data : "", line->len, reply);
        if (v == TS_LINE_ANSWER) break;
        bool ahead = wrote_ahead(t); /* the next line came before this one's reply (or before a kill) */
        if (v == TS_LINE_KILL) {
            pipelined += ahead;
            double quiet = settle_seconds(t, pipelined);
            if (quiet > 0) settle(t, quiet);
            settled = quiet > 0;
            ts_testee_stop_child(t, true);
            t->stopped_on_purpose = true;
            memset(result, 0, sizeof *result);
            result->status = TS_CALL_CRASHED;
            result->code = SIGKILL;
            break;
        }
        double sent = ts_testee_now_seconds();
        ts_testee_call_child(t, reply->data ? reply->data : "", reply->len, line, result, false);
        bool answered = result->status == TS_CALL_ANSWERED;
        t->line_pipelined = ahead || (answered && !replies_read(t)); /* or it came while the reply sat unread */
        pipelined += t->line_pipelined;
        if (answered && ts_testee_now_seconds() - sent > slowest) slowest = ts_testee_now_seconds() - sent;
    }
    t->line_pipelined = false;
    result->pipelined_lines = pipelined;
    result->slowest_step_seconds = slowest;
    result->settled_kill = settled;
}

void child_testee_converse(ts_testee *base, const char *request, size_t len, ts_line_handler on_line, void *context,
                           ts_call_result *result) {
    ts_buf line, reply;
    ts_buf_init(&line);
    ts_buf_init(&reply);
    converse_child(child_of(base), request, len, on_line, context, result, &line, &reply);
    ts_buf_free(&line);
    ts_buf_free(&reply);
}
