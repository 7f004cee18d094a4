/* supervise_signals.c — the caller's net under its supervised trees: the tables the signal
 * handlers read and the handlers themselves; see supervise_signals.h. Linux: prctl(2). */
#include "conformance/certifier/supervise_signals.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "conformance/certifier/proc_tree.h"
#include "conformance/certifier/remove_tree.h"

/* The live trees, for the signal handlers: written with those signals blocked. */
static struct {
    volatile pid_t pid, supervisor;
} live[TS_SIGNALS_MAX_LIVE];
static const int handled_signals[] = {SIGTERM, SIGHUP, SIGINT, SIGQUIT};
static bool installed;
/* ts_child_defer_signals: set by the caller; the signal that came, set by the handler. */
static volatile sig_atomic_t deferring, interrupted;
/* Paths to remove at the end, for the same handlers: written with those signals blocked. */
static struct {
    volatile sig_atomic_t used;
    char path[TS_CHILD_REMOVAL_PATH];
} removals[TS_CHILD_MAX_REMOVALS];

static bool is_live_supervisor(pid_t pid) {
    for (int i = 0; i < TS_SIGNALS_MAX_LIVE; i++)
        if (live[i].supervisor == pid) return true;
    return false;
}

/* Kills and reaps our own children that a supervised command left — orphans reparent to us
 * when a supervisor was killed: they are in the command's process group `group` (if > 0) or
 * carry our marker in their environment. */
void ts_signals_sweep_orphans(pid_t group) {
    char marker[64] = "\0" TS_CHILD_MARKER "=";
    size_t marker_len = 1 + sizeof TS_CHILD_MARKER;
    marker_len += ts_proc_put_uint(marker + marker_len, (unsigned long)getpid());
    marker[marker_len++] = '\0';
    double deadline = ts_proc_now() + TS_SIGNALS_SWEEP_SECONDS;
    bool found = true;
    while (found && ts_proc_now() < deadline) {
        found = false;
        pid_t pids[TS_PROC_SCAN_MAX], groups[TS_PROC_SCAN_MAX];
        int n = ts_proc_scan_children(getpid(), pids, groups);
        for (int i = 0; i < n; i++) {
            if (is_live_supervisor(pids[i])) continue;
            if (!(group > 0 && groups[i] == group) && !ts_proc_environment_has(pids[i], marker, marker_len)) continue;
            ts_proc_kill_child_and_group(pids[i], groups[i]);
            ts_proc_reap_within(pids[i], 1.0);
            found = true;
        }
    }
}

void ts_child_kill_all(void) {
    int saved = errno;
    for (int i = 0; i < TS_SIGNALS_MAX_LIVE; i++) {
        if (live[i].supervisor <= 0) continue;
        if (live[i].pid > 0) kill(-live[i].pid, SIGKILL);
        kill(live[i].supervisor, SIGTERM); /* it clears the rest of the tree, then exits */
    }
    for (int i = 0; i < TS_SIGNALS_MAX_LIVE; i++) {
        if (live[i].supervisor <= 0) continue;
        ts_proc_reap_within(live[i].supervisor, TS_SIGNALS_SWEEP_SECONDS + 1);
        ts_signals_sweep_orphans(live[i].pid);
        live[i].supervisor = live[i].pid = 0;
    }
    ts_signals_sweep_orphans(0);
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

/* Before the process ends by sig: every testee tree killed, the registered directories removed,
 * and sig's default action back, so that raising it ends the process. Async-signal-safe (a
 * signal handler's, and ts_child_end_by_signal's). */
static void leave_nothing_behind(int sig) {
    ts_child_kill_all();
    remove_registered();
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, NULL);
}

static void on_fatal_signal(int sig) {
    if (deferring && !interrupted) { /* the caller winds down and leaves its answer (ts_child_defer_signals) */
        interrupted = sig;
        ts_child_kill_all();
        return;
    }
    leave_nothing_behind(sig);
    raise(sig); /* blocked until this handler returns; then it ends the process */
}

static void at_exit(void) {
    ts_child_kill_all();
    remove_registered();
}

/* Set by ASan/UBSan/... builds: called when a sanitizer ends the process after a report. */
extern void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

void ts_signals_install(void) {
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

void ts_signals_block(sigset_t *old) {
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof handled_signals / sizeof handled_signals[0]; i++) sigaddset(&set, handled_signals[i]);
    sigaddset(&set, SIGCHLD);
    sigprocmask(SIG_BLOCK, &set, old);
}

bool ts_child_remove_at_end(const char *path) {
    ts_signals_install();
    if (strlen(path) >= TS_CHILD_REMOVAL_PATH) return false;
    sigset_t old;
    ts_signals_block(&old);
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
    ts_signals_block(&old);
    for (int i = 0; i < TS_CHILD_MAX_REMOVALS; i++)
        if (removals[i].used && strcmp(removals[i].path, path) == 0) removals[i].used = 0;
    sigprocmask(SIG_SETMASK, &old, NULL);
}

bool ts_child_adopt_worker(pid_t worker) {
    ts_signals_install();
    sigset_t old;
    ts_signals_block(&old);
    int slot = -1;
    for (int i = 0; i < TS_SIGNALS_MAX_LIVE && slot < 0; i++)
        if (live[i].supervisor == 0) slot = i;
    if (slot >= 0) { /* no group to kill: the worker's SIGTERM handler ends its own trees */
        live[slot].pid = 0;
        live[slot].supervisor = worker;
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    return slot >= 0;
}

void ts_child_forget_worker(pid_t worker) { ts_signals_forget_tree(worker); }

void ts_child_forked(void) {
    memset((void *)live, 0, sizeof live); /* the parent's trees and paths are the parent's */
    for (int i = 0; i < TS_CHILD_MAX_REMOVALS; i++) removals[i].used = 0;
    deferring = interrupted = 0;
    prctl(PR_SET_CHILD_SUBREAPER, 1); /* not inherited across fork */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
}

void ts_child_defer_signals(void) {
    ts_signals_install();
    deferring = 1;
}

int ts_child_interrupted(void) { return interrupted; }

void ts_child_end_by_signal(int sig) {
    leave_nothing_behind(sig);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    _exit(128 + sig);
}

void ts_signals_forget_tree(pid_t supervisor) {
    sigset_t old;
    ts_signals_block(&old);
    for (int i = 0; i < TS_SIGNALS_MAX_LIVE; i++)
        if (live[i].supervisor == supervisor) live[i].supervisor = live[i].pid = 0;
    sigprocmask(SIG_SETMASK, &old, NULL);
}

int ts_signals_free_slot(void) {
    for (int i = 0; i < TS_SIGNALS_MAX_LIVE; i++)
        if (live[i].supervisor == 0) return i;
    return -1;
}

void ts_signals_set_tree(int slot, pid_t pid, pid_t supervisor) {
    live[slot].pid = pid;
    live[slot].supervisor = supervisor;
}

void ts_signals_set_pid(int slot, pid_t pid) { live[slot].pid = pid; }

void ts_signals_forget_all(void) {
    memset((void *)live, 0, sizeof live);
    for (int i = 0; i < TS_CHILD_MAX_REMOVALS; i++) removals[i].used = 0;
}

void ts_signals_reset_handlers(void) {
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    for (size_t i = 0; i < sizeof handled_signals / sizeof handled_signals[0]; i++) {
        struct sigaction old;
        if (sigaction(handled_signals[i], NULL, &old) == 0 && old.sa_handler == on_fatal_signal)
            sigaction(handled_signals[i], &dfl, NULL);
    }
}

void ts_signals_add_handled(sigset_t *set) {
    for (size_t i = 0; i < sizeof handled_signals / sizeof handled_signals[0]; i++) sigaddset(set, handled_signals[i]);
}
