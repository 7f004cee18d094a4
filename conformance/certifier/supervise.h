/* supervise.h — starting a command so that nothing it starts outlives the process that
 * started it.
 *
 * Owns: the process tree of one command (a testee). The command runs under a supervisor of
 * its own: a forked copy of the caller, in a process group of its own (so a kill of the
 * caller's group does not take it before it has cleaned up), that is the child subreaper of
 * everything the command starts — orphans and grandchildren that call setsid() reparent to
 * it — and that dies with the caller (parent-death signal), killing that whole tree first.
 * The command itself runs in a process group of its own and gets SIGKILL from the kernel if
 * its supervisor dies. When the command ends, the supervisor reports how (its wait status),
 * kills whatever the command left behind, and exits.
 *
 * The caller is made a child subreaper too (for what a killed supervisor leaves), and its
 * SIGTERM, SIGHUP, SIGINT and SIGQUIT — where they are not ignored or handled already — kill
 * every tree it started, wait for them to be gone, and then end the caller by the signal.
 * At exit() and on a sanitizer's fatal report the same happens. A caller that handles those
 * signals itself calls ts_child_kill_all() from its handler.
 *
 * Those handlers, the tables they read and the calls on them (workers, paths to remove at the
 * end, deferred signals) are supervise_signals.h's; this module owns the supervisor process and
 * the caller's side of one tree.
 */
#ifndef TURNSTILE_CONFORMANCE_CERTIFIER_SUPERVISE_H
#define TURNSTILE_CONFORMANCE_CERTIFIER_SUPERVISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "conformance/certifier/supervise_signals.h"

typedef struct ts_child {
    pid_t pid;          /* the command, which leads its own process group; -1 when none */
    pid_t supervisor;   /* -1 when none */
    int control;        /* traced: the write end of the supervisor's arming pipe; else -1 */
    int in, out, err;   /* the caller's ends of the command's stdin (write), stdout and stderr
                         * (read); all non-blocking and close-on-exec; owned by the ts_child */
    int status;         /* the supervisor's report pipe: readable when the command has ended */
    bool ended;         /* the command's end was seen (wait_status, or lost) */
    int wait_status;    /* as waitpid() gives it */
    bool lost;          /* the supervisor died before reporting (then wait_status is 0) */
    int fork;           /* a fork server (ts_child_start_server): the caller's end of its socket; else -1 */
    bool instance;      /* an instance a fork server forked (ts_child_fork): `status` is the server's
                         * socket and `control` its arming pipe, both borrowed; supervisor is -1 */
} ts_child;

/* Starts argv (NULL-terminated; argv[0] searched in PATH) under a new supervisor. Returns
 * false with a reason in `why` when it cannot be started (also when argv[0] cannot be
 * executed: "cannot run X: reason"); c is then empty. */
bool ts_child_start(ts_child *c, char *const argv[], char *why, size_t why_size);

/* The file-system observer (conformance/nemesis/fstrace.h) for a command: its supervisor is
 * then also its tracer, appending a record to trace_fd for every operation the command's
 * threads and children make under root. */
typedef struct ts_child_trace {
    const char *root;  /* an existing directory */
    int trace_fd;      /* open for appending; the supervisor keeps a copy */
    bool hold;         /* a process started ahead of need (a pool's): its records are held until
                        * its first arming (ts_child_arm), as if it had started then */
} ts_child_trace;

/* ts_child_start, traced. Fails also when the observer cannot be used here (not Linux x86-64,
 * or the kernel refuses ptrace or seccomp), with that reason. */
bool ts_child_start_traced(ts_child *c, char *const argv[], const ts_child_trace *trace, char *why, size_t why_size);

/* Arms the observer of a traced command: it kills the command's process group at the count-th
 * operation under root/subroot from now on (after: as that operation returns); count 0
 * disarms. It takes effect before any operation the command makes after this returns. False
 * when the command is not traced or its supervisor is gone. */
bool ts_child_arm(ts_child *c, const char *subroot, uint64_t count, bool after);

/* A fork server (conformance/PROTOCOL.md, fork servers): argv started as ts_child_start(_traced)
 * starts it (trace NULL: untraced), with its end of a socket pair (SOCK_SEQPACKET) as its
 * descriptor 3 and TURNSTILE_FORK_SERVER=3 in its environment. Traced, its observer takes each
 * child the server forks as an instance: the records from then on are the instance's (its pid,
 * its stdout counted from 0, its operations numbered from 1) and the armed kill takes the
 * instance's process group and spares the server. */
bool ts_child_start_server(ts_child *c, char *const argv[], const ts_child_trace *trace, char *why, size_t why_size);

/* Asks a running fork server for a fresh instance speaking the protocol on pipes of its own
 * (stdin, stdout, stderr, passed over the socket), within `timeout` seconds. The instance leads a
 * process group of its own and is the server's child (checked); the server reports its end. c is
 * then the instance: every function below works on it (a kill takes the instance's group, arming
 * arms the server's observer); ts_child_finish ends the instance only. False with a reason when
 * the server does not answer as the protocol says (c is then empty; the caller stops the server). */
bool ts_child_fork(ts_child *server, ts_child *c, double timeout, char *why, size_t why_size);

/* Without waiting: has the command ended? (Then c->ended and c->wait_status tell how.) */
bool ts_child_check_ended(ts_child *c);

/* Waits up to `seconds` for the command to end; returns c->ended. */
bool ts_child_wait_ended(ts_child *c, double seconds);

/* SIGKILL to the command's whole process group, now (the rest of the tree follows when the
 * supervisor sees the command end). */
void ts_child_kill(ts_child *c);

/* Kills the command if it is still running, waits until its supervisor has cleared the whole
 * tree, and closes every descriptor. c is then empty (pid -1). Accepts an empty c. */
void ts_child_finish(ts_child *c);

/* "exited with status N" / "was killed by signal N (SIGSEGV)" for a wait status, into out. */
void ts_child_describe_status(int wait_status, char *out, size_t size);

#endif
