/* testee.c — in-process and child-process testees; see testee.h. */
#include "conformance/certifier/testee.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { STDERR_TAIL = 4096 };

struct ts_testee {
    bool in_process;
    ts_testee_config config;     /* in-process */
    char **argv;                 /* child */
    ts_testee_options options;
    pid_t pid;
    int to_child, from_child, err_from_child;
    char *pending;               /* bytes read past the last answer line */
    size_t pending_len, pending_cap;
    char tail[STDERR_TAIL + 1];
    size_t tail_len;
    int restarts;
    bool dead;                   /* needs a restart before the next call */
    bool stopped_on_purpose;     /* dead because the certifier killed or stopped it: not a restart */
    char description[256];
};

const char *ts_call_status_name(ts_call_status status) {
    switch (status) {
    case TS_CALL_ANSWERED: return "answered";
    case TS_CALL_TIMEOUT: return "timeout";
    case TS_CALL_CRASHED: return "crashed";
    case TS_CALL_EXITED: return "exited";
    case TS_CALL_TOO_LARGE: return "protocol-error";
    case TS_CALL_UNAVAILABLE: return "unavailable";
    }
    return "unknown";
}

ts_testee *ts_testee_in_process(const ts_mutant *mutant) {
    ts_testee *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->in_process = true;
    ts_testee_config_init(&t->config, mutant);
    snprintf(t->description, sizeof t->description, "turnstile reference (in-process)%s%s",
             mutant ? ", mutant " : "", mutant ? mutant->name : "");
    t->pid = -1;
    return t;
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void keep_stderr(ts_testee *t, const char *data, size_t n) {
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

static void drain_stderr(ts_testee *t) {
    char buf[4096];
    while (t->err_from_child >= 0) {
        ssize_t n = read(t->err_from_child, buf, sizeof buf);
        if (n > 0) {
            keep_stderr(t, buf, (size_t)n);
        } else {
            if (n == 0) { /* the testee closed stderr: stop polling it (poll ignores -1) */
                close(t->err_from_child);
                t->err_from_child = -1;
            }
            break;
        }
    }
}

static bool start_child(ts_testee *t, char *why, size_t why_size) {
    int in[2], out[2], err[2];
    if (pipe(in) != 0) goto fail;
    if (pipe(out) != 0) {
        int saved = errno;
        close(in[0]);
        close(in[1]);
        errno = saved;
        goto fail;
    }
    if (pipe(err) != 0) {
        int saved = errno;
        close(in[0]); close(in[1]); close(out[0]); close(out[1]);
        errno = saved;
        goto fail;
    }
    int exec_report[2]; /* close-on-exec: a byte here means execvp failed */
    if (pipe(exec_report) != 0) {
        close(in[0]); close(in[1]); close(out[0]); close(out[1]); close(err[0]); close(err[1]);
        goto fail;
    }
    fcntl(exec_report[1], F_SETFD, FD_CLOEXEC);
    pid_t pid = fork();
    if (pid < 0) {
        close(in[0]); close(in[1]); close(out[0]); close(out[1]); close(err[0]); close(err[1]);
        close(exec_report[0]); close(exec_report[1]);
        goto fail;
    }
    if (pid == 0) {
        setpgid(0, 0); /* its own process group: a kill reaches its children too */
        dup2(in[0], 0);
        dup2(out[1], 1);
        dup2(err[1], 2);
        close(in[0]); close(in[1]); close(out[0]); close(out[1]); close(err[0]); close(err[1]);
        close(exec_report[0]);
        execvp(t->argv[0], t->argv);
        int e = errno;
        if (write(exec_report[1], &e, sizeof e) < 0) _exit(127);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    close(err[1]);
    close(exec_report[1]);
    int exec_errno = 0;
    ssize_t got = read(exec_report[0], &exec_errno, sizeof exec_errno);
    close(exec_report[0]);
    if (got == (ssize_t)sizeof exec_errno) {
        snprintf(why, why_size, "cannot run %s: %s", t->argv[0], strerror(exec_errno));
        close(in[1]); close(out[0]); close(err[0]);
        waitpid(pid, NULL, 0);
        return false;
    }
    setpgid(pid, pid); /* also here, so that there is no race with the child's own call */
    fcntl(in[1], F_SETFL, O_NONBLOCK); /* a large request must not block past the timeout */
    fcntl(out[0], F_SETFL, O_NONBLOCK);
    fcntl(err[0], F_SETFL, O_NONBLOCK);
    fcntl(in[1], F_SETFD, FD_CLOEXEC);
    fcntl(out[0], F_SETFD, FD_CLOEXEC);
    fcntl(err[0], F_SETFD, FD_CLOEXEC);
    t->pid = pid;
    t->to_child = in[1];
    t->from_child = out[0];
    t->err_from_child = err[0];
    t->pending_len = 0;
    t->dead = false;
    return true;
fail:
    snprintf(why, why_size, "cannot start the testee: %s", strerror(errno));
    return false;
}

/* Kills (if still running) and reaps the child; returns how it ended. */
static void stop_child(ts_testee *t, bool kill_it, ts_call_result *result) {
    if (t->pid <= 0) return;
    if (t->to_child >= 0) close(t->to_child);
    t->to_child = -1;
    int status = 0;
    pid_t done = waitpid(t->pid, &status, WNOHANG);
    if (done == 0 && kill_it) {
        kill(-t->pid, SIGKILL); /* the whole process group */
        kill(t->pid, SIGKILL);
        done = waitpid(t->pid, &status, 0);
    } else if (done == 0) {
        double deadline = now_seconds() + 2.0;
        struct timespec pause = {0, 10 * 1000 * 1000};
        while ((done = waitpid(t->pid, &status, WNOHANG)) == 0 && now_seconds() < deadline) nanosleep(&pause, NULL);
        if (done == 0) {
            kill(-t->pid, SIGKILL);
            kill(t->pid, SIGKILL);
            done = waitpid(t->pid, &status, 0);
        }
    }
    if (done > 0 && result) {
        if (WIFSIGNALED(status)) {
            result->status = TS_CALL_CRASHED;
            result->code = WTERMSIG(status);
        } else if (WIFEXITED(status)) {
            result->status = TS_CALL_EXITED;
            result->code = WEXITSTATUS(status);
        }
    }
    if (done > 0) kill(-t->pid, SIGKILL); /* leftovers of its process group, if any */
    drain_stderr(t);
    if (t->from_child >= 0) close(t->from_child);
    if (t->err_from_child >= 0) close(t->err_from_child);
    t->from_child = t->err_from_child = -1;
    t->pid = -1;
    t->dead = true;
}

ts_testee *ts_testee_spawn(char *const argv[], const ts_testee_options *options, char *why, size_t why_size) {
    signal(SIGPIPE, SIG_IGN); /* a dead child must not kill the certifier */
    ts_testee *t = calloc(1, sizeof *t);
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
        used += (size_t)snprintf(t->description + used, used < sizeof t->description ? sizeof t->description - used : 0,
                                 "%s%s", i ? " " : "", argv[i]);
        if (used >= sizeof t->description) used = sizeof t->description - 1;
    }
    t->options = *options;
    if (t->options.timeout_seconds <= 0) t->options.timeout_seconds = 5;
    if (!t->options.max_answer_bytes) t->options.max_answer_bytes = (size_t)16 << 20;
    if (!t->options.max_restarts) t->options.max_restarts = 20;
    t->to_child = t->from_child = t->err_from_child = -1;
    t->pid = -1;
    if (!start_child(t, why, why_size)) {
        ts_testee_close(t);
        return NULL;
    }
    return t;
}

static bool append_pending(ts_testee *t, const char *data, size_t n) {
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

bool ts_testee_has_extra_output(ts_testee *t) {
    if (t->in_process || t->dead || t->pid <= 0) return false;
    char buf[65536];
    bool gone = false;
    for (;;) { /* take what is there right now, without waiting */
        ssize_t n = read(t->from_child, buf, sizeof buf);
        if (n == 0) gone = true; /* it exited between two requests */
        if (n <= 0) break;
        if (!append_pending(t, buf, (size_t)n)) break;
    }
    drain_stderr(t);
    bool extra = false;
    for (size_t i = 0; i < t->pending_len; i++)
        if (t->pending[i] != ' ' && t->pending[i] != '\n' && t->pending[i] != '\r' && t->pending[i] != '\t') extra = true;
    t->pending_len = 0; /* discard it: it belongs to no request */
    if (gone) stop_child(t, false, NULL); /* restarted by the next call, not blamed on it */
    return extra;
}

/* Writes request (unless NULL) and reads the next line; check_extra: first look for output
 * left from the previous request (a second answer). */
static void call_child(ts_testee *t, const char *request, size_t len, ts_buf *answer, ts_call_result *result,
                       bool check_extra) {
    memset(result, 0, sizeof *result);
    ts_buf_reset(answer);
    if (t->dead && t->stopped_on_purpose) { /* the certifier ended it: start again, uncounted */
        if (!start_child(t, result->detail, sizeof result->detail)) {
            result->status = TS_CALL_UNAVAILABLE;
            return;
        }
        t->stopped_on_purpose = false;
    } else if (t->dead) {
        if (t->restarts >= t->options.max_restarts) {
            result->status = TS_CALL_UNAVAILABLE;
            snprintf(result->detail, sizeof result->detail, "not sent: the testee was restarted %d times already",
                     t->restarts);
            return;
        }
        t->restarts++;
        if (!start_child(t, result->detail, sizeof result->detail)) {
            result->status = TS_CALL_UNAVAILABLE;
            return;
        }
    }
    if (request && check_extra) result->extra_output = ts_testee_has_extra_output(t);
    /* Write the request (and newline) while reading stdout/stderr, so a testee that answers
     * before reading everything cannot deadlock us. */
    double deadline = now_seconds() + t->options.timeout_seconds;
    size_t sent = 0, total = request ? len + 1 : 0;
    char buf[65536];
    for (;;) {
        char *newline = t->pending_len ? memchr(t->pending, '\n', t->pending_len) : NULL;
        if (newline && sent == total) {
            size_t line_len = (size_t)(newline - t->pending);
            size_t body = line_len && t->pending[line_len - 1] == '\r' ? line_len - 1 : line_len;
            ts_buf_append(answer, t->pending, body);
            memmove(t->pending, newline + 1, t->pending_len - line_len - 1);
            t->pending_len -= line_len + 1;
            result->status = TS_CALL_ANSWERED;
            return;
        }
        if (t->pending_len > t->options.max_answer_bytes) {
            result->status = TS_CALL_TOO_LARGE;
            snprintf(result->detail, sizeof result->detail, "the answer exceeds %zu bytes", t->options.max_answer_bytes);
            stop_child(t, true, NULL);
            return;
        }
        double left = deadline - now_seconds();
        if (left <= 0) {
            result->status = TS_CALL_TIMEOUT;
            snprintf(result->detail, sizeof result->detail, "no answer within %.3g s", t->options.timeout_seconds);
            stop_child(t, true, NULL);
            return;
        }
        struct pollfd fds[3] = {{t->from_child, POLLIN, 0}, {t->err_from_child, POLLIN, 0},
                                {t->to_child, POLLOUT, 0}};
        int nfds = sent < total ? 3 : 2;
        int ready = poll(fds, (nfds_t)nfds, left > 1e6 ? 1000000000 : (int)(left * 1000) + 1);
        if (ready < 0 && errno != EINTR) break;
        if (nfds == 3 && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
            ssize_t n = sent < len ? write(t->to_child, request + sent, len - sent) : write(t->to_child, "\n", 1);
            if (n > 0) sent += (size_t)n;
            else if (n < 0 && errno != EAGAIN && errno != EINTR) sent = total; /* the child closed stdin: see below */
        }
        if (fds[1].revents & POLLIN) drain_stderr(t);
        if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t n = read(t->from_child, buf, sizeof buf);
            if (n > 0) {
                append_pending(t, buf, (size_t)n);
            } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
                /* stdout closed: the child is gone (or going) */
                result->status = TS_CALL_EXITED;
                stop_child(t, false, result);
                snprintf(result->detail, sizeof result->detail, "the testee %s %d before answering",
                         result->status == TS_CALL_CRASHED ? "was killed by signal" : "exited with status",
                         result->code);
                return;
            }
        }
    }
    result->status = TS_CALL_EXITED;
    stop_child(t, true, result);
}

void ts_testee_call(ts_testee *t, const char *request, size_t len, ts_buf *answer, ts_call_result *result) {
    if (t->in_process) {
        memset(result, 0, sizeof *result);
        ts_buf_reset(answer);
        if (request) ts_testee_answer(&t->config, request, len, answer);
        result->status = TS_CALL_ANSWERED;
        return;
    }
    call_child(t, request, len, answer, result, true);
}

/* Reads what the child writes until it has been silent for `seconds` (at most 20 times that in
 * all), dropping it: lines in flight when the certifier kills. */
static void settle(ts_testee *t, double seconds) {
    char buf[65536];
    double end = now_seconds() + 20 * seconds, quiet = now_seconds() + seconds;
    while (t->pid > 0 && !t->dead && now_seconds() < end && now_seconds() < quiet) {
        struct pollfd fds[2] = {{t->from_child, POLLIN, 0}, {t->err_from_child, POLLIN, 0}};
        int ready = poll(fds, 2, (int)((quiet - now_seconds()) * 1000) + 1);
        if (ready <= 0) continue;
        if (fds[1].revents & POLLIN) drain_stderr(t);
        if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t n = read(t->from_child, buf, sizeof buf);
            if (n <= 0) break; /* it exited meanwhile */
            quiet = now_seconds() + seconds;
        }
    }
    t->pending_len = 0;
}

/* In-process world calls: straight to the caller's line handler. */
typedef struct in_process_conversation {
    ts_line_handler on_line;
    void *context;
    bool over;            /* killed, or a world line was taken as the answer */
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
        call_child(t, request, len, &line, result, true);
        while (result->status == TS_CALL_ANSWERED) {
            ts_buf_reset(&reply);
            ts_line_verdict v = on_line(context, line.data ? line.data : "", line.len, &reply);
            if (v == TS_LINE_ANSWER) break;
            if (v == TS_LINE_KILL) {
                if (t->options.kill_settle_seconds > 0) settle(t, t->options.kill_settle_seconds);
                stop_child(t, true, NULL);
                t->stopped_on_purpose = true;
                memset(result, 0, sizeof *result);
                result->status = TS_CALL_CRASHED;
                result->code = SIGKILL;
                break;
            }
            call_child(t, reply.data ? reply.data : "", reply.len, &line, result, false);
        }
    }
    ts_buf_free(&line);
    ts_buf_free(&reply);
}

void ts_testee_stop(ts_testee *t) {
    if (t->in_process || t->dead) return;
    stop_child(t, false, NULL);
    t->stopped_on_purpose = true;
}

const char *ts_testee_stderr_tail(const ts_testee *t, size_t *len) {
    if (len) *len = t->tail_len;
    return t->tail;
}

void ts_testee_clear_stderr_tail(ts_testee *t) {
    t->tail_len = 0;
    t->tail[0] = '\0';
}
int ts_testee_restarts(const ts_testee *t) { return t->restarts; }
const char *ts_testee_description(const ts_testee *t) { return t->description; }

void ts_testee_close(ts_testee *t) {
    if (!t) return;
    if (!t->in_process) stop_child(t, false, NULL);
    if (t->argv)
        for (size_t i = 0; t->argv[i]; i++) free(t->argv[i]);
    free(t->argv);
    free(t->pending);
    free(t);
}
