/* testee.h — the seam between the certifier and an implementation under test.
 *
 * Owns: delivering one request line and getting back one answer line, and every way that can
 * go wrong that is the testee's fault: it crashed (signal), exited (also between two requests:
 * reported on the next one, at once), timed out, wrote an answer too large, closed its stdout,
 * or wrote more than one line for a request (a line carrying the id of an earlier request is
 * a second answer to that request, counted for it, never taken as the answer to this one).
 * One interface (ts_testee_vtable, below; protobuf's conformance/test_runner.h), two
 * implementations: a pipe to a long-lived child process (protobuf's ForkPipeRunner; testee.c,
 * testee_start.c, testee_converse.c, testee_ids.c), supervised so that nothing it starts
 * outlives the certifier (supervise.h); and the reference answering in-process (turnstile
 * certifying itself; reference_testee.h, a target of its own, so that the certifier links
 * neither the merger nor the engine nor a store). Suite code never asks which one it has.
 * A child that ends before it ever wrote a line on each of its first 3 starts cannot be
 * used: every later call is TS_CALL_UNAVAILABLE and ts_testee_failure() says why.
 */
#ifndef TURNSTILE_CONFORMANCE_CERTIFIER_TESTEE_H
#define TURNSTILE_CONFORMANCE_CERTIFIER_TESTEE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/json/buf.h"

typedef enum ts_call_status {
    TS_CALL_ANSWERED,     /* one line came back (its content is judged by the caller) */
    TS_CALL_TIMEOUT,      /* no answer within the timeout; the child was killed */
    TS_CALL_CRASHED,      /* the child died of a signal */
    TS_CALL_EXITED,       /* the child exited */
    TS_CALL_TOO_LARGE,    /* the answer exceeded the size limit */
    TS_CALL_UNAVAILABLE,  /* the child could not be (re)started */
    TS_CALL_STDOUT_CLOSED,/* the child closed its stdout and kept running; it was killed */
    TS_CALL_CASE_TIMEOUT, /* the case's deadline (ts_testee_set_deadline) came first; the child was killed */
} ts_call_status;

const char *ts_call_status_name(ts_call_status status);

typedef struct ts_call_result {
    ts_call_status status;
    int code;              /* exit status or signal number */
    bool loaded;           /* TS_CALL_TIMEOUT while the testee waited for a CPU more than it ran or
                            * slept (the host was too loaded to tell a hang): no verdict on it */
    bool extra_output;     /* output came after the last answer, before this request (found
                            * now; counted for the request it answered: ts_testee_extra_answers) */
    char detail[200];
    /* ts_testee_converse (child testees): lines written before the reply to the line before was
     * sent (pipelined world calls, PROTOCOL.md); the longest the testee was silent after a reply
     * before its next line; whether a kill was settled first (options or ts_testee_set_auto_settle). */
    long pipelined_lines;
    double slowest_step_seconds;
    bool settled_kill;
} ts_call_result;

typedef struct ts_testee ts_testee;

typedef struct ts_testee_options {
    double timeout_seconds;     /* per answer, counted from when the testee has read the request
                                 * (or reply) whole; 0: default 5; at most 86400 */
    size_t max_answer_bytes;    /* 0: default 16 MiB */
    int max_restarts;           /* 0: default 20 */
    double kill_settle_seconds; /* ts_testee_converse: before a kill, let the testee act on the replies
                                 * it has (read, unanswered, what it writes until it is this long
                                 * silent); 0: automatic (ts_testee_set_auto_settle); < 0: kill at once */
    double start_timeout_seconds; /* a start: until the testee has read its first request whole
                                 * (or a fork server forked), apart from the answer's timeout;
                                 * 0: default 60; at most 86400 */
} ts_testee_options;

/* How a child testee's later starts are made (PROTOCOL.md, fork servers): each a new process of
 * the command (off); an instance forked by a fork server of the command, which loaded it once
 * (fork: for a testee whose hello says "fork": true); or a process started ahead of need while
 * the current one works, taken when a start is needed (pool). A warm start is a start: the
 * process has read nothing and holds nothing of any run. A fork server that fails is said once
 * on stderr and the testee goes on with cold starts. */
typedef enum ts_testee_warm { TS_WARM_OFF, TS_WARM_POOL, TS_WARM_FORK } ts_testee_warm;

/* A child process running argv (NULL-terminated), started now. Returns NULL (and a reason in
 * `why`) when it cannot be started, or when an option is out of range (a timeout that is not
 * a finite number of seconds in (0, 86400], a negative max_restarts). */
ts_testee *ts_testee_spawn(char *const argv[], const ts_testee_options *options, char *why, size_t why_size);

/* A new testee of the same kind and options (warm mode included), started by its first call; the
 * reference in-process: the same mutant. NULL when out of memory. */
ts_testee *ts_testee_copy(const ts_testee *t);

/* In a process forked from the one that made t (a worker): t is not this process's to stop; its
 * descriptors are closed and it is freed, and nothing it started is touched. Accepts NULL. */
void ts_testee_forget(ts_testee *t);

/* The warm mode of later starts (a running child is stopped when the mode changes). No-op
 * in-process. */
void ts_testee_set_warm(ts_testee *t, ts_testee_warm warm);
ts_testee_warm ts_testee_warm_mode(const ts_testee *t);

/* The answer timeout times `scale` (1: as configured), for a retry on a loaded host. */
void ts_testee_scale_timeout(ts_testee *t, double scale);

/* Processes this testee started: `execs` new processes of the command (cold starts, fork servers
 * and processes started ahead of need), of which `pooled` were taken from the pool, and `forked`
 * fork-server instances. */
void ts_testee_starts(const ts_testee *t, long *execs, long *pooled, long *forked);

/* Sends one request line (no newline) and reads the answer line into answer (cleared first).
 * With request NULL, sends nothing and reads the next line (after a stale answer). */
void ts_testee_call(ts_testee *t, const char *request, size_t len, ts_buf *answer, ts_call_result *result);

/* What the caller makes of one line the testee wrote while a conversing request is in flight. */
typedef enum ts_line_verdict {
    TS_LINE_REPLY,   /* a world call: the reply the handler wrote is sent back, and reading goes on */
    TS_LINE_ANSWER,  /* the request's answer: the request is over */
    TS_LINE_KILL,    /* kill the testee's process group now, without replying */
} ts_line_verdict;

/* Judges one line (len bytes, no newline); for TS_LINE_REPLY appends the reply line to reply. */
typedef ts_line_verdict (*ts_line_handler)(void *context, const char *line, size_t len, ts_buf *reply);

/* A request whose answer comes after world calls (PROTOCOL.md `resume`): sends request, then
 * hands each line the testee writes to on_line, writing back the replies it makes, until
 * on_line takes a line as the answer or asks for a kill. Every line has the answer timeout.
 * A kill SIGKILLs the child's process group (result: crashed, code SIGKILL) — at once, or after
 * options.kill_settle_seconds of silence; lines written meanwhile are in flight, not answered,
 * and handed to no one. The next call starts the command again, not counted as a restart. In-process, world calls
 * reach on_line directly, and a kill stops the reference at that world call. result holds the
 * harness outcome otherwise, as ts_testee_call's. */
void ts_testee_converse(ts_testee *t, const char *request, size_t len, ts_line_handler on_line, void *context,
                        ts_call_result *result);

/* Automatic settling (options.kill_settle_seconds 0): from now on a kill in ts_testee_converse first
 * waits for quiet_seconds of silence (0: kill at once), within the case's deadline; a conversation
 * that sees pipelining itself settles its kill even when quiet_seconds is 0 (TS_TESTEE_AUTO_SETTLE_MIN
 * of silence at least). The caller (the case's world) sets it from the pipelining it saw. No-op
 * in-process. */
void ts_testee_set_auto_settle(ts_testee *t, double quiet_seconds);

/* Inside ts_testee_converse's on_line: whether the line it is handed was written before the testee
 * read the reply to the line before it (a pipelined world call, PROTOCOL.md): such a line cannot
 * depend on that reply. Seen as testee_converse.c's wrote_ahead sees it (no false positive; a race
 * may hide one). Always false in-process. */
bool ts_testee_line_pipelined(const ts_testee *t);
#define TS_TESTEE_AUTO_SETTLE_MIN 0.2

/* The clock deadlines are read on: CLOCK_MONOTONIC, in seconds. */
double ts_testee_clock(void);

/* The case in flight must be over by `deadline` (ts_testee_clock seconds; 0: no deadline): no
 * call waits past it (nor the settling before a kill), and a call that reaches it ends
 * TS_CALL_CASE_TIMEOUT, the child killed. In-process calls are not interrupted (the caller's
 * line handler sees the clock). ts_testee_deadline: the one set, or 0. */
void ts_testee_set_deadline(ts_testee *t, double deadline);
double ts_testee_deadline(const ts_testee *t);

/* The file-system observer (conformance/nemesis/fstrace.h) for a child testee: every start
 * from now on runs traced under root, its records appended to trace_fd (root copied, trace_fd
 * borrowed; root NULL: untraced from the next start). A running child started otherwise is
 * stopped (a planned restart). False in-process, or when this build cannot trace. */
bool ts_testee_observe(ts_testee *t, const char *root, int trace_fd);

/* Arms the observer: a kill at the count-th store operation under root/subroot (after: as it
 * returns) from the next request on — the running child's supervisor now, or the next start's.
 * The child that dies of it (SIGKILL, armed) is a planned end, not the testee's failure. False
 * when the testee is not observed. */
bool ts_testee_arm(ts_testee *t, const char *subroot, uint64_t count, bool after);

/* The running child's stdout offset at the end of the last line handed out (a world call or an
 * answer): the bytes it wrote before the lines not yet read. 0 in-process. */
uint64_t ts_testee_stdout_offset(const ts_testee *t);

/* Stops the child as a clean restart does: closes its stdin, waits up to 2 s, then kills it (a
 * fork server and a pooled process stay). The next call starts the command again (not counted as
 * a restart). No-op in-process. */
void ts_testee_stop(ts_testee *t);

/* Checks whether the testee wrote anything after its last answer (a second answer). */
bool ts_testee_has_extra_output(ts_testee *t);

/* How many lines beyond its answer the request with this id drew (second answers), as found
 * so far; output that carries no id of an earlier request counts for the request answered
 * last. 0 for in-process testees. */
int ts_testee_extra_answers(const ts_testee *t, const char *id);

/* The i-th request id that drew lines beyond its answer, with how many (false past the last). */
bool ts_testee_extra_at(const ts_testee *t, size_t i, const char **id, int *count);

/* The end of a run: closes the child's stdin and reads what it writes until it exits (2 s at
 * most, then it is killed), so that a second answer to the last request is counted too; a fork
 * server and a pooled process are stopped too, their trees cleared. The next call starts the
 * child again. No-op in-process. */
void ts_testee_finish(ts_testee *t);

/* Why the testee cannot be used ("it never answered: ...": how its last start ended, and the
 * last line of its stderr), or NULL. Owned by t. */
const char *ts_testee_failure(const ts_testee *t);

/* Kills the child's whole process tree now (SIGKILL) and waits until it is gone; the next
 * call starts it again, not counted against max_restarts. No-op in-process. */
void ts_testee_kill(ts_testee *t);

/* Is the child running (not ended)? Always true in-process. Does not wait. */
bool ts_testee_alive(ts_testee *t);

/* The running child's pid, which is also its process group id; -1 when none (in-process). */
pid_t ts_testee_pid(const ts_testee *t);

/* The last few KiB the testee wrote on stderr ("" for in-process; may hold NUL bytes, hence
 * the length), how often it was restarted; and forgetting the tail. */
const char *ts_testee_stderr_tail(const ts_testee *t, size_t *len);
void ts_testee_clear_stderr_tail(ts_testee *t);
int ts_testee_restarts(const ts_testee *t);
const char *ts_testee_description(const ts_testee *t);

/* ts_testee_finish, then frees. Accepts NULL. */
void ts_testee_close(ts_testee *t);

/* ---- the seam: what an implementation provides ----
 *
 * Every testee struct begins with a ts_testee (so a pointer to it is a ts_testee *) whose vtable
 * the calls above go through (testee_seam.c). The first group every implementation has. The
 * second is a child process's: a testee that starts no process leaves them NULL, and each call
 * then has its neutral answer, as documented above ("no-op in-process", 0, false, NULL, "";
 * ts_testee_alive true; ts_testee_pid -1; ts_testee_warm_mode TS_WARM_OFF). */
typedef struct ts_testee_vtable {
    void (*call)(ts_testee *t, const char *request, size_t len, ts_buf *answer, ts_call_result *result);
    void (*converse)(ts_testee *t, const char *request, size_t len, ts_line_handler on_line, void *context,
                     ts_call_result *result);
    ts_testee *(*copy)(const ts_testee *t);
    void (*close)(ts_testee *t);                  /* ts_testee_finish, then frees */
    void (*forget)(ts_testee *t);                 /* NULL: close */

    void (*set_warm)(ts_testee *t, ts_testee_warm warm);
    ts_testee_warm (*warm_mode)(const ts_testee *t);
    void (*scale_timeout)(ts_testee *t, double scale);
    void (*starts)(const ts_testee *t, long *execs, long *pooled, long *forked);
    void (*set_auto_settle)(ts_testee *t, double quiet_seconds);
    bool (*line_pipelined)(const ts_testee *t);
    bool (*observe)(ts_testee *t, const char *root, int trace_fd);
    bool (*arm)(ts_testee *t, const char *subroot, uint64_t count, bool after);
    uint64_t (*stdout_offset)(const ts_testee *t);
    void (*stop)(ts_testee *t);
    bool (*has_extra_output)(ts_testee *t);
    int (*extra_answers)(const ts_testee *t, const char *id);
    bool (*extra_at)(const ts_testee *t, size_t i, const char **id, int *count);
    void (*finish)(ts_testee *t);
    const char *(*failure)(const ts_testee *t);
    void (*kill)(ts_testee *t);
    bool (*alive)(ts_testee *t);
    pid_t (*pid)(const ts_testee *t);
    const char *(*stderr_tail)(const ts_testee *t, size_t *len);
    void (*clear_stderr_tail)(ts_testee *t);
    int (*restarts)(const ts_testee *t);
} ts_testee_vtable;

/* What every testee holds, whatever it is (ts_testee_set_deadline, ts_testee_description). */
struct ts_testee {
    const ts_testee_vtable *vtable;
    double deadline;       /* of the case in flight; 0: none */
    char description[256]; /* as ts_testee_description returns it */
};

/* base with vtable, no deadline, and an empty description (the implementation writes it). */
void ts_testee_init_base(ts_testee *base, const ts_testee_vtable *vtable);

#endif
