/* testee_converse.c — requests answered after world calls (PROTOCOL.md `resume`): the certifier
 * plays the testee's model and tools on the pipe, and kills it where the caller asks; see
 * testee.h (ts_testee_converse). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "conformance/certifier/testee.h"
#include "conformance/certifier/testee_child.h"

/* Reads what the child writes until it has been silent for `seconds` (at most 20 times that in
 * all), dropping it: lines in flight when the certifier kills. */
static void settle(ts_testee *t, double seconds) {
    char buf[65536];
    double end = ts_testee_now_seconds() + 20 * seconds, quiet = ts_testee_now_seconds() + seconds;
    if (t->deadline > 0 && t->deadline < end) end = t->deadline; /* the case's deadline bounds it too */
    while (t->running && !t->stdout_eof && ts_testee_now_seconds() < end && ts_testee_now_seconds() < quiet) {
        struct pollfd fds[2] = {{t->child.out, POLLIN, 0}, {t->child.err, POLLIN, 0}};
        int ready = poll(fds, 2, (int)((quiet - ts_testee_now_seconds()) * 1000) + 1);
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

/* In-process world calls: straight to the caller's line handler. */
typedef struct in_process_conversation {
    ts_line_handler on_line;
    void *context;
    bool over; /* killed, or a world line was taken as the answer */
    bool killed;
} in_process_conversation;

static bool in_process_exchange(void *context, const char *line, size_t len, ts_buf *reply) {
    in_process_conversation *c = context;
    if (c->over) return false;
    ts_line_verdict v = c->on_line(c->context, line, len, reply);
    c->over = v != TS_LINE_REPLY;
    c->killed = v == TS_LINE_KILL;
    return !c->over;
}

void ts_testee_converse(ts_testee *t, const char *request, size_t len, ts_line_handler on_line, void *context,
                        ts_call_result *result) {
    ts_buf line, reply;
    ts_buf_init(&line);
    ts_buf_init(&reply);
    if (t->in_process) {
        in_process_conversation c = {on_line, context, false, false};
        t->config.exchange = in_process_exchange;
        t->config.exchange_context = &c;
        ts_testee_call(t, request, len, &line, result);
        t->config.exchange = NULL;
        if (c.killed) {
            result->status = TS_CALL_CRASHED;
            result->code = SIGKILL;
        } else if (!c.over) {
            on_line(context, line.data ? line.data : "", line.len, &reply);
        }
    } else {
        ts_testee_call_child(t, request, len, &line, result, true);
        while (result->status == TS_CALL_ANSWERED) {
            ts_buf_reset(&reply);
            ts_line_verdict v = on_line(context, line.data ? line.data : "", line.len, &reply);
            if (v == TS_LINE_ANSWER) break;
            if (v == TS_LINE_KILL) {
                if (t->options.kill_settle_seconds > 0) settle(t, t->options.kill_settle_seconds);
                ts_testee_stop_child(t, true);
                t->stopped_on_purpose = true;
                memset(result, 0, sizeof *result);
                result->status = TS_CALL_CRASHED;
                result->code = SIGKILL;
                break;
            }
            ts_testee_call_child(t, reply.data ? reply.data : "", reply.len, &line, result, false);
        }
    }
    ts_buf_free(&line);
    ts_buf_free(&reply);
}

