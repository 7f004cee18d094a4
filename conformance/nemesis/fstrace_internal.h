/* fstrace_internal.h — private to the observer (fstrace.c, fstrace_ops.c, fstrace_read.c,
 * fstrace_run.c): the tracer's state, the decoding of one traced system call into store
 * operations, and the set of store files mapped shared and writable. Not part of the
 * interface. */
#ifndef TURNSTILE_CONFORMANCE_NEMESIS_FSTRACE_INTERNAL_H
#define TURNSTILE_CONFORMANCE_NEMESIS_FSTRACE_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "conformance/nemesis/fsop.h"
#include "conformance/nemesis/fstrace.h"
#include "core/json/buf.h"

enum {
    MAX_PENDING = 256, /* threads inside a traced call at once */
    MAX_MAPPED = 64,   /* store files mapped shared and writable */
    HELD_MAX = 1 << 20, /* bytes of records held for a process started ahead of need */
};

/* What the tracer does with a call it stopped at the entry of. */
typedef enum call_action {
    CALL_PASS,   /* not the store's: let it run, forget it */
    CALL_TRACK,  /* a store operation: let it run (or kill), finish it at its exit */
    CALL_OUTPUT, /* a write on stdout: count its bytes at its exit */
    CALL_DENY,   /* refuse it: skip it and make it return -ENOSYS */
} call_action;

/* One traced call between its entry and its exit. */
typedef struct pending_call {
    pid_t tid;           /* 0: the slot is free */
    long nr;
    call_action action;
    ts_fsop op;          /* op.path and op.path2 point at path and path2 below */
    char path[PATH_MAX], path2[PATH_MAX];
    char abs[PATH_MAX];  /* the absolute path of a path-based call's target, for lstat at exit */
    int fd;              /* the descriptor the call writes through (-1: none) */
    bool existed;        /* open/creat/mknod: the target existed before the call */
    bool has_offset;     /* the write's offset was given (pwrite, copy_file_range's off_out) */
    bool append;         /* O_APPEND or RWF_APPEND: the data went to the end */
    bool outside_source; /* RENAME/LINK into the store of a file the store did not hold */
    bool synchronous;    /* msync: MS_SYNC (else written back, not synced) */
    bool armed;          /* the armed kill is at this operation */
    char note[256];      /* a NOTE to emit with the operation ("" none) */
} pending_call;

struct ts_fstrace {
    ts_fstrace_config config;
    size_t root_len;
    dev_t root_dev;
    pid_t command;
    bool command_ended;
    int command_status;
    uint64_t seq;            /* store operations seen so far */
    ts_fstrace_arm_message arm;
    uint64_t stdout_bytes;   /* written on stdout so far */
    bool stdout_known;       /* the command's stdout at its start (dev, ino), for telling it from */
    dev_t stdout_dev;        /* a child's fd 1 of its own (a shell's $(...) pipe), which is not */
    ino_t stdout_ino;        /* the command's output */
    bool killed;
    pid_t instance;          /* a fork server's latest instance (config.fork_server); 0: none yet */
    bool instance_stdout_pending; /* its stdout (stdout_dev, stdout_ino) is learnt at its first stop */
    bool holding;            /* records go to `held` (config.hold, not yet released) */
    ts_buf held;
    pending_call *pending[MAX_PENDING];
    ts_inode mapped[MAX_MAPPED];
    size_t mapped_count;
    ts_buf record;           /* scratch: one encoded record */
    uint8_t *data;           /* scratch: read-back bytes */
    size_t data_cap;
};

/* Decodes a call at its entry (registers already read into args): fills call, returns what to
 * do. call->tid and call->nr are set by the caller. */
call_action ts_fstrace_entry(ts_fstrace *t, pending_call *call, const uint64_t args[6]);

/* Finishes a tracked call at its exit (result: the call's return value, -errno on failure):
 * reads back what it did and appends its record(s). */
void ts_fstrace_exit(ts_fstrace *t, pending_call *call, int64_t result);

/* Appends one record to the trace file (or to the held records). */
void ts_fstrace_emit(ts_fstrace *t, const ts_fsop *op);

/* Writes the held records and stops holding. */
void ts_fstrace_release(ts_fstrace *t);

/* The store files mapped shared and writable (t->mapped): is ino among them; remove ino (every
 * entry of it) — a new file that took a freed mapped file's number is not mapped. */
bool ts_fstrace_is_mapped(const ts_fstrace *t, ts_inode ino);
void ts_fstrace_forget_mapped(ts_fstrace *t, ts_inode ino);

/* Appends a NOTE record (text) for thread tid. */
void ts_fstrace_note(ts_fstrace *t, pid_t tid, long nr, const char *text);

#endif
