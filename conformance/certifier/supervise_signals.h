/* supervise_signals.h — the net under every tree supervise.h starts, for when the caller ends.
 *
 * Owns: the only global state of the supervision, which the signal handlers read (a handler
 * cannot be given context): the table of live trees (and worker processes), the table of paths
 * to remove once the trees are gone, and whether signals are deferred and which one came; and
 * the handlers of SIGTERM, SIGHUP, SIGINT and SIGQUIT, exit() and a sanitizer's report that kill
 * every tree, sweep their orphans and remove those paths. supervise.c registers each tree it
 * starts here (the calls at the end); everything else is the caller's.
 */
#ifndef TURNSTILE_CONFORMANCE_CERTIFIER_SUPERVISE_SIGNALS_H
#define TURNSTILE_CONFORMANCE_CERTIFIER_SUPERVISE_SIGNALS_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

/* The environment variable every supervised command starts with: its value is the pid of the
 * process that started it. Descendants that keep their environment carry it too; the caller
 * kills its orphans by it. */
#define TS_CHILD_MARKER "TURNSTILE_TESTEE_OF"

/* Async-signal-safe: kills every tree this process started and waits (a few seconds at most)
 * until they are gone. The process must end afterwards. */
void ts_child_kill_all(void);

/* Worker processes (a fork of this process that starts trees of its own): the first function,
 * in the parent, has the signals above (and exit) end the worker too — SIGTERM, then waiting
 * for it, a few seconds at most — before this process ends; the second forgets it (reaped).
 * ts_child_forked(), in the worker right after fork: the tables it inherited are the
 * parent's, not its own; it becomes a subreaper and gets SIGTERM when the parent dies. */
bool ts_child_adopt_worker(pid_t worker);
void ts_child_forget_worker(pid_t worker);
void ts_child_forked(void);

/* Deferred signals, for a caller that leaves a partial answer when it is interrupted: from now
 * on the first of those signals kills every tree (workers included) and returns; no tree can be
 * started afterwards (starts fail with "interrupted"); ts_child_interrupted() names the signal
 * (0: none). A second signal ends the process at once, as without deferral. The caller, done,
 * calls ts_child_end_by_signal(): every tree gone, the registered paths removed, the process
 * ended by that signal. */
void ts_child_defer_signals(void);
int ts_child_interrupted(void);
void ts_child_end_by_signal(int sig);

/* Paths to remove when this process ends by one of the signals above, at exit() or on a
 * sanitizer's report: scratch directories a command writes into (its stores), or files not
 * finished yet (a report's temporary file). Removed after every tree is gone (a command may
 * still be writing them), within remove_tree.h's default bounds, never following a link.
 * At most TS_CHILD_MAX_REMOVALS at once, each shorter than TS_CHILD_REMOVAL_PATH bytes: false
 * when it does not fit. ts_child_forget_removal: the caller removed it, or keeps it. */
enum { TS_CHILD_MAX_REMOVALS = 64, TS_CHILD_REMOVAL_PATH = 1200 };
bool ts_child_remove_at_end(const char *path);
void ts_child_forget_removal(const char *path);

/* ---- for supervise.c: the trees it starts ---- */

enum {
    TS_SIGNALS_MAX_LIVE = 64,     /* trees alive at once in one process */
    TS_SIGNALS_SWEEP_SECONDS = 5, /* how long clearing a tree may take before giving up */
};

/* Installs the handlers (once; where a signal is not ignored or handled already), makes this
 * process a child subreaper and ignores SIGPIPE. */
void ts_signals_install(void);

/* Blocks the handled signals and SIGCHLD; the mask before into old. */
void ts_signals_block(sigset_t *old);

/* A free slot of the live table, or -1; a tree in it (pid -1: not known yet); its command's pid;
 * a tree gone (its supervisor reaped). Called with the signals blocked where a handler could
 * see a half-written slot (ts_signals_block). */
int ts_signals_free_slot(void);
void ts_signals_set_tree(int slot, pid_t pid, pid_t supervisor);
void ts_signals_set_pid(int slot, pid_t pid);
void ts_signals_forget_tree(pid_t supervisor);

/* Kills and reaps our own children that a supervised command left (group > 0: its process
 * group; or those carrying our marker in their environment), TS_SIGNALS_SWEEP_SECONDS at most. */
void ts_signals_sweep_orphans(pid_t group);

/* In a supervisor just forked: the tables are the caller's, not its own to kill or remove. */
void ts_signals_forget_all(void);

/* In the command just forked: the handlers this module installed back to SIG_DFL. */
void ts_signals_reset_handlers(void);

/* The handled signals added to set. */
void ts_signals_add_handled(sigset_t *set);

#endif
