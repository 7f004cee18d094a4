/* supervise.c — supervised command trees; see supervise.h. Linux: prctl(2) and /proc. */
#define _GNU_SOURCE /* execvpe, syscall */
#include "conformance/certifier/supervise.h"

#include <dirent.h> /* struct dirent64: getdents64's records */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "conformance/certifier/remove_tree.h"
#include "conformance/certifier/supervise_internal.h"
#include "conformance/nemesis/fstrace.h"

extern char **environ;

enum {
    MAX_LIVE = 64,      /* trees alive at once in one process */
    SWEEP_SECONDS = 5,  /* how long clearing a tree may take before giving up */
    SCAN_MAX = 256,     /* children handled per /proc scan (the next scan takes the rest) */
};

/* The supervisor's reports to the caller, one fixed-size record each (atomic on a pipe). */
enum { REPORT_STARTED = 1, REPORT_EXEC_FAILED = 2, REPORT_ENDED = 3, REPORT_TRACE_FAILED = 4 };

/* The supervisor's descriptors: the command's three at 0-2, then these (-1 entries: closed). */
enum { FD_REPORT = 3, FD_TRACE = 4, FD_CONTROL = 5, FD_FORK = 6, SUPERVISOR_FDS = 7 };
/* A fork server's socket, in the command (the environment names it). */
enum { COMMAND_FORK_FD = 3 };
#define FORK_SERVER_ENV "TURNSTILE_FORK_SERVER=3"
typedef struct report {
    int kind;
    int value; /* the command's pid, errno, or wait status */
} report;

/* The live trees, for the signal handlers: written with those signals blocked. */
static struct {
    volatile pid_t pid, supervisor;
} live[MAX_LIVE];
static const int handled_signals[] = {SIGTERM, SIGHUP, SIGINT, SIGQUIT};
static bool installed;
/* ts_child_defer_signals: set by the caller; the signal that came, set by the handler. */
static volatile sig_atomic_t deferring, interrupted;
/* Paths to remove at the end, for the same handlers: written with those signals blocked. */
static struct {
    volatile sig_atomic_t used;
    char path[TS_CHILD_REMOVAL_PATH];
} removals[TS_CHILD_MAX_REMOVALS];

/* ---- async-signal-safe helpers (used by handlers, the supervisor and the forked command) ---- */

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void pause_ms(long ms) {
    struct timespec pause = {0, ms * 1000 * 1000};
    nanosleep(&pause, NULL);
}

static size_t put_uint(char *out, unsigned long value) {
    char digits[24];
    size_t n = 0;
    do digits[n++] = (char)('0' + value % 10);
    while ((value /= 10) != 0);
    for (size_t i = 0; i < n; i++) out[i] = digits[n - 1 - i];
    return n;
}

static int open_proc_file(pid_t pid, const char *leaf) {
    char path[64] = "/proc/";
    size_t n = 6 + put_uint(path + 6, (unsigned long)pid);
    path[n++] = '/';
    for (size_t i = 0; leaf[i] && n < sizeof path - 1; i++) path[n++] = leaf[i];
    path[n] = '\0';
    return open(path, O_RDONLY | O_CLOEXEC);
}

static const char *parse_pid(const char *p, pid_t *out) {
    while (*p == ' ') p++;
    long value = 0;
    if (*p < '0' || *p > '9') return NULL;
    while (*p >= '0' && *p <= '9') value = value * 10 + (*p++ - '0');
    *out = (pid_t)value;
    return p;
}

/* A process's parent and process group, from /proc/PID/stat ("pid (comm) S ppid pgrp ..."). */
bool ts_child_read_stat(pid_t pid, pid_t *parent, pid_t *group) {
    int fd = open_proc_file(pid, "stat");
    if (fd < 0) return false;
    char buf[512];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return false;
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* comm may hold spaces and parentheses */
    if (!p || !p[1] || !p[2]) return false;
    p += 3; /* ") S" */
    return (p = parse_pid(p, parent)) && parse_pid(p, group);
}

/* The children of `parent` and their process groups (at most SCAN_MAX); returns how many. */
static int scan_children(pid_t parent, pid_t *pids, pid_t *groups) {
    int dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) return 0;
    int count = 0;
    _Alignas(8) char buf[4096];
    long n;
    while (count < SCAN_MAX && (n = syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0) {
        for (long off = 0; off < n && count < SCAN_MAX;) {
            const struct dirent64 *d = (const struct dirent64 *)(const void *)(buf + off);
            off += d->d_reclen;
            pid_t pid = 0, ppid = 0, group = 0;
            const char *end = parse_pid(d->d_name, &pid);
            if (!end || *end || pid <= 0 || !ts_child_read_stat(pid, &ppid, &group) || ppid != parent) continue;
            pids[count] = pid;
            groups[count++] = group;
        }
    }
    close(dir);
    return count;
}

/* SIGKILL to a child of ours and, when it leads a process group (as a process that called
 * setsid does), to that group: its pid cannot be reused before we reap it. */
static void kill_child_and_group(pid_t pid, pid_t group) {
    kill(pid, SIGKILL);
    if (group == pid && group != getpgrp()) kill(-group, SIGKILL);
}

/* Waits up to `seconds` for child pid to end and reaps it; SIGKILLs it if it does not. */
static void reap_within(pid_t pid, double seconds) {
    double deadline = now_seconds() + seconds;
    for (;;) {
        pid_t done = waitpid(pid, NULL, WNOHANG);
        if (done == pid || (done < 0 && errno != EINTR)) return;
        if (now_seconds() > deadline) {
            kill(pid, SIGKILL);
            while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {}
            return;
        }
        pause_ms(1);
    }
}

static bool is_live_supervisor(pid_t pid) {
    for (int i = 0; i < MAX_LIVE; i++)
        if (live[i].supervisor == pid) return true;
    return false;
}

/* Does the environment of pid hold `entry` ("\0NAME=VALUE\0": a whole entry)? Read in pieces:
 * an environment can be large, and a shell that runs the command reorders it. */
static bool environment_has(pid_t pid, const char *entry, size_t len) {
    int fd = open_proc_file(pid, "environ");
    if (fd < 0) return false;
    char buf[4096 + 64];
    size_t kept = 1;
    buf[0] = '\0'; /* the first entry follows a NUL as well */
    bool found = false;
    ssize_t n;
    while (!found && (n = read(fd, buf + kept, sizeof buf - kept)) > 0) {
        size_t have = kept + (size_t)n;
        for (size_t i = 0; i + len <= have && !found; i++) found = memcmp(buf + i, entry, len) == 0;
        kept = have < len ? have : len - 1; /* an entry cut at the end is found in the next piece */
        memmove(buf, buf + have - kept, kept);
    }
    close(fd);
    return found;
}

/* Kills and reaps our own children that a supervised command left — orphans reparent to us
 * when a supervisor was killed: they are in the command's process group `group` (if > 0) or
 * carry our marker in their environment. */
static void sweep_orphans(pid_t group) {
    char marker[64] = "\0" TS_CHILD_MARKER "=";
    size_t marker_len = 1 + sizeof TS_CHILD_MARKER;
    marker_len += put_uint(marker + marker_len, (unsigned long)getpid());
    marker[marker_len++] = '\0';
    double deadline = now_seconds() + SWEEP_SECONDS;
    bool found = true;
    while (found && now_seconds() < deadline) {
        found = false;
        pid_t pids[SCAN_MAX], groups[SCAN_MAX];
        int n = scan_children(getpid(), pids, groups);
        for (int i = 0; i < n; i++) {
            if (is_live_supervisor(pids[i])) continue;
            if (!(group > 0 && groups[i] == group) && !environment_has(pids[i], marker, marker_len)) continue;
            kill_child_and_group(pids[i], groups[i]);
            reap_within(pids[i], 1.0);
            found = true;
        }
    }
}

void ts_child_kill_all(void) {
    int saved = errno;
    for (int i = 0; i < MAX_LIVE; i++) {
        if (live[i].supervisor <= 0) continue;
        if (live[i].pid > 0) kill(-live[i].pid, SIGKILL);
        kill(live[i].supervisor, SIGTERM); /* it clears the rest of the tree, then exits */
    }
    for (int i = 0; i < MAX_LIVE; i++) {
        if (live[i].supervisor <= 0) continue;
        reap_within(live[i].supervisor, SWEEP_SECONDS + 1);
        sweep_orphans(live[i].pid);
        live[i].supervisor = live[i].pid = 0;
    }
    sweep_orphans(0);
    errno = saved;
}

/* Async-signal-safe: removes the registered paths (the trees that wrote them are gone). */
static void remove_registered(void) {
    int saved = errno;
    for (int i = 0; i < TS_CHILD_MAX_REMOVALS; i++) {
        if (!removals[i].used) continue;
        ts_remove_result result;
        ts_remove_tree(removals[i].path, NULL, &result);
        removals[i].used = 0;
    }
    errno = saved;
}

static void on_fatal_signal(int sig) {
    if (deferring && !interrupted) { /* the caller winds down and leaves its answer (ts_child_defer_signals) */
        interrupted = sig;
        ts_child_kill_all();
        return;
    }
    ts_child_kill_all();
    remove_registered();
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, NULL);
    raise(sig); /* blocked until this handler returns; then it ends the process */
}

static void at_exit(void) {
    ts_child_kill_all();
    remove_registered();
}

/* Set by ASan/UBSan/... builds: called when a sanitizer ends the process after a report. */
extern void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

static void install_once(void) {
    if (installed) return;
    installed = true;
    signal(SIGPIPE, SIG_IGN); /* a dead command's closed stdin must not kill us */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    for (size_t i = 0; i < sizeof handled_signals / sizeof handled_signals[0]; i++) {
        struct sigaction old, act;
        if (sigaction(handled_signals[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL) continue;
        memset(&act, 0, sizeof act);
        act.sa_handler = on_fatal_signal;
        sigemptyset(&act.sa_mask);
        for (size_t k = 0; k < sizeof handled_signals / sizeof handled_signals[0]; k++)
            sigaddset(&act.sa_mask, handled_signals[k]);
        sigaction(handled_signals[i], &act, NULL);
    }
    atexit(at_exit);
    if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(at_exit);
}

static void block_signals(sigset_t *old) {
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof handled_signals / sizeof handled_signals[0]; i++) sigaddset(&set, handled_signals[i]);
    sigaddset(&set, SIGCHLD);
    sigprocmask(SIG_BLOCK, &set, old);
}

bool ts_child_remove_at_end(const char *path) {
    install_once();
    if (strlen(path) >= TS_CHILD_REMOVAL_PATH) return false;
    sigset_t old;
    block_signals(&old);
    int slot = -1;
    for (int i = 0; i < TS_CHILD_MAX_REMOVALS && slot < 0; i++)
        if (!removals[i].used) slot = i;
    if (slot >= 0) {
        memcpy(removals[slot].path, path, strlen(path) + 1);
        removals[slot].used = 1;
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    return slot >= 0;
}

void ts_child_forget_removal(const char *path) {
    sigset_t old;
    block_signals(&old);
    for (int i = 0; i < TS_CHILD_MAX_REMOVALS; i++)
        if (removals[i].used && strcmp(removals[i].path, path) == 0) removals[i].used = 0;
    sigprocmask(SIG_SETMASK, &old, NULL);
}

bool ts_child_adopt_worker(pid_t worker) {
    install_once();
    sigset_t old;
    block_signals(&old);
    int slot = -1;
    for (int i = 0; i < MAX_LIVE && slot < 0; i++)
        if (live[i].supervisor == 0) slot = i;
    if (slot >= 0) { /* no group to kill: the worker's SIGTERM handler ends its own trees */
        live[slot].pid = 0;
        live[slot].supervisor = worker;
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    return slot >= 0;
}

static void unregister(pid_t supervisor);

void ts_child_forget_worker(pid_t worker) { unregister(worker); }

void ts_child_forked(void) {
    memset((void *)live, 0, sizeof live); /* the parent's trees and paths are the parent's */
    for (int i = 0; i < TS_CHILD_MAX_REMOVALS; i++) removals[i].used = 0;
    deferring = interrupted = 0;
    prctl(PR_SET_CHILD_SUBREAPER, 1); /* not inherited across fork */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
}

void ts_child_defer_signals(void) {
    install_once();
    deferring = 1;
}

int ts_child_interrupted(void) { return interrupted; }

void ts_child_end_by_signal(int sig) {
    ts_child_kill_all();
    remove_registered();
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, NULL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    _exit(128 + sig);
}

/* ---- the supervisor (a forked copy of the caller; never returns) ---- */

static void send_report(int fd, int kind, int value) {
    report r = {kind, value};
    if (write(fd, &r, sizeof r) < 0) { /* the caller is gone: nobody to tell */
    }
}

/* Kills and reaps every descendant: all of them reparent here, since this is their subreaper.
 * Reports the command's end if it is reaped here. */
static void clear_tree(pid_t command, bool *command_reaped, int report_fd, int wait_flags) {
    double deadline = now_seconds() + SWEEP_SECONDS;
    for (;;) {
        if (!*command_reaped) kill(-command, SIGKILL);
        pid_t pids[SCAN_MAX], groups[SCAN_MAX];
        int n = scan_children(getpid(), pids, groups);
        for (int i = 0; i < n; i++) kill_child_and_group(pids[i], groups[i]);
        int status;
        pid_t done;
        while ((done = waitpid(-1, &status, WNOHANG | wait_flags)) > 0) {
            if (done == command && !*command_reaped) {
                *command_reaped = true;
                send_report(report_fd, REPORT_ENDED, status);
            }
        }
        if ((done < 0 && errno == ECHILD) || now_seconds() > deadline) return;
        pause_ms(1);
    }
}

/* The traced command's arming messages (non-blocking reads of whole records). */
static void drain_control(ts_fstrace *tracer) {
    ts_fstrace_arm_message arm;
    while (read(FD_CONTROL, &arm, sizeof arm) == (ssize_t)sizeof arm) ts_fstrace_arm(tracer, &arm);
}

/* In the forked command: default signal dispositions, the caller's mask, then the command.
 * Never returns; a failure to start is written on exec_report. */
static void run_command(char *const argv[], char *const envp[], const sigset_t *caller_mask, pid_t supervisor,
                        bool traced, bool server, int exec_report) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != supervisor) _exit(127);
    setpgid(0, 0); /* its own process group: one kill reaches all it starts */
    /* The supervisor's descriptors are not the command's (the exec report pipe lies above them);
     * a fork server keeps its socket, as descriptor 3. */
    if (server) dup2(FD_FORK, COMMAND_FORK_FD);
    else close(FD_REPORT);
    for (int fd = FD_REPORT + 1; fd < SUPERVISOR_FDS; fd++) close(fd);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    for (size_t i = 0; i < sizeof handled_signals / sizeof handled_signals[0]; i++) {
        struct sigaction old;
        if (sigaction(handled_signals[i], NULL, &old) == 0 && old.sa_handler == on_fatal_signal)
            sigaction(handled_signals[i], &dfl, NULL);
    }
    sigaction(SIGPIPE, &dfl, NULL);
    sigprocmask(SIG_SETMASK, caller_mask, NULL);
    int report[2] = {REPORT_EXEC_FAILED, 0};
    if (traced && !ts_fstrace_prepare_child()) report[0] = REPORT_TRACE_FAILED;
    else execvpe(argv[0], argv, envp);
    report[1] = errno;
    if (write(exec_report, report, sizeof report) < 0) _exit(127);
    _exit(127);
}

/* fds: the command's stdin, stdout and stderr ends, the report pipe's write end, when traced
 * the trace file and the arming pipe's read end, and a fork server's socket (else -1). trace:
 * the observer's configuration (its trace_fd is set here), or NULL. */
static void supervise(int fds[SUPERVISOR_FDS], char *const argv[], char *const envp[], pid_t caller, const sigset_t *caller_mask,
                      const ts_fstrace_config *trace) {
    memset((void *)live, 0, sizeof live); /* not ours to kill from here */
    for (int i = 0; i < TS_CHILD_MAX_REMOVALS; i++) removals[i].used = 0; /* nor to remove */
    setpgid(0, 0);
    prctl(PR_SET_NAME, "ts-supervisor");
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != caller) _exit(0); /* the caller died before the line above */
    signal(SIGCHLD, SIG_DFL);          /* waitpid must see our children */
    /* Descriptors: the command's three at 0-2, the report pipe at 3, trace and arming at 4-5,
     * a fork server's socket at 6; the exec report pipe comes above them all. */
    for (int i = 0; i < SUPERVISOR_FDS; i++) fds[i] = fds[i] >= 0 ? fcntl(fds[i], F_DUPFD, 10) : -1;
    for (int i = 0; i < SUPERVISOR_FDS; i++)
        if (fds[i] >= 0) dup2(fds[i], i);
        else close(i);
    if (syscall(SYS_close_range, (unsigned)SUPERVISOR_FDS, ~0U, 0U) != 0)
        for (int fd = SUPERVISOR_FDS; fd < 65536; fd++) close(fd);
    int exec_report[2], made[2];
    if (pipe2(made, O_CLOEXEC) != 0) {
        send_report(FD_REPORT, REPORT_EXEC_FAILED, errno);
        _exit(0);
    }
    for (int i = 0; i < 2; i++) { /* above the supervisor's numbers, which the command closes */
        exec_report[i] = fcntl(made[i], F_DUPFD_CLOEXEC, SUPERVISOR_FDS);
        close(made[i]);
    }
    pid_t self = getpid();
    pid_t command = fork();
    if (command == 0) run_command(argv, envp, caller_mask, self, trace != NULL, fds[FD_FORK] >= 0, exec_report[1]);
    if (command < 0) {
        send_report(FD_REPORT, REPORT_EXEC_FAILED, errno);
        _exit(0);
    }
    setpgid(command, command); /* also here: no race with the command's own call */
    close(exec_report[1]);
    if (fds[FD_FORK] >= 0) close(FD_FORK); /* the command's now */
    ts_fstrace *tracer = NULL;
    if (trace) {
        ts_fstrace_config config = *trace;
        config.trace_fd = FD_TRACE;
        fcntl(FD_CONTROL, F_SETFL, fcntl(FD_CONTROL, F_GETFL) | O_NONBLOCK);
        tracer = ts_fstrace_attach(command, &config);
    }
    int devnull = open("/dev/null", O_RDWR); /* stop holding the command's pipes */
    for (int fd = 0; fd < 3; fd++) dup2(devnull, fd);
    if (devnull > 2) close(devnull);
    int failure[2] = {0, 0};
    ssize_t got;
    while ((got = read(exec_report[0], failure, sizeof failure)) < 0 && errno == EINTR) {}
    close(exec_report[0]);
    bool reaped = false;
    if (got == (ssize_t)sizeof failure || (trace && !tracer)) {
        send_report(FD_REPORT, got == (ssize_t)sizeof failure ? failure[0] : REPORT_TRACE_FAILED,
                    got == (ssize_t)sizeof failure ? failure[1] : errno);
        kill(command, SIGKILL);
        while (waitpid(command, NULL, __WALL) < 0 && errno == EINTR) {}
        _exit(0);
    }
    send_report(FD_REPORT, REPORT_STARTED, command);
    sigset_t wanted;
    sigemptyset(&wanted);
    for (size_t i = 0; i < sizeof handled_signals / sizeof handled_signals[0]; i++) sigaddset(&wanted, handled_signals[i]);
    sigaddset(&wanted, SIGCHLD);
    for (;;) { /* until the command ends, or the caller dies or asks (SIGTERM) */
        int sig = sigwaitinfo(&wanted, NULL);
        if (sig < 0) continue;
        if (sig != SIGCHLD) break;
        int status;
        if (tracer) {
            drain_control(tracer); /* an arming sent before the operations it is for */
            if (ts_fstrace_step(tracer, &status)) {
                reaped = true;
                send_report(FD_REPORT, REPORT_ENDED, status);
            }
        }
        pid_t done;
        while (!tracer && (done = waitpid(-1, &status, WNOHANG)) > 0) {
            if (done == command) {
                reaped = true;
                send_report(FD_REPORT, REPORT_ENDED, status);
            }
        }
        if (reaped) break;
    }
    clear_tree(command, &reaped, FD_REPORT, tracer ? __WALL : 0);
    ts_fstrace_free(tracer);
    _exit(0);
}

/* ---- the caller's side ---- */

static void close_fd(int *fd) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
}

static void clear(ts_child *c) {
    memset(c, 0, sizeof *c);
    c->pid = c->supervisor = -1;
    c->in = c->out = c->err = c->status = c->control = c->fork = -1;
}

static void unregister(pid_t supervisor) {
    sigset_t old;
    block_signals(&old);
    for (int i = 0; i < MAX_LIVE; i++)
        if (live[i].supervisor == supervisor) live[i].supervisor = live[i].pid = 0;
    sigprocmask(SIG_SETMASK, &old, NULL);
}

/* The environment for the command: our marker first, then ours without an older marker or a
 * fork server's variable; a traced command's ASAN_OPTIONS (asan: "ASAN_OPTIONS=..." or NULL)
 * replaces ours; a fork server gets its variable. */
static char **command_environment(char *marker, size_t marker_size, const char *asan, bool server) {
    size_t n = 0;
    while (environ && environ[n]) n++;
    char **envp = calloc(n + 4, sizeof *envp);
    if (!envp) return NULL;
    snprintf(marker, marker_size, "%s=%ld", TS_CHILD_MARKER, (long)getpid());
    size_t k = 0;
    envp[k++] = marker;
    if (asan) envp[k++] = (char *)asan;
    if (server) envp[k++] = (char *)FORK_SERVER_ENV;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], TS_CHILD_MARKER "=", sizeof TS_CHILD_MARKER) != 0 &&
            strncmp(environ[i], "TURNSTILE_FORK_SERVER=", 22) != 0 &&
            !(asan && strncmp(environ[i], "ASAN_OPTIONS=", 13) == 0))
            envp[k++] = environ[i];
    return envp;
}

static bool start(ts_child *c, char *const argv[], const ts_child_trace *trace, bool server, char *why, size_t why_size);

bool ts_child_start(ts_child *c, char *const argv[], char *why, size_t why_size) {
    return start(c, argv, NULL, false, why, why_size);
}

bool ts_child_start_traced(ts_child *c, char *const argv[], const ts_child_trace *trace, char *why, size_t why_size) {
    clear(c);
    if (!ts_fstrace_supported()) {
        snprintf(why, why_size, "cannot observe the testee's file operations: the observer needs Linux on x86-64");
        return false;
    }
    return start(c, argv, trace, false, why, why_size);
}

bool ts_child_start_server(ts_child *c, char *const argv[], const ts_child_trace *trace, char *why, size_t why_size) {
    clear(c);
    if (trace && !ts_fstrace_supported()) {
        snprintf(why, why_size, "cannot observe the testee's file operations: the observer needs Linux on x86-64");
        return false;
    }
    return start(c, argv, trace, true, why, why_size);
}

bool ts_child_arm(ts_child *c, const char *subroot, uint64_t count, bool after) {
    if (c->control < 0 || c->ended) return false;
    ts_fstrace_arm_message arm = {.count = count, .after = after, .release = 1};
    snprintf(arm.subroot, sizeof arm.subroot, "%s", subroot ? subroot : "");
    ssize_t n;
    while ((n = write(c->control, &arm, sizeof arm)) < 0 && errno == EINTR) {}
    return n == (ssize_t)sizeof arm;
}

static bool start(ts_child *c, char *const argv[], const ts_child_trace *trace, bool server, char *why, size_t why_size) {
    clear(c);
    install_once();
    if (interrupted) {
        snprintf(why, why_size, "not started: the certifier was interrupted (signal %d)", (int)interrupted);
        return false;
    }
    int slot = -1;
    for (int i = 0; i < MAX_LIVE && slot < 0; i++)
        if (live[i].supervisor == 0) slot = i;
    if (slot < 0) {
        snprintf(why, why_size, "cannot start the testee: %d testees are running already", MAX_LIVE);
        return false;
    }
    int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1}, status[2] = {-1, -1}, control[2] = {-1, -1};
    int fork_pair[2] = {-1, -1};
    char marker[64], asan[4096] = "ASAN_OPTIONS=";
    if (trace) ts_fstrace_asan_options(getenv("ASAN_OPTIONS"), asan + 13, sizeof asan - 13);
    char **envp = command_environment(marker, sizeof marker, trace ? asan : NULL, server);
    if (!envp || pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0 ||
        pipe2(status, O_CLOEXEC) != 0 || (trace && pipe2(control, O_CLOEXEC) != 0) ||
        (server && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fork_pair) != 0)) {
        snprintf(why, why_size, "cannot start the testee: %s", envp ? strerror(errno) : "out of memory");
        int *all[] = {&in[0], &in[1], &out[0], &out[1], &err[0], &err[1], &status[0], &status[1], &control[0], &control[1],
                      &fork_pair[0], &fork_pair[1]};
        for (size_t i = 0; i < 12; i++) close_fd(all[i]);
        free(envp);
        return false;
    }
    ts_fstrace_config config = {.trace_fd = -1, .fork_server = server, .hold = trace && trace->hold};
    if (trace) snprintf(config.root, sizeof config.root, "%s", trace->root);
    sigset_t old_mask;
    block_signals(&old_mask);
    pid_t caller = getpid();
    pid_t supervisor = fork();
    if (supervisor == 0) {
        int fds[SUPERVISOR_FDS] = {in[0], out[1], err[1], status[1], trace ? trace->trace_fd : -1, control[0], fork_pair[1]};
        supervise(fds, argv, envp, caller, &old_mask, trace ? &config : NULL);
    }
    if (supervisor > 0) {
        live[slot].pid = -1;
        live[slot].supervisor = supervisor;
    }
    int fork_errno = errno;
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    free(envp);
    close_fd(&in[0]);
    close_fd(&out[1]);
    close_fd(&err[1]);
    close_fd(&status[1]);
    close_fd(&control[0]);
    close_fd(&fork_pair[1]);
    c->control = control[1];
    c->fork = fork_pair[0];
    c->in = in[1];
    c->out = out[0];
    c->err = err[0];
    c->status = status[0];
    c->supervisor = supervisor;
    if (supervisor < 0) {
        snprintf(why, why_size, "cannot start the testee: %s", strerror(fork_errno));
        ts_child_finish(c);
        return false;
    }
    report r = {0, 0};
    ssize_t got;
    while ((got = read(c->status, &r, sizeof r)) < 0 && errno == EINTR) {}
    if (got != (ssize_t)sizeof r || r.kind != REPORT_STARTED) {
        if (got == (ssize_t)sizeof r && r.kind == REPORT_EXEC_FAILED)
            snprintf(why, why_size, "cannot run %s: %s", argv[0], strerror(r.value));
        else if (got == (ssize_t)sizeof r && r.kind == REPORT_TRACE_FAILED)
            snprintf(why, why_size, "cannot observe %s's file operations (ptrace and seccomp): %s", argv[0], strerror(r.value));
        else
            snprintf(why, why_size, "cannot start the testee: its supervisor ended before starting it");
        c->ended = true;
        ts_child_finish(c);
        return false;
    }
    c->pid = r.value;
    live[slot].pid = c->pid;
    int fds[] = {c->in, c->out, c->err, c->status, c->fork};
    for (size_t i = 0; i < 5; i++)
        if (fds[i] >= 0) fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK);
    return true;
}

bool ts_child_check_ended(ts_child *c) {
    if (c->ended) return true;
    if (c->instance) return ts_child_instance_check_ended(c);
    if (c->status < 0) return false;
    report r;
    ssize_t got = read(c->status, &r, sizeof r);
    if (got == (ssize_t)sizeof r && r.kind == REPORT_ENDED) {
        c->ended = true;
        c->wait_status = r.value;
    } else if (got == 0) { /* the supervisor died without a word */
        c->ended = c->lost = true;
        c->wait_status = 0;
    }
    return c->ended;
}

bool ts_child_wait_ended(ts_child *c, double seconds) {
    double deadline = now_seconds() + seconds;
    while (!ts_child_check_ended(c) && c->status >= 0) {
        double left = deadline - now_seconds();
        if (left <= 0) break;
        struct pollfd p = {c->status, POLLIN, 0};
        poll(&p, 1, (int)(left * 1000) + 1);
    }
    return c->ended;
}

void ts_child_kill(ts_child *c) {
    if (c->pid > 0 && !ts_child_check_ended(c)) kill(-c->pid, SIGKILL);
}

void ts_child_finish(ts_child *c) {
    if (c->instance) { /* the server reaps it and says so; what it shares with the server stays */
        close_fd(&c->in);
        if (!ts_child_check_ended(c)) {
            ts_child_kill(c);
            ts_child_wait_ended(c, SWEEP_SECONDS);
        }
        close_fd(&c->out);
        close_fd(&c->err);
        clear(c);
        return;
    }
    if (c->supervisor > 0) {
        close_fd(&c->in);
        if (!ts_child_check_ended(c)) {
            ts_child_kill(c);
            if (!ts_child_wait_ended(c, SWEEP_SECONDS)) kill(c->supervisor, SIGKILL);
        }
        reap_within(c->supervisor, SWEEP_SECONDS + 1); /* it exits once the tree is cleared */
        unregister(c->supervisor);
        sweep_orphans(c->pid);
    }
    close_fd(&c->in);
    close_fd(&c->out);
    close_fd(&c->err);
    close_fd(&c->status);
    close_fd(&c->control);
    close_fd(&c->fork);
    clear(c);
}

void ts_child_describe_status(int wait_status, char *out, size_t size) {
    static const struct {
        int sig;
        const char *name;
    } names[] = {{SIGSEGV, "SIGSEGV"}, {SIGABRT, "SIGABRT"}, {SIGKILL, "SIGKILL"}, {SIGTERM, "SIGTERM"},
                 {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},   {SIGILL, "SIGILL"},   {SIGINT, "SIGINT"},
                 {SIGHUP, "SIGHUP"},   {SIGPIPE, "SIGPIPE"}, {SIGQUIT, "SIGQUIT"}, {SIGTRAP, "SIGTRAP"},
                 {SIGSYS, "SIGSYS"},   {SIGXCPU, "SIGXCPU"}, {SIGXFSZ, "SIGXFSZ"}, {SIGUSR1, "SIGUSR1"}};
    if (WIFSIGNALED(wait_status)) {
        const char *name = NULL;
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (names[i].sig == WTERMSIG(wait_status)) name = names[i].name;
        snprintf(out, size, "was killed by signal %d%s%s%s", WTERMSIG(wait_status), name ? " (" : "", name ? name : "",
                 name ? ")" : "");
    } else {
        snprintf(out, size, "exited with status %d", WEXITSTATUS(wait_status));
    }
}
