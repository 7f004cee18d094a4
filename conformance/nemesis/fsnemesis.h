/* fsnemesis.h — the file-system nemesis of one resume case (DESIGN.md): the store operations
 * the observer recorded of each run, in order with the protocol lines the testee wrote, and
 * the crash states of a power loss.
 *
 * Owns: the case's directory — the observer's root, whose subdirectories are the runs' stores —
 * and its trace file (fsop.h), read while the testee runs; and the persistence model of the run
 * in progress (fsmodel.h), whose baseline is the store as the run (or the restart after a kill)
 * found it. The harness asks it, at each line the testee writes, for the store operations that
 * came before that line; it numbers them as the observer counts them when armed (the store
 * operations under the run's store, and syncs of everything), so a kill point named in one run
 * is armed in another by that number. At a kill it writes a power-loss crash state into the
 * store, or takes the store as a killed process left it. It decides nothing about the protocol
 * and judges nothing.
 */
#ifndef TURNSTILE_CONFORMANCE_NEMESIS_FSNEMESIS_H
#define TURNSTILE_CONFORMANCE_NEMESIS_FSNEMESIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "conformance/nemesis/fsmodel.h"
#include "conformance/nemesis/fsop.h"
#include "core/json/buf.h"

typedef struct ts_fsnemesis ts_fsnemesis;

typedef struct ts_fsnemesis_options {
    size_t window;   /* single-operation crash states: about the last `window` unsynced changes (0: 8) */
    size_t block;    /* a torn write keeps what comes before its first `block` boundary (0: 4096) */
    size_t max_store_bytes; /* a store larger than this is not modelled (0: 256 MiB) */
} ts_fsnemesis_options;

/* A nemesis for a case whose stores live under case_dir (an existing, empty directory, given
 * resolved: realpath). Its trace file is case_dir/trace. NULL with a reason when it cannot be
 * made. options NULL: the defaults. */
ts_fsnemesis *ts_fsnemesis_new(const char *case_dir, const ts_fsnemesis_options *options, char *why, size_t why_size);
void ts_fsnemesis_free(ts_fsnemesis *n); /* accepts NULL */

/* The observer's root (case_dir) and the descriptor its records are appended to (borrowed). */
const char *ts_fsnemesis_root(const ts_fsnemesis *n);
int ts_fsnemesis_trace_fd(const ts_fsnemesis *n);

/* A new run whose store is root/name, made now and empty; the model starts from it. Records of
 * earlier runs still coming (a testee process that outlives its run) are read and dropped. */
bool ts_fsnemesis_begin_run(ts_fsnemesis *n, const char *name, char *why, size_t why_size);

/* The store directory of the run in progress (absolute). */
const char *ts_fsnemesis_store(const ts_fsnemesis *n);

/* Each store operation of the run recorded since the last call, in order, up to (and not
 * including) the first that testee process pid made after it had written stdout_limit bytes on
 * its stdout (UINT64_MAX: every one recorded so far): applied to the model, then handed to
 * `each` with its number in the run (1-based; 0 for a NOTE, which is no operation). False when
 * the trace is damaged or the model runs out of memory (why says which). */
typedef void (*ts_fsnemesis_each)(void *context, const ts_fsop *op, uint64_t number);
bool ts_fsnemesis_drain(ts_fsnemesis *n, pid_t pid, uint64_t stdout_limit, ts_fsnemesis_each each, void *context,
                        char *why, size_t why_size);

/* Store operations of the run so far, and records the model holds (the crash states' `end`). */
uint64_t ts_fsnemesis_operations(const ts_fsnemesis *n);
size_t ts_fsnemesis_records(const ts_fsnemesis *n);

/* The crash states of a power loss after the first `end` records of the run's model (only the
 * strict one unless single_operation), at most max; returns how many. */
size_t ts_fsnemesis_crash_states(const ts_fsnemesis *n, size_t end, bool single_operation, ts_crash_state *out,
                                 size_t max);

/* Is the first operation recorded at or after record `end` a sync (fsync, fdatasync, msync,
 * sync, syncfs)? A crash just before a sync is where the most is unsynced. */
bool ts_fsnemesis_sync_follows(const ts_fsnemesis *n, size_t end);

/* The model of the run in progress (borrowed), for names and descriptions of its states. */
const ts_fsmodel *ts_fsnemesis_model(const ts_fsnemesis *n);

/* A power loss now (the testee and everything it started must be gone): writes the crash state
 * named `state` (ts_crash_state_name) into the run's store and appends a description of it to
 * description. The model then starts again from the store as written. False when the state
 * does not exist now (the run took another course) or cannot be written. */
bool ts_fsnemesis_power_loss(ts_fsnemesis *n, const char *state, ts_buf *description, char *why, size_t why_size);

/* A killed process (gone): the model starts again from the store as the kill left it. */
bool ts_fsnemesis_restart(ts_fsnemesis *n, char *why, size_t why_size);

/* What the observer saw and could not follow in this run — its notes and the files whose writes
 * escaped it — as text ("" nothing; borrowed). */
const char *ts_fsnemesis_warnings(const ts_fsnemesis *n);

#endif
