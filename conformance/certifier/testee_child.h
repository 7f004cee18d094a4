/* testee_child.h — private to testee.c and testee_converse.c: the child-process testee's state
 * and the steps both use. Not part of the certifier's interface (that is testee.h).
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

struct ts_testee {
    bool in_process;
    ts_testee_config config;     /* in-process */
    char **argv;                 /* child */
    ts_testee_options options;
    ts_child child;
    bool running;                /* child started and not stopped yet (it may have ended) */
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
    double deadline;             /* of the case in flight (ts_testee_set_deadline); 0: none */
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
    char description[256];
};

double ts_testee_now_seconds(void);

/* Moves what the child wrote on stderr into the kept tail. */
void ts_testee_drain_stderr(ts_testee *t);

/* Ends the running child (killing it when kill_it, or when it still runs), keeps its last
 * stderr, and clears its whole process tree. */
void ts_testee_stop_child(ts_testee *t, bool kill_it);

/* Writes request (unless NULL) to the child and reads the line that answers it. check_extra:
 * first take output left from the previous request as second answers and notice a death since;
 * off for the replies of a conversation, whose next world call may already be written. */
void ts_testee_call_child(ts_testee *t, const char *request, size_t len, ts_buf *answer, ts_call_result *result,
                          bool check_extra);

#endif
