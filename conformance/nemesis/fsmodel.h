/* fsmodel.h — what a store holds, what of it is durable, and what a power loss leaves of it.
 *
 * Owns: a model of the files under one store directory — directories, files and symbolic
 * links, named by inode as the observer names them (fsop.h) — fed the observer's records in
 * order, starting from a baseline read from the directory itself (everything in it then is
 * durable). A file is an inode number in a generation: each create, mkdir or symlink starts a
 * new generation of its number, so when the file system reuses a freed number (ext4 does at
 * once) the new file shares no durability fact with the old one (a sync of one is no sync of
 * the other). It knows, for every change, from when on it is durable (the persistence model,
 * DESIGN.md §2, the strict reading of POSIX that LazyFS also takes for data):
 *   - a file's data (a write, a truncate, a snapshot) once an fsync or fdatasync of that file
 *     returned success after it, or at once when written through an O_SYNC/O_DSYNC descriptor;
 *   - a directory entry (a create, mkdir, symlink, link, unlink, rmdir) once an fsync of that
 *     directory returned success after it; a rename once both directories were synced;
 *   - everything at sync(2)/syncfs(2).
 * A failed fsync makes nothing durable. An fsync of a file does not make its name durable
 * (ext4's data=ordered would, through its journal: DESIGN.md says where the two differ).
 *
 * From it come crash states: for a crash after the first `end` records, the strict state
 * (every unsynced change lost) and ALICE-style single-operation states (one unsynced change
 * dropped while the others persisted, one persisted ahead of its unsynced predecessor, one
 * write torn at a block boundary). A state is the set of changes it keeps; its identity is a
 * hash of that set, so states that keep the same changes are one experiment. A state is made
 * real by writing it into a directory (ts_fsmodel_materialize).
 *
 * Writes the observer could not follow (an FSYNC whose content differs from the model's) mark
 * the file `escaped`: states are then approximate for it, and ts_fsmodel_escapes says so.
 */
#ifndef TURNSTILE_CONFORMANCE_NEMESIS_FSMODEL_H
#define TURNSTILE_CONFORMANCE_NEMESIS_FSMODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conformance/nemesis/fsop.h"
#include "core/json/buf.h"

typedef struct ts_fsmodel ts_fsmodel;

/* A new model whose baseline is what `root` holds now (read whole; nothing under it may be
 * larger than max_bytes in all). NULL with a reason in why when it cannot be read. */
ts_fsmodel *ts_fsmodel_new(const char *root, size_t max_bytes, char *why, size_t why_size);
void ts_fsmodel_free(ts_fsmodel *m); /* accepts NULL */

/* Takes one record (copied): applies it, and updates what is durable. OUTPUT records are not
 * kept. False only when out of memory. */
bool ts_fsmodel_apply(ts_fsmodel *m, const ts_fsop *op);

/* Records taken so far; record i (0-based) as taken (borrowed until the model is freed). */
size_t ts_fsmodel_count(const ts_fsmodel *m);
const ts_fsop *ts_fsmodel_record(const ts_fsmodel *m, size_t i);

/* Files whose writes escaped the observer, as text ("" none); borrowed. */
const char *ts_fsmodel_escapes(const ts_fsmodel *m);

typedef enum ts_crash_kind {
    TS_CRASH_UNSYNCED_LOST, /* every change not yet durable is lost (LazyFS, and metadata too) */
    TS_CRASH_DROPPED,       /* one unsynced change lost, every other one persisted */
    TS_CRASH_REORDERED,     /* one unsynced change persisted ahead of its unsynced predecessor,
                             * which is lost with everything after */
    TS_CRASH_TORN,          /* one unsynced write persisted up to its first block boundary,
                             * everything after lost */
} ts_crash_kind;

typedef struct ts_crash_state {
    ts_crash_kind kind;
    size_t end;       /* the crash comes after the first `end` records */
    size_t op;        /* DROPPED/REORDERED/TORN: the record the state is about */
    size_t kept;      /* TORN: the bytes of that write that persisted */
    size_t lost;      /* changes the state loses (unsynced ones not kept, whole or in part) */
    uint64_t id;      /* the identity: a hash of the changes kept (and the torn length) */
} ts_crash_state;

const char *ts_crash_kind_name(ts_crash_kind kind); /* "unsynced-lost", "dropped", "reordered", "torn" */

/* Changes applied but not durable at `end`. */
size_t ts_fsmodel_unsynced(const ts_fsmodel *m, size_t end);

/* The crash states of a crash after the first `end` records (end <= count): the strict one
 * first, then (window > 0) the single-operation ones about the last `window` unsynced changes
 * to files and directories the log ever syncs — a file no one syncs is one its writer does not
 * rely on, and every state of it is the strict one's business (block: the tear's size, e.g.
 * 4096). Only states that lose something and differ from each other. Writes up to max into out
 * and returns how many there are. */
size_t ts_fsmodel_crash_states(const ts_fsmodel *m, size_t end, size_t window, size_t block, ts_crash_state *out,
                               size_t max);

/* Writes the state into dir: everything in dir is removed first (dir itself stays). False
 * with a reason when the directory cannot be written. */
bool ts_fsmodel_materialize(const ts_fsmodel *m, const ts_crash_state *state, const char *dir, char *why,
                            size_t why_size);

/* Removes everything under dir (dir stays), never following a link, with a bounded stack
 * (a testee's store may be nested deep on purpose). False with a reason when it cannot. */
bool ts_fsmodel_clear_dir(const char *dir, char *why, size_t why_size);

/* One line a person reads: "torn: write journal.log @4096+700 kept 0 bytes (3 changes lost)". */
void ts_fsmodel_describe_state(const ts_fsmodel *m, const ts_crash_state *state, ts_buf *out);

/* The state's name as certify --crash-state takes it: "unsynced-lost", "dropped:12",
 * "reordered:12", "torn:12" (12: the record's number, 1-based). */
void ts_crash_state_name(const ts_crash_state *state, ts_buf *out);

/* The crash state `name` names (ts_crash_state_name) for a crash after `end` records: built
 * from the name itself (the change it is about), so that a state planned on a longer log (the
 * uninterrupted run's) is found on a kill run's, which ends at the kill. False when there is no
 * such state there (the change is not there, or already durable; the state would lose nothing,
 * or keep a directory change without the one before it). window is unused. */
bool ts_fsmodel_find_state(const ts_fsmodel *m, size_t end, size_t window, size_t block, const char *name,
                           ts_crash_state *out);

#endif
