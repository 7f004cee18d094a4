/* testee_child.h — private to testee.c, testee_start.c, testee_ids.c and testee_converse.c: the
 * child-process implementation of the testee seam (testee.h): its state, its vtable entries and
 * the steps they share. Not part of the certifier's interface (that is testee.h).
 */
#ifndef TURNSTILE_CONFORMANCE_CERTIFIER_TESTEE_CHILD_H
#define TURNSTILE_CONFORMANCE_CERTIFIER_TESTEE_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conformance/certifier/supervise.h"
#include "conformance/certifier/testee.h"

enum {
    STDERR_TAIL = 4096,
    SILENT_STARTS = 3, /* starts that end before any start wrote a line: the testee cannot start */
    ID_MAX = 128,      /* request ids longer than this are not tracked for second answers */
};

typedef struct extra_count {
    char *id;
    int count;
} extra_count;

typedef struct ts_child_testee {
    ts_testee base;              /* first: a ts_child_testee * is a ts_testee * */
    char **argv;
    ts_testee_options options;
    ts_child child;
    bool running;                /* child started and not stopped yet (it may have ended) */
    bool started_once;           /* some start was made */
    bool stdout_eof;             /* its stdout reached end of file */
    int answers_this_start;
    char *pending;               /* stdout bytes read past the last answer line */
    size_t pending_len, pending_cap;
    char tail[STDERR_TAIL + 1];
    size_t tail_len;
    int restarts;                /* after an end the testee caused */
    int planned_restarts;        /* after ts_testee_kill or ts_testee_finish */
    bool stopped_on_purpose;
    bool answered_once;          /* some start wrote a complete line */
    int silent_starts;
    char *failure;
    char **sent;                 /* distinct request ids sent so far */
    size_t sent_count, sent_cap;
    char last_answered[ID_MAX];  /* the request the last answer line was taken for */
    extra_count *extras;
    size_t extra_len;
    char *observe_root;          /* the file-system observer's root for every start (heap); NULL: none */
    int trace_fd;                /* where the observer appends its records (borrowed) */
    bool arm_pending;            /* an arming for the next start */
    char arm_subroot[256];
    uint64_t arm_count;
    bool arm_after;
    bool armed_this_start;       /* this start was armed: a SIGKILL is the nemesis's */
    uint64_t stdout_read;        /* bytes read from this start's stdout */
    double auto_settle;          /* ts_testee_set_auto_settle's quiet, seconds (0: none) */
    bool line_pipelined;         /* the line on_line is handed came before the last reply was read */
    bool read_first;             /* this start has read a request whole (its start is over) */
    double timeout_scale;        /* ts_testee_scale_timeout */
    ts_testee_warm warm;
    ts_child server;             /* warm fork: the fork server instances come from (pid -1: none) */
    ts_child spare;              /* warm pool: a process started ahead of need (pid -1: none) */
    long execs, pooled, forked;  /* ts_testee_starts */
} ts_child_testee;

/* The child testee behind the seam's handle (only ever given one of this implementation's). */
static inline ts_child_testee *child_of(ts_testee *t) { return (ts_child_testee *)t; }
static inline const ts_child_testee *const_child_of(const ts_testee *t) { return (const ts_child_testee *)t; }

/* The vtable entries (testee.h, ts_testee_vtable) defined outside testee.c, which holds the table. */
void child_testee_converse(ts_testee *base, const char *request, size_t len, ts_line_handler on_line, void *context,
                           ts_call_result *result);
void child_testee_set_auto_settle(ts_testee *base, double quiet_seconds);
bool child_testee_line_pipelined(const ts_testee *base);
int child_testee_extra_answers(const ts_testee *base, const char *id);
bool child_testee_extra_at(const ts_testee *base, size_t i, const char **id, int *count);
void child_testee_set_warm(ts_testee *base, ts_testee_warm warm);
ts_testee_warm child_testee_warm_mode(const ts_testee *base);
void child_testee_scale_timeout(ts_testee *base, double scale);
void child_testee_starts(const ts_testee *base, long *execs, long *pooled, long *forked);
bool child_testee_observe(ts_testee *base, const char *root, int trace_fd);
bool child_testee_arm(ts_testee *base, const char *subroot, uint64_t count, bool after);
uint64_t child_testee_stdout_offset(const ts_testee *base);

double ts_testee_now_seconds(void);

/* Request ids (testee_ids.c): the "id" string of a JSON object line into out (false when it has
 * none that fits ID_MAX); whether id was sent to the testee; remembering one sent (copied); a
 * line that answers a request already answered, counted as a second answer of it. */
bool ts_testee_line_id(const char *line, size_t len, char out[ID_MAX]);
bool ts_testee_was_sent(const ts_child_testee *t, const char *id);
void ts_testee_remember_sent(ts_child_testee *t, const char *id);
void ts_testee_count_extra_line(ts_child_testee *t, const char *line, size_t len);

/* c with no process (every descriptor -1). */
void ts_testee_no_child(ts_child *c);

/* Starts the child (testee_start.c): warm when the mode gives a warm start, else a new process;
 * armed for the observer when an arming waits. False (why) when no process could be started. */
bool ts_testee_start_child(ts_child_testee *t, char *why, size_t why_size);

/* Stops the fork server and the pooled process, clearing their trees (testee_start.c). */
void ts_testee_stop_warm(ts_child_testee *t);

/* Moves what the child wrote on stderr into the kept tail. */
void ts_testee_drain_stderr(ts_child_testee *t);

/* Ends the running child (killing it when kill_it, or when it still runs), keeps its last
 * stderr, and clears its whole process tree. */
void ts_testee_stop_child(ts_child_testee *t, bool kill_it);

/* Writes request (unless NULL) to the child and reads the line that answers it. check_extra:
 * first take output left from the previous request as second answers and notice a death since;
 * off for the replies of a conversation, whose next world call may already be written. */
void ts_testee_call_child(ts_child_testee *t, const char *request, size_t len, ts_buf *answer, ts_call_result *result,
                          bool check_extra);

#endif
