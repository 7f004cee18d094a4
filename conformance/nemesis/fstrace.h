/* fstrace.h — the file-system observer: every operation a testee's processes make on the files
 * under its store, seen from outside with ptrace(2) and a seccomp(2) filter, with no help from
 * the testee (docs: conformance/nemesis/DESIGN.md).
 *
 * Owns: the filter the command runs under — installed in the command's process before exec, so
 * every thread and child inherits it, across exec — and the tracing that runs in the command's
 * supervisor (supervise.h), its tracer. At each system call the filter traps, the tracer decides
 * whether it touches the store; if it does, the tracer lets it run, reads back what it did (the
 * bytes a write left in the file, the inode a create made), and appends one record to the trace
 * file (fsop.h). At the store operation the certifier armed, it kills the command's process
 * group before the call runs or as it returns, and from then on lets no traced thread run again.
 * It also counts the bytes the testee writes on its stdout, which orders store operations
 * against protocol lines.
 *
 * Fails loudly rather than lets an operation escape: io_uring and Linux AIO are refused with
 * ENOSYS (libuv falls back to its thread pool), a system call from another ABI is refused, and
 * what it sees and cannot follow write by write (a shared writable mapping of a store file) is
 * a NOTE record, with the file's content snapshotted at each sync. Linux x86-64 only: elsewhere
 * ts_fstrace_supported() is false and nothing is traced.
 */
#ifndef TURNSTILE_CONFORMANCE_NEMESIS_FSTRACE_H
#define TURNSTILE_CONFORMANCE_NEMESIS_FSTRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct ts_fstrace_config {
    char root[4096];   /* the directory observed, absolute and resolved (realpath) */
    int trace_fd;      /* records are appended here (opened O_APPEND by the caller) */
    uint64_t kill_seq; /* ts_fstrace_run only: the store operation (its seq, 1-based) to kill at; 0 none */
    bool kill_after;   /* kill as that operation returns, rather than before it runs */
    /* The command is a fork server (conformance/PROTOCOL.md): each child a process of its group
     * forks is an *instance*, the testee of the runs to come. From then on the records name the
     * instance (fsop pid), its stdout is counted from 0 and its operations numbered from 1, as
     * for a command started anew; the armed kill takes the instance's process group, and the
     * server's threads run on. */
    bool fork_server;
    /* A process started ahead of need (the certifier's pool): its records are held, not written,
     * until an arming message releases them — written then, as a command started at that moment
     * would have written them. */
    bool hold;
    /* Arming messages (ts_fstrace_arm_message) are read from here, without waiting (a
     * non-blocking descriptor), before each store operation is numbered: an arming written
     * before the request that leads to an operation is taken before that operation, whatever
     * order the tracer's wake-ups come in (a fork server's instance used to make its first
     * operation inside the tracer's handling of its fork, before the arming was read: every
     * kill came one operation late). 0: none, arming only through ts_fstrace_arm. */
    int arm_fd;
} ts_fstrace_config;

/* What ts_fstrace_arm takes: a kill at the count-th store operation, from now on, whose path
 * is under `subroot` (relative to the root; "" the whole root). One record, written whole. */
typedef struct ts_fstrace_arm_message {
    uint64_t count;    /* 0 disarms */
    uint32_t after;    /* 1: as that operation returns */
    uint32_t release;  /* 1: held records (config.hold) are written now, later ones as they come */
    char subroot[256];
} ts_fstrace_arm_message;

/* Can this build trace at all (Linux x86-64)? */
bool ts_fstrace_supported(void);

/* In the command's process, after fork and before exec: asks to be traced, stops itself until
 * the tracer has set its options (ts_fstrace_attach), then installs the filter. Returns false
 * (errno set) when the kernel refuses; the command must then not be executed. */
bool ts_fstrace_prepare_child(void);

typedef struct ts_fstrace ts_fstrace;

/* In the tracer (the command's parent), right after fork: waits for the command's stop, sets
 * the ptrace options and lets it go on to exec. Returns NULL (errno set) when the command could
 * not be taken over; the command is then killed. Takes nothing from config but copies. */
ts_fstrace *ts_fstrace_attach(pid_t command, const ts_fstrace_config *config);

/* Handles every pending stop of every traced thread (waitpid(-1, WNOHANG | __WALL)); call it
 * whenever SIGCHLD arrives. Returns true once the command itself has ended, with its wait
 * status in *command_status; other descendants' ends are reaped silently. */
bool ts_fstrace_step(ts_fstrace *t, int *command_status);

/* Arms (or disarms) the kill; see ts_fstrace_arm_message. */
void ts_fstrace_arm(ts_fstrace *t, const ts_fstrace_arm_message *arm);

/* The value ASAN_OPTIONS must have in a traced command's environment, given its value now
 * (NULL: unset): LeakSanitizer stops the world with ptrace, which a traced process cannot, so
 * a testee built with ASan would end in a LeakSanitizer fatal error instead of its own status. */
void ts_fstrace_asan_options(const char *current, char *out, size_t size);

/* Has the armed kill happened? */
bool ts_fstrace_killed(const ts_fstrace *t);

/* Releases the tracer (tracees still stopped are killed by the caller's tree clearing). */
void ts_fstrace_free(ts_fstrace *t);

/* Runs argv (argv[0] searched in PATH) traced under config until it ends, then kills what it
 * left in its process group: for tests and `turnstile fstrace`. The certifier's testees are
 * traced by their supervisor instead (supervise.h). Returns false with a reason when it could
 * not be started; else its wait status in *status. */
bool ts_fstrace_run(char *const argv[], const ts_fstrace_config *config, int *status, char *why, size_t why_size);

#endif
