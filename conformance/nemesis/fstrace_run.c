/* fstrace_run.c — one command traced to its end (ts_fstrace_run); see fstrace.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "conformance/nemesis/fstrace.h"

bool ts_fstrace_run(char *const argv[], const ts_fstrace_config *config, int *status, char *why, size_t why_size) {
    if (!ts_fstrace_supported()) {
        snprintf(why, why_size, "the file-system observer needs Linux on x86-64");
        return false;
    }
    sigset_t chld, old;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, &old);
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) {
        snprintf(why, why_size, "pipe: %s", strerror(errno));
        sigprocmask(SIG_SETMASK, &old, NULL);
        return false;
    }
    pid_t child = fork();
    if (child == 0) {
        sigprocmask(SIG_SETMASK, &old, NULL);
        setpgid(0, 0);
        close(report[0]);
        int e = 0;
        char asan[4096];
        ts_fstrace_asan_options(getenv("ASAN_OPTIONS"), asan, sizeof asan);
        setenv("ASAN_OPTIONS", asan, 1);
        if (!ts_fstrace_prepare_child()) e = errno;
        else execvp(argv[0], argv), e = errno;
        if (write(report[1], &e, sizeof e) < 0) _exit(127);
        _exit(127);
    }
    close(report[1]);
    if (child < 0) {
        snprintf(why, why_size, "fork: %s", strerror(errno));
        close(report[0]);
        sigprocmask(SIG_SETMASK, &old, NULL);
        return false;
    }
    setpgid(child, child);
    ts_fstrace *t = ts_fstrace_attach(child, config);
    int e = 0;
    ssize_t got = t ? read(report[0], &e, sizeof e) : 0; /* EOF at exec: it runs */
    close(report[0]);
    if (!t || got == (ssize_t)sizeof e) {
        snprintf(why, why_size, "cannot run %s traced: %s", argv[0], strerror(t ? e : errno));
        if (t) kill(-child, SIGKILL);
        while (waitpid(-1, NULL, __WALL) > 0 || errno == EINTR) {}
        ts_fstrace_free(t);
        sigprocmask(SIG_SETMASK, &old, NULL);
        return false;
    }
    struct timespec tick = {0, 50 * 1000 * 1000}; /* SIGCHLDs coalesce: look again now and then */
    while (!ts_fstrace_step(t, status)) sigtimedwait(&chld, NULL, &tick);
    kill(-child, SIGKILL); /* what it left behind */
    int other;
    while (true) {
        pid_t done = waitpid(-1, &other, __WALL | WNOHANG);
        if (done > 0) continue;
        if (done < 0 && errno != EINTR) break;
        if (done == 0) {
            ts_fstrace_step(t, &other); /* stops of the dying */
            nanosleep(&tick, NULL);
        }
    }
    ts_fstrace_free(t);
    sigprocmask(SIG_SETMASK, &old, NULL);
    return true;
}
