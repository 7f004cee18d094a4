/* forkserver.c — the certifier's side of a fork server (conformance/PROTOCOL.md, fork servers):
 * asking for an instance, passing it pipes of its own, and reading the server's reports; see
 * supervise.h (ts_child_start_server, ts_child_fork).
 *
 * A fork server is a testee that loaded everything once and forks a fresh instance per start:
 * the instance is what a new process of the command would be, minus the cost of starting one.
 * The socket carries one message per line of this exchange (SOCK_SEQPACKET: no framing):
 *   certifier -> server  {"fork":true} with three descriptors (SCM_RIGHTS): the instance's
 *                        stdin, stdout and stderr
 *   server -> certifier  {"pid":N}: the instance, its child, leading a process group of its own
 *   server -> certifier  {"ended":N,"status":S}: it reaped instance N; S as waitpid gives it
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "conformance/certifier/supervise.h"
#include "conformance/certifier/supervise_internal.h"
#include "core/json/codec.h"

enum { MESSAGE_MAX = 512 };

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Reads one message from the server's socket without waiting: 1 read (into text), 0 none
 * waiting, -1 the server closed it (or it failed). Descriptors passed with it are closed. */
static int read_message(int socket, char text[MESSAGE_MAX]) {
    char control[CMSG_SPACE(8 * sizeof(int))];
    struct iovec iov = {text, MESSAGE_MAX - 1};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
    ssize_t n;
    while ((n = recvmsg(socket, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {}
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); n >= 0 && c; c = CMSG_NXTHDR(&msg, c)) /* none are expected */
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
            for (size_t i = 0; i < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++) close(((int *)(void *)CMSG_DATA(c))[i]);
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
    if (n == 0) return -1;
    text[n] = '\0';
    return 1;
}

/* The integer member `key` of a message, or false. */
static bool message_int(const char *text, const char *key, long long *out) {
    ts_arena arena;
    ts_arena_init(&arena);
    ts_json value;
    ts_error err;
    bool ok = ts_codec_parse(&arena, text, strlen(text), &value, &err);
    const ts_json *member = ok ? ts_json_get(&value, key) : NULL;
    ok = member && member->kind == TS_JSON_INT;
    if (ok) *out = member->u.i;
    ts_arena_free(&arena);
    return ok;
}

bool ts_child_instance_check_ended(ts_child *c) {
    char text[MESSAGE_MAX];
    for (;;) {
        int got = read_message(c->status, text);
        if (got == 0) return false;
        if (got < 0) { /* the server is gone, and the instance with it (its supervisor clears the tree) */
            c->ended = c->lost = true;
            c->wait_status = 0;
            return true;
        }
        long long pid, status;
        if (message_int(text, "ended", &pid) && pid == c->pid && message_int(text, "status", &status)) {
            c->ended = true;
            c->wait_status = (int)status;
            return true;
        }
    }
}

static void close_all(int *fds, size_t count) {
    for (size_t i = 0; i < count; i++)
        if (fds[i] >= 0) close(fds[i]), fds[i] = -1;
}

/* Sends the fork request with the instance's ends of its three pipes. */
static bool send_request(int socket, int fds[3]) {
    static const char request[] = "{\"fork\":true}";
    char control[CMSG_SPACE(3 * sizeof(int))];
    memset(control, 0, sizeof control);
    struct iovec iov = {(void *)request, sizeof request - 1};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(3 * sizeof(int));
    memcpy(CMSG_DATA(c), fds, 3 * sizeof(int));
    ssize_t n;
    while ((n = sendmsg(socket, &msg, MSG_NOSIGNAL)) < 0 && errno == EINTR) {}
    return n == (ssize_t)(sizeof request - 1);
}

/* Waits for the server's {"pid":N} within timeout seconds; 0 when none came (why says so). A
 * late report of an earlier instance's end is passed over. */
static pid_t await_pid(ts_child *server, double timeout, char *why, size_t why_size) {
    char text[MESSAGE_MAX];
    double deadline = now_seconds() + timeout;
    for (;;) {
        int got = read_message(server->fork, text);
        long long pid;
        if (got > 0 && message_int(text, "pid", &pid) && pid > 1) return (pid_t)pid;
        if (got > 0 && message_int(text, "ended", &pid)) continue;
        if (got > 0) {
            snprintf(why, why_size, "the fork server answered %.100s, not {\"pid\":N}", text);
            return 0;
        }
        if (got < 0 || ts_child_check_ended(server)) {
            snprintf(why, why_size, "the fork server ended instead of forking");
            return 0;
        }
        double left = deadline - now_seconds();
        if (left <= 0) {
            snprintf(why, why_size, "the fork server did not fork within %.3g s", timeout);
            return 0;
        }
        struct pollfd p[2] = {{server->fork, POLLIN, 0}, {server->status, POLLIN, 0}};
        poll(p, 2, (int)(left * 1000) + 1);
    }
}

bool ts_child_fork(ts_child *server, ts_child *c, double timeout, char *why, size_t why_size) {
    memset(c, 0, sizeof *c);
    c->pid = c->supervisor = -1;
    c->in = c->out = c->err = c->status = c->control = c->fork = -1;
    if (server->fork < 0 || ts_child_check_ended(server)) {
        snprintf(why, why_size, "the fork server is not running");
        return false;
    }
    int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
        snprintf(why, why_size, "cannot make the instance's pipes: %s", strerror(errno));
        int all[] = {in[0], in[1], out[0], out[1], err[0], err[1]};
        close_all(all, 6);
        return false;
    }
    int theirs[3] = {in[0], out[1], err[1]}, ours[3] = {in[1], out[0], err[0]};
    bool sent = send_request(server->fork, theirs);
    close_all(theirs, 3);
    pid_t pid = 0, parent = 0, group = 0;
    if (!sent) snprintf(why, why_size, "cannot write to the fork server: %s", strerror(errno));
    else if ((pid = await_pid(server, timeout, why, why_size)) > 0 &&
             (!ts_child_read_stat(pid, &parent, &group) || parent != server->pid || group != pid)) {
        /* A kill of its group must take this instance and nothing else. */
        snprintf(why, why_size, "the fork server named process %ld, which is not its child leading a process group of "
                 "its own", (long)pid);
        pid = 0;
    }
    if (pid <= 0) {
        close_all(ours, 3);
        return false;
    }
    for (int i = 0; i < 3; i++) fcntl(ours[i], F_SETFL, fcntl(ours[i], F_GETFL) | O_NONBLOCK);
    c->pid = pid;
    c->in = ours[0];
    c->out = ours[1];
    c->err = ours[2];
    c->status = server->fork;
    c->control = server->control;
    c->instance = true;
    return true;
}
