/* supervise.c — supervised command trees: the supervisor process and the caller's side of one
 * tree; see supervise.h (the net for when the caller ends: supervise_signals.c). Linux: prctl(2). */
#define _GNU_SOURCE /* execvpe, syscall */
#include "conformance/certifier/supervise.h"

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

#include "conformance/certifier/proc_tree.h"
#include "conformance/certifier/supervise_internal.h"
#include "conformance/nemesis/fstrace.h"

extern char **environ;

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


/* ---- the supervisor (a forked copy of the caller; never returns) ---- */

static void send_report(int fd, int kind, int value) {
    report r = {kind, value};
    if (write(fd, &r, sizeof r) < 0) { /* the caller is gone: nobody to tell */
    }
}

/* Kills and reaps every descendant: all of them reparent here, since this is their subreaper.
 * Reports the command's end if it is reaped here. */
static void clear_tree(pid_t command, bool *command_reaped, int report_fd, int wait_flags) {
    double deadline = ts_proc_now() + TS_SIGNALS_SWEEP_SECONDS;
    for (;;) {
        if (!*command_reaped) kill(-command, SIGKILL);
        pid_t pids[TS_PROC_SCAN_MAX], groups[TS_PROC_SCAN_MAX];
        int n = ts_proc_scan_children(getpid(), pids, groups);
        for (int i = 0; i < n; i++) ts_proc_kill_child_and_group(pids[i], groups[i]);
        int status;
        pid_t done;
        while ((done = waitpid(-1, &status, WNOHANG | wait_flags)) > 0) {
            if (done == command && !*command_reaped) {
                *command_reaped = true;
                send_report(report_fd, REPORT_ENDED, status);
            }
        }
        if ((done < 0 && errno == ECHILD) || ts_proc_now() > deadline) return;
        ts_proc_pause_ms(1);
    }
}

/* The traced command's arming messages (non-blocking reads of whole records), at each wake-up.
 * The tracer reads the same pipe before it numbers each store operation (fstrace.c take_arming);
 * both readers are this process, so every record is taken once, in order. This one is not
 * redundant: an arming's release (a pooled process's held records, fstrace.h `hold`) takes
 * effect here at the first stop after the arming, e.g. the write of a world call, where the
 * tracer alone would write them only at the next store operation, after that line, and the
 * nemesis would see them late. */
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
    ts_signals_reset_handlers();
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(SIGPIPE, &dfl, NULL);
    sigprocmask(SIG_SETMASK, caller_mask, NULL);
    int report[2] = {REPORT_EXEC_FAILED, 0};
    if (traced && !ts_fstrace_prepare_child()) report[0] = REPORT_TRACE_FAILED;
    else execvpe(argv[0], argv, envp);
    report[1] = errno;
    if (write(exec_report, report, sizeof report) < 0) _exit(127);
    _exit(127);
}

/* The supervisor's watch over the running command (traced: its observer steps it), until it ends
 * (its wait status reported to the caller; true: reaped) or the caller dies or asks (SIGTERM). */
static bool watch_command(pid_t command, ts_fstrace *tracer) {
    sigset_t wanted;
    sigemptyset(&wanted);
    ts_signals_add_handled(&wanted);
    sigaddset(&wanted, SIGCHLD);
    bool reaped = false;
    while (!reaped) {
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
    }
    return reaped;
}

/* fds: the command's stdin, stdout and stderr ends, the report pipe's write end, when traced
 * the trace file and the arming pipe's read end, and a fork server's socket (else -1). trace:
 * the observer's configuration (its trace_fd is set here), or NULL. */
static void supervise(int fds[SUPERVISOR_FDS], char *const argv[], char *const envp[], pid_t caller, const sigset_t *caller_mask,
                      const ts_fstrace_config *trace) {
    ts_signals_forget_all(); /* not ours to kill or remove from here */
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
        config.arm_fd = FD_CONTROL; /* also read before each store operation, not only at a wake-up */
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
    if (got == (ssize_t)sizeof failure || (trace && !tracer)) {
        send_report(FD_REPORT, got == (ssize_t)sizeof failure ? failure[0] : REPORT_TRACE_FAILED,
                    got == (ssize_t)sizeof failure ? failure[1] : errno);
        kill(command, SIGKILL);
        while (waitpid(command, NULL, __WALL) < 0 && errno == EINTR) {}
        _exit(0);
    }
    send_report(FD_REPORT, REPORT_STARTED, command);
    bool reaped = watch_command(command, tracer);
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
    ts_signals_install();
    if (ts_child_interrupted()) {
        snprintf(why, why_size, "not started: the certifier was interrupted (signal %d)", ts_child_interrupted());
        return false;
    }
    int slot = ts_signals_free_slot();
    if (slot < 0) {
        snprintf(why, why_size, "cannot start the testee: %d testees are running already", TS_SIGNALS_MAX_LIVE);
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
    ts_signals_block(&old_mask);
    pid_t caller = getpid();
    pid_t supervisor = fork();
    if (supervisor == 0) {
        int fds[SUPERVISOR_FDS] = {in[0], out[1], err[1], status[1], trace ? trace->trace_fd : -1, control[0], fork_pair[1]};
        supervise(fds, argv, envp, caller, &old_mask, trace ? &config : NULL);
    }
    if (supervisor > 0) ts_signals_set_tree(slot, -1, supervisor);
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
    ts_signals_set_pid(slot, c->pid);
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
    double deadline = ts_proc_now() + seconds;
    while (!ts_child_check_ended(c) && c->status >= 0) {
        double left = deadline - ts_proc_now();
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
            ts_child_wait_ended(c, TS_SIGNALS_SWEEP_SECONDS);
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
            if (!ts_child_wait_ended(c, TS_SIGNALS_SWEEP_SECONDS)) kill(c->supervisor, SIGKILL);
        }
        ts_proc_reap_within(c->supervisor, TS_SIGNALS_SWEEP_SECONDS + 1); /* it exits once the tree is cleared */
        ts_signals_forget_tree(c->supervisor);
        ts_signals_sweep_orphans(c->pid);
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
