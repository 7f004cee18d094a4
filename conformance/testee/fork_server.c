/* fork_server.c — a testee's fork server; see fork_server.h. */
#define _GNU_SOURCE
#include "conformance/testee/fork_server.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static void say(int socket, const char *text) {
    while (send(socket, text, strlen(text), MSG_NOSIGNAL) < 0 && errno == EINTR) {}
}

/* One request: its three descriptors into fds. 1 got, 0 the socket closed, -1 broken. */
static int receive(int socket, int fds[3]) {
    char byte[64], control[CMSG_SPACE(3 * sizeof(int))];
    struct iovec iov = {byte, sizeof byte};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
    ssize_t n;
    while ((n = recvmsg(socket, &msg, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {}
    if (n <= 0) return n == 0 ? 0 : -1;
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(3 * sizeof(int)))
        return -1;
    memcpy(fds, CMSG_DATA(c), 3 * sizeof(int));
    return 1;
}

void ts_fork_serve(void) {
    const char *value = getenv("TURNSTILE_FORK_SERVER");
    if (!value || !*value) return;
    int socket = atoi(value);
    unsetenv("TURNSTILE_FORK_SERVER");
    fflush(NULL);
    for (;;) {
        int fds[3];
        int got = receive(socket, fds);
        if (got <= 0) exit(got == 0 ? 0 : 1);
        pid_t pid = fork();
        if (pid == 0) { /* the instance: a fresh testee on the certifier's pipes */
            setpgid(0, 0);
            close(socket);
            for (int i = 0; i < 3; i++) dup2(fds[i], i); /* dup2 clears close-on-exec on 0-2 */
            for (int i = 0; i < 3; i++)
                if (fds[i] > 2) close(fds[i]);
            return;
        }
        if (pid > 0) setpgid(pid, pid); /* also here: the pid said below leads its group */
        for (int i = 0; i < 3; i++) close(fds[i]);
        char text[80];
        if (pid < 0) exit(1);
        snprintf(text, sizeof text, "{\"pid\":%ld}", (long)pid);
        say(socket, text);
        int status = 0;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
        snprintf(text, sizeof text, "{\"ended\":%ld,\"status\":%d}", (long)pid, status);
        say(socket, text);
    }
}
